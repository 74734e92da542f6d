// The checkpoint page: every job with its last checkpoints, a job's
// history as a table and a chart, and a trigger button that POSTs as
// Flink's clients do.  Every URL is relative to the page (../jobs/...), so
// it works under any prefix (/api/ui/).  No dependency, no build step.
import { drawChart } from './chart.js';
import { fmtDuration, timeEl } from './format.js';

const REFRESH_MS = 5000;
const PAGE_ROWS = 50; // jobs shown, and whose statistics are fetched
const FETCHES = 6; // statistics requests at once
const HISTORY_STEP = 100; // history rows added by "Show more"

const $ = (id) => document.getElementById(id);
const state = {
	jobs: [], // /jobs/overview, sorted
	stats: new Map(), // jid -> { data } or { error }
	waits: new Map(), // jid -> the service's own ../triggers: { data } or { error }
	rows: new Map(), // jid -> the row's elements, kept between refreshes
	triggers: new Map(), // jid -> the page's own trigger, followed
	page: 0,
	historyShown: HISTORY_STEP,
	historySig: '',
	lastOk: 0,
};

class ApiError extends Error {
	constructor(status, message) {
		super(message);
		this.status = status;
	}
}

// fetch, with the API's {"errors":[...]} made an ApiError (status 0:
// unreachable).
async function api(path, opts = {}) {
	let res;
	try {
		res = await fetch(path, { cache: 'no-store', ...opts });
	} catch (e) {
		throw new ApiError(0, `the service is unreachable (${e.message})`);
	}
	const text = await res.text();
	let body = null;
	try {
		body = text ? JSON.parse(text) : null;
	} catch {
		body = null;
	}
	if (!res.ok) {
		const msg = body && Array.isArray(body.errors) ? body.errors[0] : text.slice(0, 200);
		throw new ApiError(res.status, `${res.status} ${res.statusText}: ${msg}`);
	}
	return body;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const jobUrl = (jid) => `../jobs/${encodeURIComponent(jid)}/checkpoints`;
// Beyond Flink: the job's newest triggers and what waits for the runner.
const triggersUrl = (jid) => `../jobs/${encodeURIComponent(jid)}/triggers`;

function h(tag, { dataset, ...props } = {}, ...kids) {
	const e = document.createElement(tag);
	Object.assign(e, props);
	Object.assign(e.dataset, dataset);
	e.append(...kids.filter((k) => k !== null && k !== undefined));
	return e;
}

// Replaces a cell's content only when what it shows changed: refreshes
// never flicker, and focus and selections stay.
function setCell(td, key, build) {
	if (td.dataset.key === key)
		return;
	td.dataset.key = key;
	td.replaceChildren(...build());
}

function banner(err) {
	const b = $('banner');
	if (!err) {
		b.hidden = true;
		return;
	}
	const since = state.lastOk ? ` Last good answer: ${new Date(state.lastOk).toLocaleTimeString()}.` : '';
	b.textContent = err.status === 503 ?
		`The service is unavailable (503): ${err.message.replace(/^503 [^:]*: /, '')} Retrying every ${REFRESH_MS / 1000} s.${since}` :
		`Cannot read the jobs: ${err.message}. Retrying every ${REFRESH_MS / 1000} s.${since}`;
	b.hidden = false;
}

function visibleJobs() {
	const f = $('filter').value.trim().toLowerCase();
	const list = f ? state.jobs.filter((j) => j.jid.includes(f) || j.name.toLowerCase().includes(f)) : state.jobs;
	const pages = Math.max(1, Math.ceil(list.length / PAGE_ROWS));
	state.page = Math.min(state.page, pages - 1);
	return { list, pages, shown: list.slice(state.page * PAGE_ROWS, (state.page + 1) * PAGE_ROWS) };
}

// Flink's in_progress counts claimed triggers only: what waits for a
// runner comes from the service's own ../triggers, and a queue that no
// runner takes is said plainly (a dead runner is no quiet job).
function inProgress(data, w) {
	const running = data.counts.in_progress;
	if (!w?.data) {
		const why = w?.error ? [h('div', { className: 'muted', textContent: `queue unknown: ${w.error}` })] : [];
		return [running ? `${running} running` : 'none', ...why];
	}
	const n = w.data.in_progress;
	if (n === 0)
		return ['none'];
	const first = `${n} waiting, oldest ${fmtDuration(Date.now() - w.data.oldest_in_progress_ms)}`;
	if (running === 0)
		return [first, h('div', { className: 'bad', textContent: 'none running: no runner has claimed them' })];
	return [first, h('div', { className: 'muted', textContent: `${running} running, ${n - running} queued` })];
}

// The stack trace of the failed checkpoint id, if among the job's newest
// triggers.
function traceOf(jid, id) {
	const t = state.waits.get(jid)?.data?.triggers.find((x) => x.checkpoint_id === id && x.failure_trace);
	return t ? t.failure_trace : null;
}

const traceEl = (trace) => (trace ?
	h('details', {}, h('summary', { textContent: 'Stack trace' }), h('pre', { textContent: trace })) : null);

function lastCompleted(c) {
	if (!c)
		return [h('span', { className: 'muted', textContent: 'none yet' })];
	return [h('div', {}, h('b', { textContent: `#${c.id}` }), ` in ${fmtDuration(c.end_to_end_duration)}`),
		h('div', {}, timeEl(c.latest_ack_timestamp)),
		h('div', { className: 'loc', textContent: c.external_path ?? 'no location' })];
}

function lastFailed(c, trace) {
	if (!c)
		return [h('span', { className: 'muted', textContent: 'none' })];
	return [h('div', {}, h('b', { textContent: `#${c.id}` })), h('div', {}, timeEl(c.failure_timestamp)),
		h('div', { className: 'bad', textContent: c.failure_message ?? 'no message' }), traceEl(trace)]
		.filter((k) => k !== null);
}

// The outcome of the page's own trigger, kept in its row.
function showTrigger(jid) {
	const row = state.rows.get(jid), t = state.triggers.get(jid);
	if (!row || !t)
		return;
	row.button.disabled = t.busy;
	row.out.className = t.cls ?? '';
	row.out.replaceChildren(t.text, traceEl(t.trace) ?? '');
}

// POSTs exactly as Flink's clients do, then follows the trigger as the
// flink CLI does (10 ms doubling to 2 s) until it completes.
async function trigger(jid, type) {
	const t = { busy: true, text: 'Triggering…' };
	const set = (u) => {
		Object.assign(t, u);
		showTrigger(jid);
	};
	state.triggers.set(jid, t);
	showTrigger(jid);
	try {
		const r = await api(jobUrl(jid), {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ checkpointType: type, triggerId: null }),
		});
		const rid = r['request-id'], start = Date.now();
		for (let wait = 10; ; wait = Math.min(wait * 2, 2000)) {
			let s;
			try {
				s = await api(`${jobUrl(jid)}/${encodeURIComponent(rid)}`);
			} catch (e) {
				if (e.status !== 0 && e.status !== 503)
					throw e;
				set({ text: `Following trigger ${rid.slice(0, 8)}…: ${e.message}` });
				await sleep(2000);
				continue;
			}
			if (s.status?.id === 'COMPLETED') {
				const op = s.operation ?? {};
				if (op.failureCause) {
					const trace = op.failureCause['stack-trace'] ?? '';
					set({ busy: false, cls: 'bad', trace,
						text: `Failed: ${trace.split('\n')[0] || op.failureCause.class || 'unknown cause'}` });
				} else
					set({ busy: false, cls: 'ok', text: `Checkpoint ${op.checkpointId} completed` });
				break;
			}
			set({ text: `In progress for ${fmtDuration(Date.now() - start)}…` });
			await sleep(wait);
		}
	} catch (e) {
		set({ busy: false, cls: 'bad', text: `Not triggered: ${e.message}` });
	}
	refreshStats([jid]).then(render);
}

