// The checkpoint page: every job's health first (failing, waiting with no
// runner, stale, then the rest), a summary of the fleet and the runner at
// the top, a job's history as a table and a chart, and a trigger button
// that POSTs as Flink's clients do.  The server sums the fleet (fleet, GET
// /ui/fleet) and gives a page of its jobs, worst first, found by name or
// id: a refresh asks that one request and two for each row shown, however
// many jobs there are.  Every URL is relative to the page (../jobs/...),
// so it works under any prefix (/api/ui/).  No dependency, no build step.
import { drawChart } from './chart.js';
import { ageTick, causeLine, fmtAge, fmtDuration, fmtTime, timeEl } from './format.js';

const REFRESH_MS = 5000;
const PAGE_ROWS = 50; // jobs shown, a page of ./fleet
const FETCHES = 6; // statistics requests at once
const HISTORY_STEP = 100; // history rows added by "Show more"
// The job's view reads this many of its triggers (../triggers' most, and
// CHECKPOINT_HISTORY_KEEP's default): the chart covers the history kept.
const KEPT = 1000;
// A runner silent this long is taken as not at work: a --watch runner
// records a pass at least every 15 s, cron's one a minute; a queue alone
// proves nothing, since under cron a trigger waits up to a minute.  The
// one threshold: checkpointctl doctor is built with this line's number.
const RUNNER_LATE_MS = 150000;
// A job is stale once it has a checkpoint schedule and missed it: its
// last completed checkpoint older than three of the schedule's intervals
// (a minute at least), as the server judges it (cgi/fleet.c).  A job
// triggered by hand alone has nothing to miss, however long its gaps;
// ?stale=MINUTES sets a threshold for every job.
const staleParam = new URLSearchParams(location.search).get('stale');