function makeRow(job) {
	const cells = ['Job', 'State', 'Last completed', 'Last failure', 'In progress', 'Trigger']
		.map((label) => h('td', { dataset: { label } }));
	const select = h('select', { ariaLabel: 'Checkpoint type' },
		h('option', { value: 'CONFIGURED', textContent: "job's type" }),
		h('option', { value: 'FULL', textContent: 'FULL' }),
		h('option', { value: 'INCREMENTAL', textContent: 'INCREMENTAL' }));
	const button = h('button', { type: 'button', textContent: 'Trigger checkpoint' });
	const out = h('output', { ariaLive: 'polite' });
	const controls = h('div', { className: 'trig' }, select, button, out);
	button.addEventListener('click', () => trigger(job.jid, select.value));
	cells[5].append(controls);
	const tr = h('tr', {}, ...cells);
	tr.dataset.jid = job.jid;
	return { tr, cells, controls, button, out };
}

function renderList() {
	const { list, pages, shown } = visibleJobs();
	$('count').textContent = list.length === state.jobs.length ?
		`${state.jobs.length} jobs` : `${list.length} of ${state.jobs.length} jobs`;
	$('page').textContent = `page ${state.page + 1} of ${pages}`;
	$('prev').disabled = state.page === 0;
	$('next').disabled = state.page >= pages - 1;
	$('empty').hidden = state.jobs.length > 0;
	const trs = [];
	for (const job of shown) {
		let row = state.rows.get(job.jid);
		if (!row) {
			row = makeRow(job);
			state.rows.set(job.jid, row);
		}
		const [cName, cState, cDone, cFail, cProg, cTrig] = row.cells;
		if (row.controls.parentNode !== cTrig)
			cTrig.append(row.controls); // back from the job's view
		setCell(cName, job.name + job.jid, () => [
			h('a', { href: `#job/${job.jid}`, textContent: job.name || job.jid }),
			h('div', { className: 'mono muted', textContent: job.jid })]);
		setCell(cState, job.state, () => [h('span', { className: job.state === 'RUNNING' ? 'ok' : job.state === 'FAILED' ? 'bad' : '', textContent: job.state })]);
		row.controls.hidden = job.state !== 'RUNNING';
		const s = state.stats.get(job.jid);
		if (s?.error) {
			for (const c of [cDone, cFail, cProg])
				setCell(c, 'e' + s.error, () => [h('span', { className: 'muted', textContent: s.error })]);
		} else if (s) {
			const d = s.data;
			setCell(cDone, JSON.stringify(d.latest.completed), () => lastCompleted(d.latest.completed));
			const trace = d.latest.failed ? traceOf(job.jid, d.latest.failed.id) : null;
			setCell(cFail, JSON.stringify(d.latest.failed) + (trace ? 't' : ''), () => lastFailed(d.latest.failed, trace));
			const p = inProgress(d, state.waits.get(job.jid));
			setCell(cProg, p.map((x) => (typeof x === 'string' ? x : x.textContent)).join('|'), () => p);
		}
		trs.push(row.tr);
	}
	const tbody = $('jobs').tBodies[0];
	// Moves only rows out of place: kept rows are never re-created.
	trs.forEach((tr, i) => {
		if (tbody.children[i] !== tr)
			tbody.insertBefore(tr, tbody.children[i] ?? null);
	});
	while (tbody.children.length > trs.length)
		tbody.lastChild.remove();
}