const $ = (id) => document.getElementById(id);
const state = {
	jobs: [], // the rows of ./fleet's page, in its order
	fleet: null, // ./fleet's answer: the fleet's health summed
	cursors: [null], // each page's ./fleet cursor, the first's none
	stats: new Map(), // jid -> { data } or { error }
	waits: new Map(), // jid -> the service's own ../triggers: { data } or { error }
	rows: new Map(), // jid -> the row's elements, kept between refreshes
	triggers: new Map(), // jid -> the page's own trigger, followed
	savepoints: new Map(), // jid -> ../savepoints (beyond Flink): { data } or { error }
	sp: null, // the page's own savepoint or stop: { jid, busy, cls, text, trace }
	runner: null, // { passMs }: ../triggers' runner_last_pass_ms, the same for every job
	down: null, // the error that stopped the last refresh
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
// unreachable).  Anything that is not the service's JSON (a proxy's HTML
// 502) is an error too, said as such, never shown as it came.
async function api(path, opts = {}) {
	let res;
	try {
		res = await fetch(path, { cache: 'no-store', ...opts });
	} catch (e) {
		throw new ApiError(0, `the service is unreachable (${e.message})`);
	}
	const text = await res.text();
	let body;
	try {
		body = (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : undefined;
	} catch {
		body = undefined;
	}
	if (!res.ok && Array.isArray(body?.errors))
		throw new ApiError(res.status, `${res.status} ${res.statusText}: ${body.errors[0]}`);
	if (!res.ok || body === undefined)
		throw new ApiError(res.ok ? -1 : res.status, `${res.status} ${res.statusText} from ` +
			`${res.headers.get('server') || 'the server'}, not the service's JSON ` +
			`(${(res.headers.get('content-type') || 'no type').split(';')[0]}): the service is not answering`);
	return body;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const jobUrl = (jid) => `../jobs/${encodeURIComponent(jid)}/checkpoints`;
// Beyond Flink: the job's newest triggers and what waits for the runner.
const triggersUrl = (jid) => `../jobs/${encodeURIComponent(jid)}/triggers`;
// The job's savepoints: Flink's family, and beyond Flink the listing.
const savepointsUrl = (jid) => `../jobs/${encodeURIComponent(jid)}/savepoints`;

// GETs a status until COMPLETED, as the flink CLI does (10 ms doubling to
// 2 s), saying how long it has waited; a 502 or 503 is waited out.
async function follow(url, say) {
	const start = Date.now();
	for (let wait = 10; ; wait = Math.min(wait * 2, 2000)) {
		let s;
		try {
			s = await api(url);
		} catch (e) {
			if (e.status > 0 && e.status !== 503 && e.status !== 502)
				throw e;
			say(`Following ${url.split('/').pop().slice(0, 8)}…: ${e.message}`);
			await sleep(2000);
			continue;
		}
		if (s.status?.id === 'COMPLETED')
			return s.operation ?? {};
		say(`In progress for ${fmtDuration(Date.now() - start)}…`);
		await sleep(wait);
	}
}

function h(tag, { dataset, ...props } = {}, ...kids) {
	const e = document.createElement(tag);
	Object.assign(e, props);
	Object.assign(e.dataset, dataset);
	e.append(...kids.filter((k) => k !== null && k !== undefined));
	return e;
}
const line = (cls, ...kids) => h('div', { className: `ln ${cls}` }, ...kids);
// A table cell that names its column, for the phone's cards.
const td = (label, ...kids) => h('td', { dataset: { label } }, ...kids);
// A failure: its cause line, the whole trace on demand.
const failEl = (line, trace) => [h('div', { className: 'bad', textContent: line }), traceEl(trace)];
// One line cut with an ellipsis, whole on hover.
const cut = (cls, text) => h('div', { className: `ln ${cls}`, textContent: text, title: text });

// Replaces a cell's content only when what it shows changed: refreshes
// never flicker, and focus and selections stay.
function setCell(td, key, build) {
	if (td.dataset.key === key)
		return;
	td.dataset.key = key;
	td.replaceChildren(...build().filter((k) => k !== null));
}
// What a cell shows, ages left out: render() brings them up to date in
// place, so an open stack trace stays open.
const keyOf = (kids) => kids.map((k) => k?.textContent?.replace(/\d+ \w+ ago|just now/g, '') ?? k).join('|');

// The job's checkpoints, newest first: the statistics' history, with what
// only the service's own ../triggers knows (the time the trigger was
// posted, so the wait for a runner apart from the run, and the trace).
function checkpoints(jid) {
	const byId = new Map();
	for (const c of state.stats.get(jid)?.data?.history ?? []) {
		const end = c.status === 'FAILED' ? c.failure_timestamp : c.latest_ack_timestamp;
		byId.set(c.id, { id: c.id, status: c.status, claim: c.trigger_timestamp, posted: -1,
			end: end > 0 ? end : -1, dur: c.end_to_end_duration, path: c.external_path,
			failure: c.failure_message, trace: null, sp: c.is_savepoint === true });
	}
	for (const t of state.waits.get(jid)?.data?.triggers ?? []) {
		if (t.checkpoint_id === null)
			continue;
		// Never claimed yet completed (no action to run): all of it
		// was waiting.
		const claim = t.claimed_ms ?? t.completed_ms ?? t.created_ms, failed = t.failure_class !== null;
		const c = byId.get(t.checkpoint_id) ?? { id: t.checkpoint_id,
			status: t.status === 'IN_PROGRESS' ? 'IN_PROGRESS' : failed ? 'FAILED' : 'COMPLETED',
			end: t.completed_ms ?? -1, path: t.location, failure: failed ? t.failure_trace : null };
		Object.assign(c, { posted: t.created_ms, claim, trace: t.failure_trace,
			dur: t.completed_ms ? t.completed_ms - claim : -1 });
		byId.set(c.id, c);
	}
	return [...byId.values()].sort((a, b) => b.id - a.id).map((c) => ({ ...c,
		wait: c.posted > 0 && c.claim > 0 ? c.claim - c.posted : -1 }));
}

const runnerAway = () => !state.runner?.passMs || Date.now() - state.runner.passMs > RUNNER_LATE_MS;
// Slots a job's schedules missed: fired late or not at all, never merged
// silently (checkpoint-runner(8)).
const missedLine = (job) => (job.missed > 0 ?
	h('div', { className: 'ln missed', textContent: `${job.missed} slot${job.missed > 1 ? 's' : ''} missed` }) : null);

// The job's health, worst first: { rank, key, text, why }.  The verdict
// is the server's (./fleet); the why is read from the job's own answers
// when the page has them.
const HEALTH = { failing: 'failing', norunner: 'waiting with no runner', stale: 'stale', ok: 'healthy',
	new: 'without a checkpoint', unknown: 'unknown', off: 'not running' };
const RANK = ['failing', 'norunner', 'stale', 'new', 'ok', 'off', 'unknown'];
function health(job) {
	const mk = (key, text, why = '', more = why) => ({ rank: RANK.indexOf(key), key, text, why, more });
	const key = job.health ?? 'unknown', d = state.stats.get(job.jid)?.data, w = state.waits.get(job.jid)?.data;
	if (key === 'off')
		return mk(key, job.state.toLowerCase());
	if (key === 'failing') {
		// The failed checkpoints listed since the last completed one
		// (a savepoint takes an id too); more may be gone when the
		// list does not reach back to it.
		const cps = checkpoints(job.jid), ok = d?.latest.completed?.id ?? 0;
		const streak = cps.filter((c) => c.status === 'FAILED' && c.id > ok).length + (cps.at(-1)?.id > ok + 1 ? '+' : '');
		return d ? mk(key, `failing ×${streak}`, `${streak} failed in a row`) : mk(key, 'failing');
	}
	if (key === 'norunner') {
		const since = w?.oldest_in_progress_ms ?? 0;
		return mk(key, 'no runner', `${job.queued} waiting` + (since ? ` ${fmtDuration(Date.now() - since)}` : ''));
	}
	if (key === 'stale') {
		const last = job.last_completed_ms, rule = w?.schedules?.find((x) => x.kind === 'CHECKPOINT')?.rule;
		return mk(key, 'stale', last ? `last done ${fmtAge(last)}` : 'none done yet',
			`none completed ${last ? `for ${fmtDuration(Date.now() - last)}` : 'yet'}, expected within ${fmtDuration(job.due_ms)}` +
			(staleParam ? ' (?stale=)' : rule ? ` (scheduled ${rule})` : ' (its schedule)'));
	}
	return key === 'new' ? mk(key, 'no checkpoint') : key === 'ok' ? mk(key, 'healthy') : mk(key, 'unknown', 'not read yet');
}
const mark = (hl) => h('span', { className: `mark h-${hl.key}`, textContent: hl.text });

function runnerLine() {
	const r = state.runner;
	if (!r)
		return ['Runner: …'];
	if (!r.passMs)
		return [h('b', { className: 'bad', textContent: 'Runner: no pass ever recorded' })];
	return [h('span', { className: runnerAway() ? 'bad' : '', textContent: `Runner: ${runnerAway() ? 'not at work, ' : ''}last pass ` }),
		timeEl(r.passMs, true)];
}

// The fleet in one line, the worst first, as the server summed it.
function renderSummary() {
	const f = state.fleet, n = f?.health ?? {};
	const bad = ['failing', 'norunner', 'stale'].filter((k) => n[k]).map((k) => `${n[k]} ${HEALTH[k]}`);
	const rest = ['ok', 'new', 'off'].filter((k) => n[k]).map((k) => `${n[k]} ${HEALTH[k]}`);
	const more = [f?.in_progress ? `${f.in_progress} in progress` : '',
		f?.missing_slots ? `${f.missing_slots} with missed slots` : ''].filter(Boolean);
	const sum = $('summary');
	sum.className = state.down || bad.length ? 'alarm' : 'fine';
	const text = state.down ? 'Service not answering: what follows was read before' : !f ? 'Reading…' :
		!f.jobs ? 'No job registered' : bad.length ? bad.join(', ') : 'Nothing failing, stale or waiting';
	const tail = (rest.length ? ` (${rest.join(', ')})` : '') + (more.length ? `; ${more.join(', ')}` : '');
	setCell(sum, text + tail + keyOf(runnerLine()), () => [h('b', { textContent: text }),
		!state.down ? tail : '', h('span', { className: 'sep' }), ...runnerLine()]);
}

function banner() {
	const b = $('banner'), err = state.down;
	document.body.classList.toggle('down', !!err);
	if (!err) {
		b.hidden = true;
		return;
	}
	const since = state.lastOk ? ` What is shown was read ${fmtAge(state.lastOk)} (${fmtTime(state.lastOk)}); the buttons wait for the service.` : '';
	b.textContent = err.status === 503 ?
		`The service is unavailable (503): ${err.message.replace(/^503 [^:]*: /, '')} Retrying every ${REFRESH_MS / 1000} s.${since}` :
		`Cannot read the jobs: ${err.message}. Retrying every ${REFRESH_MS / 1000} s.${since}`;
	b.hidden = false;
}

// Flink's in_progress counts claimed triggers only: what waits for a
// runner comes from the service's own ../triggers, and a queue that no
// runner takes is said plainly (a dead runner is no quiet job).
function inProgress(job) {
	const running = state.stats.get(job.jid)?.data?.counts.in_progress ?? 0, w = state.waits.get(job.jid);
	if (!w?.data)
		return [line('', running ? `${running} running` : 'none'), w?.error ? cut('muted', `queue unknown: ${w.error}`) : null];
	const n = w.data.in_progress;
	if (n === 0)
		return [line('', 'none')];
	const first = cut('', `${n} waiting ${fmtDuration(Date.now() - w.data.oldest_in_progress_ms)}`);
	if (n > running && health(job).key === 'norunner')
		return [first, line('bad', 'no runner at work')];
	return [first, line('muted', `${running} running, ${n - running} queued`)];
}

const traceEl = (trace) => (trace ?
	h('details', {}, h('summary', { textContent: 'Stack trace' }), h('pre', { textContent: trace })) : null);

// A wait for the runner under a second is not worth the room.
const took = (c) => `ran ${fmtDuration(c.dur)}${c.wait >= 1000 ? ` after waiting ${fmtDuration(c.wait)}` : ''}`;

function lastCompleted(d, c) {
	if (!d)
		return [line('muted', 'none yet')];
	const ran = took(c ?? { wait: -1, dur: d.end_to_end_duration });
	return [h('div', { className: 'ln', title: ran }, h('b', { textContent: `#${d.id} ` }), timeEl(d.latest_ack_timestamp), ` · ${ran}`),
		cut('loc', d.external_path ?? 'no location')];
}

function lastFailed(d, c) {
	if (!d)
		return [line('muted', 'none')];
	const why = c?.trace ?? d.failure_message;
	return [line('', h('b', { textContent: `#${d.id} ` }), timeEl(d.failure_timestamp)),
		cut('bad', `${d.is_savepoint ? 'Savepoint: ' : ''}${causeLine(why) || 'no message'}`), traceEl(c?.trace)];
}

// The outcome of the page's own trigger, kept in its row.
function showTrigger(jid) {
	const row = state.rows.get(jid), t = state.triggers.get(jid);
	if (!row)
		return;
	row.button.disabled = !!state.down || !!t?.busy;
	if (!t)
		return;
	row.out.className = t.cls ?? '';
	row.out.replaceChildren(t.text, traceEl(t.trace) ?? '');
}

// POSTs body to url as Flink's clients do, then follows what it started
// (status: its status path) to its end; t, the page's record of it, is
// shown by show at each step, and ok says a success.
async function act(t, show, url, body, status, ok) {
	const set = (u) => show(Object.assign(t, u));
	set({ busy: true });
	try {
		const r = await api(url, { method: 'POST', headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify(body) });
		const op = await follow(`${status}/${encodeURIComponent(r['request-id'])}`, (text) => set({ text }));
		const cause = op.failureCause ?? op['failure-cause'], trace = cause?.['stack-trace'] ?? '';
		set(cause ? { busy: false, cls: 'bad', trace, text: `Failed: ${causeLine(trace) || cause.class || 'unknown cause'}` } :
			{ busy: false, cls: 'ok', text: ok(op) });
	} catch (e) {
		set({ busy: false, cls: 'bad', text: `Not triggered: ${e.message}` });
	}
}

async function trigger(jid, type) {
	const t = { text: 'Triggering…' };
	state.triggers.set(jid, t);
	await act(t, () => showTrigger(jid), jobUrl(jid), { checkpointType: type, triggerId: null }, jobUrl(jid),
		(op) => `Checkpoint ${op.checkpointId} completed`);
	refreshStats([jid]).then(render);
}

// A savepoint into the job's own directory, or a stop with one (asked
// first: the job ends).
async function savepoint(jid, stop) {
	const job = state.jobs.find((j) => j.jid === jid);
	if (stop && !confirm(`Stop ${job?.name || jid} with a savepoint? The job ends.`))
		return;
	state.sp = { jid, text: stop ? 'Stopping…' : 'Taking a savepoint…' };
	await act(state.sp, () => renderSavepoints(jid), `../jobs/${encodeURIComponent(jid)}/${stop ? 'stop' : 'savepoints'}`,
		{ triggerId: null }, savepointsUrl(jid), (op) => `${stop ? 'Stopped; savepoint' : 'Savepoint'} at ${op.location}`);
	refreshSavepoints(jid).then(render);
}

async function refreshSavepoints(jid) {
	try {
		state.savepoints.set(jid, { data: await api(savepointsUrl(jid)) });
	} catch (e) {
		state.savepoints.set(jid, { error: e.message });
	}
}

function savepointRow(e) {
	const cls = e.status === 'COMPLETED' ? (e.failure_class ? 'bad' : 'ok') : '';
	const what = e.failure_class ? failEl(causeLine(e.failure_trace ?? '') || e.failure_class, e.failure_trace) :
		[cut('loc', (e.location ?? '') + (e.disposed_ms ? ' (disposed)' : ''))];
	return h('tr', {}, td('Id', e.checkpoint_id ? `#${e.checkpoint_id}` : ''),
		td('Kind', e.kind === 'STOP' ? 'stop' : 'savepoint'),
		td('Status', h('span', { className: cls, textContent: e.failure_class ? 'FAILED' : e.status })),
		td('Asked', timeEl(e.created_ms, true)), td('By', [e.remote_user, e.remote_addr].filter(Boolean).join('@')),
		td(e.failure_class ? 'Failure' : 'Location', ...what));
}

function renderSavepoints(jid) {
	const job = state.jobs.find((j) => j.jid === jid), sp = state.sp?.jid === jid ? state.sp : null;
	const up = job?.state === 'RUNNING', s = state.savepoints.get(jid), list = s?.data?.savepoints ?? [];
	$('sp-controls').hidden = !up && !sp;
	$('sp-take').disabled = $('sp-stop').disabled = !!state.down || !!sp?.busy || !up;
	$('sp-out').className = sp?.cls ?? '';
	$('sp-out').replaceChildren(sp?.text ?? '', traceEl(sp?.trace) ?? '');
	$('sp-none').textContent = s?.error ?? (list.length ? '' : 'None.');
	const sig = JSON.stringify(list), t = $('savepoints');
	if (t.dataset.sig !== sig)
		t.tBodies[0].replaceChildren(...list.map(savepointRow));
	t.dataset.sig = sig;
	t.hidden = !list.length;
}

function makeRow(job) {
	const cells = ['Health', 'Job', 'Last completed', 'Last failure', 'In progress', 'Trigger']
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

function rowOf(job) {
	let row = state.rows.get(job.jid);
	if (!row) {
		row = makeRow(job);
		state.rows.set(job.jid, row);
	}
	row.controls.hidden = job.state !== 'RUNNING';
	showTrigger(job.jid);
	return row;
}

// A job id whole, and a button that copies it (the clipboard needs a
// secure context: elsewhere the id is selected for Ctrl-C).
function copyEl(jid) {
	const id = h('span', { className: 'mono jid', textContent: jid, title: jid });
	const b = h('button', { type: 'button', className: 'copy', textContent: 'Copy id', title: `Copy ${jid}` });
	b.addEventListener('click', async () => {
		try {
			await navigator.clipboard.writeText(jid);
			b.textContent = 'Copied';
		} catch {
			getSelection().selectAllChildren(id);
			document.execCommand?.('copy');
			b.textContent = 'Selected';
		}
		setTimeout(() => (b.textContent = 'Copy id'), 2000);
	});
	return h('div', { className: 'idline' }, id, b);
}

function renderList() {
	const f = state.fleet, shown = state.jobs, pages = f ? Math.max(1, Math.ceil(f.matched / PAGE_ROWS)) : 1;
	$('count').textContent = !f ? '' : f.matched === f.jobs ? `${f.jobs} jobs` : `${f.matched} of ${f.jobs} jobs`;
	$('page').textContent = `page ${state.page + 1} of ${pages}`;
	$('prev').disabled = state.page === 0;
	$('next').disabled = !f?.next;
	$('empty').hidden = !f || f.jobs > 0;
	const trs = [];
	for (const job of shown) {
		const row = rowOf(job);
		const [cHealth, cName, cDone, cFail, cProg, cTrig] = row.cells;
		if (row.controls.parentNode !== cTrig)
			cTrig.append(row.controls); // back from the job's view
		const hl = health(job);
		row.tr.className = `r-${hl.key}`;
		setCell(cHealth, hl.text + hl.why + hl.more + job.missed, () => [line('', mark(hl)),
			hl.why ? h('div', { className: 'ln why', textContent: hl.why, title: hl.more }) : null, missedLine(job)]);
		setCell(cName, job.name + job.jid, () => [
			line('', h('a', { href: `#job/${job.jid}`, textContent: job.name || job.jid, title: job.name })),
			copyEl(job.jid)]);
		const s = state.stats.get(job.jid);
		if (s?.error) {
			for (const c of [cDone, cFail, cProg])
				setCell(c, 'e' + s.error, () => [cut('muted', s.error)]);
		} else if (s) {
			const d = s.data, cps = checkpoints(job.jid), find = (x) => x && cps.find((c) => c.id === x.id);
			const done = lastCompleted(d.latest.completed, find(d.latest.completed));
			setCell(cDone, keyOf(done), () => done);
			const fail = lastFailed(d.latest.failed, find(d.latest.failed));
			setCell(cFail, keyOf(fail), () => fail);
			const p = inProgress(job);
			setCell(cProg, keyOf(p), () => p);
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

function historyRow(c) {
	const cls = c.status === 'COMPLETED' ? 'ok' : c.status === 'FAILED' ? 'bad' : '';
	const what = c.status === 'FAILED' ?
		failEl(`${c.sp ? 'Savepoint: ' : ''}${causeLine(c.trace ?? c.failure) || 'no message'}`, c.trace ?? c.failure) :
		[cut('loc', c.path ?? '')];
	// A savepoint takes an id as a checkpoint does: said, never mixed in.
	return h('tr', { className: c.sp ? 'sp' : '' }, td('Id', `#${c.id}${c.sp ? ' savepoint' : ''}`), td('Status', h('span', { className: cls, textContent: c.status })),
		td('Triggered', timeEl(c.posted > 0 ? c.posted : c.claim, true)),
		td('Waited', c.wait >= 0 ? fmtDuration(c.wait) : 'n/a'), td('Ran', fmtDuration(c.dur)),
		td(c.status === 'FAILED' ? 'Failure' : 'Location', ...what));
}

function renderJob(jid) {
	const job = state.jobs.find((j) => j.jid === jid);
	renderSavepoints(jid);
	if (job) {
		const row = rowOf(job);
		if (row.controls.parentNode !== $('job-trigger'))
			$('job-trigger').replaceChildren(row.controls);
		$('job-h').replaceChildren(`${job.name} (${job.state}) `, mark(health(job)));
	} else
		$('job-h').textContent = jid;
	const s = state.stats.get(jid);
	if (!s || s.error) {
		$('job-sub').textContent = s ? `${jid}: ${s.error}` : jid;
		return;
	}
	const sch = state.waits.get(jid)?.data?.schedules ?? [];
	$('job-sched').textContent = sch.length ? 'Scheduled: ' + sch.map((x) => `${x.kind === 'SAVEPOINT' ? 'savepoints' : 'checkpoints'} ` +
		`${x.rule}${x.next_slot_ms ? `, next ${fmtTime(x.next_slot_ms)}` : ''}${x.missed ? `, ${x.missed} slots missed` : ''}`).join('; ') : '';
	const cps = checkpoints(jid), c = s.data.counts, e = s.data.summary.end_to_end_duration;
	const wait = job ? keyOf(inProgress(job)).replace('|', ': ') : '';
	$('job-sub').textContent = `${jid}: ${c.completed} completed, ${c.failed} failed, ${cps.length} in the history; in progress: ${wait}`;
	$('job-sum').textContent = typeof e.p50 === 'number' ?
		`Run time of the completed kept: median ${fmtDuration(e.p50)}, p99 ${fmtDuration(e.p99)}; of all ${c.completed} completed: max ${fmtDuration(e.max)}` : '';
	const sig = `${cps.length}:${state.historyShown}:${keyOf(cps.slice(0, 3).map((x) => JSON.stringify(x)))}:${cps.at(-1)?.id}`;
	if (sig === state.historySig)
		return;
	state.historySig = sig;
	const oldest = cps.at(-1);
	$('chart-cap').textContent = `Run time of the ${cps.length} newest checkpoints against the time each ended` +
		(oldest ? ` (since ${fmtTime(oldest.claim)})` : '') + '; failures marked ×, savepoints ◆. Point at it, or focus it and use the arrow keys.' +
		(c.completed + c.failed > cps.length ? ` Older ones are not listed: the page reads ${KEPT} at most, of those CHECKPOINT_HISTORY_KEEP and CHECKPOINT_HISTORY_AGE keep.` : '');
	drawChart($('chart'), $('chart-tip'), cps);
	$('history').tBodies[0].replaceChildren(...cps.slice(0, state.historyShown).map(historyRow));
	$('more').hidden = cps.length <= state.historyShown;
	if (cps.length > state.historyShown)
		$('more').textContent = `Show ${Math.min(HISTORY_STEP, cps.length - state.historyShown)} more of ${cps.length}`;
}

const selected = () => (location.hash.startsWith('#job/') ? decodeURIComponent(location.hash.slice(5)) : null);

function render() {
	const jid = selected();
	$('list').hidden = jid !== null;
	$('job').hidden = jid === null;
	banner();
	renderSummary();
	if (jid)
		renderJob(jid);
	else
		renderList();
	for (const jid of state.rows.keys())
		showTrigger(jid);
	document.querySelectorAll('time[data-ms]').forEach(ageTick);
	if (state.lastOk)
		$('updated').textContent = `Updated ${fmtTime(state.lastOk)}`;
}

async function refreshStats(jids) {
	let next = 0;
	const one = async () => {
		while (next < jids.length) {
			const jid = jids[next++];
			const [st, tr] = await Promise.allSettled([api(jobUrl(jid)),
				api(triggersUrl(jid) + (jid === selected() ? `?limit=${KEPT}` : ''))]);
			state.stats.set(jid, st.status === 'fulfilled' ? { data: st.value } : { error: st.reason.message });
			state.waits.set(jid, tr.status === 'fulfilled' ? { data: tr.value } : { error: tr.reason.message });
		}
	};
	await Promise.all(Array.from({ length: Math.min(FETCHES, jids.length) }, one));
}

// ./fleet's page: the list's, or the one job of the job's view.
function fleetUrl() {
	const jid = selected(), p = new URLSearchParams({ limit: jid ? 1 : PAGE_ROWS });
	if (jid) {
		p.set('order', 'id');
		p.set('q', jid);
	} else {
		p.set('order', $('sort').value);
		if ($('filter').value.trim())
			p.set('q', $('filter').value.trim());
		if (state.cursors[state.page])
			p.set('after', state.cursors[state.page]);
	}
	if (staleParam)
		p.set('stale', staleParam);
	return `fleet?${p}`;
}

// One request for the fleet's health and the page's jobs, then each
// shown job's statistics and triggers: the same number of requests for
// fifty jobs or a hundred thousand.
async function load() {
	const f = await api(fleetUrl());
	state.fleet = f;
	state.jobs = f.page;
	state.runner = { passMs: f.runner_last_pass_ms };
	state.cursors[state.page + 1] = f.next;
	const jid = selected();
	if (!state.lastOk)
		render();
	await Promise.all([refreshStats(state.jobs.map((j) => j.jid)), jid ? refreshSavepoints(jid) : null]);
}

async function refresh() {
	try {
		await load();
		state.lastOk = Date.now();
		state.down = null;
	} catch (e) {
		state.down = e;
	}
	render();
	setTimeout(refresh, REFRESH_MS);
}

// What comes on screen is read at once.
let typing = 0;
const redraw = (keep) => {
	if (!keep) {
		state.page = 0;
		state.cursors = [null];
	}
	clearTimeout(typing);
	typing = setTimeout(() => load().then(render, (e) => {
		state.down = e;
		render();
	}), 150);
};
$('filter').addEventListener('input', () => redraw());
$('sort').addEventListener('change', () => redraw());
for (const [id, d] of [['prev', -1], ['next', 1]])
	$(id).addEventListener('click', () => {
		state.page += d;
		redraw(true);
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
	redraw(true);
});
$('sp-take').addEventListener('click', () => savepoint(selected(), false));
$('sp-stop').addEventListener('click', () => savepoint(selected(), true));
refresh();