function historyRow(c, jid) {
	const cls = c.status === 'COMPLETED' ? 'ok' : c.status === 'FAILED' ? 'bad' : '';
	const what = c.status === 'FAILED' ?
		[h('span', { className: 'bad', textContent: c.failure_message ?? 'no message' }), ' at ', timeEl(c.failure_timestamp),
			traceEl(traceOf(jid, c.id))] :
		[h('span', { className: 'loc', textContent: c.external_path ?? '' })];
	const td = (label, ...kids) => h('td', { dataset: { label } }, ...kids);
	return h('tr', {}, td('Id', `#${c.id}`), td('Status', h('span', { className: cls, textContent: c.status })),
		td('Triggered', timeEl(c.trigger_timestamp)), td('Duration', fmtDuration(c.end_to_end_duration)),
		td(c.status === 'FAILED' ? 'Failure' : 'Location', ...what));
}

// The row's own trigger controls (with any outcome shown) move to the
// job's view while it is open, and back to the row after.
function jobControls(job) {
	let row = state.rows.get(job.jid);
	if (!row) {
		row = makeRow(job);
		state.rows.set(job.jid, row);
	}
	row.controls.hidden = job.state !== 'RUNNING';
	if (row.controls.parentNode !== $('job-trigger'))
		$('job-trigger').replaceChildren(row.controls);
}

function renderJob(jid) {
	const job = state.jobs.find((j) => j.jid === jid);
	if (job)
		jobControls(job);
	$('job-h').textContent = job ? `${job.name} (${job.state})` : jid;
	$('job-sub').textContent = jid;
	const s = state.stats.get(jid);
	if (!s || s.error) {
		$('job-sub').textContent = s ? `${jid}: ${s.error}` : jid;
		return;
	}
	const hist = s.data.history, c = s.data.counts;
	const wait = inProgress(s.data, state.waits.get(jid)).map((x) => (typeof x === 'string' ? x : x.textContent)).join(': ');
	$('job-sub').textContent = `${jid}: ${c.completed} completed, ${c.failed} failed, ${hist.length} in the history; in progress: ${wait}`;
	const traces = state.waits.get(jid)?.data?.triggers.filter((t) => t.failure_trace).map((t) => t.checkpoint_id).join() ?? '';
	const sig = `${hist.length}:${state.historyShown}:${JSON.stringify(hist.slice(0, 3))}:${JSON.stringify(hist.at(-1))}:${traces}`;
	if (sig === state.historySig)
		return;
	state.historySig = sig;
	drawChart($('chart'), hist);
	$('history').tBodies[0].replaceChildren(...hist.slice(0, state.historyShown).map((x) => historyRow(x, jid)));
	$('more').hidden = hist.length <= state.historyShown;
	if (hist.length > state.historyShown)
		$('more').textContent = `Show ${Math.min(HISTORY_STEP, hist.length - state.historyShown)} more of ${hist.length}`;
}

const selected = () => (location.hash.startsWith('#job/') ? decodeURIComponent(location.hash.slice(5)) : null);

function render() {
	const jid = selected();
	$('list').hidden = jid !== null;
	$('job').hidden = jid === null;
	if (jid)
		renderJob(jid);
	else
		renderList();
	if (state.lastOk)
		$('updated').textContent = `Updated ${new Date(state.lastOk).toLocaleTimeString()}`;
}

async function refreshStats(jids) {
	let next = 0;
	const one = async () => {
		while (next < jids.length) {
			const jid = jids[next++];
			const [st, tr] = await Promise.allSettled([api(jobUrl(jid)), api(triggersUrl(jid))]);
			state.stats.set(jid, st.status === 'fulfilled' ? { data: st.value } : { error: st.reason.message });
			state.waits.set(jid, tr.status === 'fulfilled' ? { data: tr.value } : { error: tr.reason.message });
		}
	};
	await Promise.all(Array.from({ length: Math.min(FETCHES, jids.length) }, one));
}

async function refresh() {
	try {
		const o = await api('../jobs/overview');
		state.jobs = o.jobs.slice().sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }) || a.jid.localeCompare(b.jid));
		const jid = selected();
		await refreshStats(jid ? [jid] : visibleJobs().shown.map((j) => j.jid));
		state.lastOk = Date.now();
		banner(null);
	} catch (e) {
		banner(e);
	}
	render();
	setTimeout(refresh, REFRESH_MS);
}

$('filter').addEventListener('input', () => {
	state.page = 0;
	render();
	refreshStats(visibleJobs().shown.map((j) => j.jid)).then(render);
});
for (const [id, d] of [['prev', -1], ['next', 1]])
	$(id).addEventListener('click', () => {
		state.page += d;
		render();
		refreshStats(visibleJobs().shown.map((j) => j.jid)).then(render);
	});
$('more').addEventListener('click', () => {
	state.historyShown += HISTORY_STEP;
	render();
});
let resizing = 0;
window.addEventListener('resize', () => {
	clearTimeout(resizing);
	resizing = setTimeout(() => {
		state.historySig = '';
		render();
	}, 200);
});
window.addEventListener('hashchange', () => {
	state.historyShown = HISTORY_STEP;
	state.historySig = '';
	render();
	const jid = selected();
	if (jid)
		refreshStats([jid]).then(render);
	else
		refreshStats(visibleJobs().shown.map((j) => j.jid)).then(render);
});
refresh();
