// The page (/ui/) in Debian's Chromium, driven by playwright-core: prints
// one TAP line per check ("ok - ..." or "not ok - ..."), which
// tests/t3800-ui-browser.sh numbers.  The number of checks is fixed
// (CHECKS, which the shell test knows too, to skip them all when Chromium
// is missing).  Settings come from the environment (see the shell test).
import { chromium } from 'playwright-core';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

export const CHECKS = 38;
const env = (k) => {
	if (!process.env[k])
		throw new Error(`${k} is not set`);
	return process.env[k];
};
const BASE = env('UI_BASE'), PREFIXED = env('UI_PREFIX_BASE');
const JUNK_BASE = env('UI_JUNK_BASE'), JUNK_DIR = env('UI_JUNK_DIR');
const OK_JOB = env('UI_OK_JOB'), FAIL_JOB = env('UI_FAIL_JOB'), BIG_JOB = env('UI_BIG_JOB');
const SLOW_JOB = env('UI_SLOW_JOB'), QUEUE_JOB = env('UI_QUEUE_JOB');
const RUNNER_PID = Number(env('UI_RUNNER_PID'));
const OUT = env('UI_OUT'), JOBS = Number(env('UI_JOBS')), DB = env('UI_DB');
const FLEET_BASE = env('UI_FLEET_BASE'), FLEET_DB = env('UI_FLEET_DB'), RUNNER = env('UI_RUNNER');
const LONG_BASE = env('UI_LONG_BASE'), LONG_JOB = env('UI_LONG_JOB');
const FLEET = (i) => `00000000000000000000000000f1ee${String(i).padStart(2, '0')}`;
// The page's one request for the fleet (GET ui/fleet?...), any query.
const FLEET_URL = (u) => u.pathname.endsWith('/ui/fleet');
const sql = (db, q) => execFileSync('sqlite3', [db, q], { encoding: 'utf8' });

let n = 0;
function check(ok, desc, diag) {
	n++;
	console.log(`${ok ? 'ok' : 'not ok'} - ${desc}`);
	if (!ok && diag)
		console.log(String(diag).split('\n').map((l) => `#   ${l}`).join('\n'));
}
// Runs one check's body; a throw (a timeout) fails it with the message.
async function step(desc, fn) {
	try {
		const r = await fn();
		check(r === undefined || r === true, desc, r);
	} catch (e) {
		check(false, desc, e.message);
	}
}

const browser = await chromium.launch({
	executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
	args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
		'--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
	const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
	const page = await ctx.newPage();
	const errors = [];
	page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
	page.on('pageerror', (e) => errors.push(e.message));
	const row = (jid) => page.locator(`tr[data-jid="${jid}"]`);

	// --- The fleet (tests/ui-fleet.sh): 12 jobs, each health shown. -------
	const fp = await ctx.newPage();
	const ferrs = [];
	fp.on('pageerror', (e) => ferrs.push(e.message));
	const frow = (i) => fp.locator(`tr[data-jid="${FLEET(i)}"]`);
	const markOf = async (i) => (await frow(i).locator('.mark').textContent());
	// Each row's top, height, health and name; and what the eye sees first.
	const layout = () => fp.evaluate(() => [...document.querySelectorAll('#jobs tbody tr')].map((r) => ({
		top: r.getBoundingClientRect().top, bottom: r.getBoundingClientRect().bottom,
		mark: r.querySelector('.mark').textContent, bg: getComputedStyle(r.querySelector('.mark')).backgroundColor,
		name: r.cells[1].querySelector('a').textContent })));
	const red = (bg) => /^rgb\((1[5-9]\d|2\d\d), ([0-5]?\d), ([0-5]?\d)\)$/.test(bg);
	await step('fleet: the summary at the top says what is wrong, the runner not at work', async () => {
		sql(FLEET_DB, `UPDATE service_metrics SET pass_ms = ${Date.now() - 600000}`);
		await fp.goto(`${FLEET_BASE}/ui/`);
		await fp.locator('#updated', { hasText: 'Updated' }).waitFor();
		const sum = await fp.textContent('#summary');
		const box = await fp.locator('#summary').boundingBox();
		await fp.screenshot({ path: `${OUT}/ui-fleet.png` });
		return (/^2 failing, 1 waiting with no runner, 1 stale \(6 healthy, 1 without a checkpoint, 1 not running\)/.test(sum) &&
			/Runner: not at work, last pass (\w{3} \d{1,2}, )?\d\d:\d\d:\d\d.* \(10 min ago\)/.test(sum) && box.y < 120) ||
			`${sum} at ${box.y}`;
	});
	await step('fleet: the unhealthy first, each marked in colour and in words; at least 10 rows on a 1280x900 screen', async () => {
		const rows = await layout();
		const order = rows.map((r) => `${r.mark}:${r.name}`).join(' ');
		const want = /^failing ×5:ledger failing ×11:payments no runner:queued stale:reports no checkpoint:fresh (healthy:\S+ ){6}suspended:archive$/;
		const onScreen = rows.filter((r) => r.bottom <= 900).length;
		const colours = red(rows[0].bg) && red(rows[2].bg) && !red(rows[5].bg) && rows[3].bg !== rows[5].bg;
		return (want.test(order) && onScreen >= 10 && colours) || `${order} / ${onScreen} on screen / ${rows.map((r) => r.bg)}`;
	});
	await step('fleet: a failing streak (11 of 11; 5 expired after two savepoints, which are no failures) and a stale job say why', async () => {
		const why = async (i) => (await frow(i).locator('.why').textContent());
		const got = [await why(6), await why(7), await why(8), await frow(8).locator('.why').getAttribute('title')];
		return (got[0] === '11 failed in a row' && got[1] === '5 failed in a row' && /^last done 3\d min ago$/.test(got[2]) &&
			/expected within 6 min (0 s )?\(scheduled every 2m\)/.test(got[3])) || got.join(' / ');
	});
	await step('fleet: "stale" only for a job that has a schedule: without one, 30 min since its last checkpoint is healthy', async () => {
		const row = sql(FLEET_DB, `SELECT every_ms, since_ms, last_slot_ms FROM schedules WHERE job_id = '${FLEET(8)}'`).trim();
		sql(FLEET_DB, `DELETE FROM schedules WHERE job_id = '${FLEET(8)}'`);
		await fp.reload();
		await fp.locator('#summary', { hasText: /^2 failing, 1 waiting with no runner \(7 healthy/ }).waitFor({ timeout: 15000 });
		const mark = await markOf(8);
		const [every, since, slot] = row.split('|');
		sql(FLEET_DB, `INSERT INTO schedules (job_id, kind, every_ms, since_ms, last_slot_ms, set_by)
			VALUES ('${FLEET(8)}', 'CHECKPOINT', ${every}, ${since}, ${slot}, 'root')`);
		await fp.reload();
		await fp.locator('#summary', { hasText: /^2 failing, 1 waiting with no runner, 1 stale/ }).waitFor({ timeout: 15000 });
		return mark === 'healthy' || mark;
	});
	await step('fleet: long paths and names cut with an ellipsis on one line, whole on hover, never broken', async () => {
		// The summary shows first; the rows' cells once their jobs are read.
		await fp.locator('#updated', { hasText: 'Updated' }).waitFor();
		const cuts = await fp.evaluate(() => [...document.querySelectorAll('#jobs .loc, #jobs .mono')].map((e) => ({
			one: e.getBoundingClientRect().height < 1.6 * parseFloat(getComputedStyle(e).lineHeight || '20') + 1,
			cut: e.scrollWidth > e.clientWidth, whole: e.title === e.textContent })));
		const bad = cuts.filter((c) => !c.one || !c.whole);
		return (cuts.length >= 20 && bad.length === 0 && cuts.some((c) => c.cut)) || JSON.stringify(bad.slice(0, 3));
	});
	await step('fleet: a multi-line failure leads with its cause (the last line of a Python traceback, then its exit status), the whole trace on demand', async () => {
		const cell = frow(6).locator('td').nth(3);
		const cause = await cell.locator('.bad').textContent();
		const pre = cell.locator('pre');
		const hidden = !(await pre.isVisible());
		await cell.locator('summary').click();
		const trace = await pre.textContent();
		await fp.screenshot({ path: `${OUT}/ui-fleet-trace.png` });
		await cell.locator('summary').click();
		return (cause === "OSError: [Errno 122] Disk quota exceeded: '/var/lib/ckpt/payments' (exited with status 1)" && hidden &&
			trace.includes('Traceback (most recent call last):') && trace.includes('main()')) || `${cause} / ${hidden} / ${trace}`;
	});
	await step('fleet: under a cron runner (its last pass 20 s ago) a trigger waiting over a minute is no alarm', async () => {
		sql(FLEET_DB, `UPDATE service_metrics SET pass_ms = ${Date.now() - 20000}`);
		await fp.locator('#summary', { hasText: /^2 failing, 1 stale/ }).waitFor({ timeout: 12000 });
		const sum = await fp.textContent('#summary');
		const cell = await frow(9).locator('td').nth(4).textContent();
		const bad = await frow(9).locator('.bad').count();
		await fp.screenshot({ path: `${OUT}/ui-fleet-cron.png` });
		return (await markOf(9) === 'healthy' && bad === 0 && /^1 waiting \d+ min \d+ s0 running, 1 queued$/.test(cell) &&
			/Runner: last pass .*\((2\d|1\d) s ago\)/.test(sum)) || `${await markOf(9)} / ${cell} / ${sum}`;
	});
	await step('fleet: the job\'s history: queue wait apart from run time, times with their zone and age, p50/p99/max', async () => {
		await fp.goto(`${FLEET_BASE}/ui/#job/${FLEET(10)}`);
		const first = fp.locator('#history tbody tr').first();
		await first.waitFor();
		const cells = await first.locator('td').allTextContents();
		const sum = await fp.textContent('#job-sum');
		// The quantiles run over the checkpoints kept, the maximum over
		// every one completed.
		return (cells[0] === '#10' && cells[3] === '1 min 16 s' && cells[4] === '249 ms' &&
			// A time of another day (the run crossed midnight) has its date.
			/^(\w{3} \d{1,2}, )?\d\d:\d\d:\d\d( [AP]M)? [A-Z][\w+:-]* \(\d+ min ago\)$/.test(cells[2]) &&
			/^Run time of the completed kept: median \d+ ms, p99 249 ms; of all 10 completed: max 249 ms$/.test(sum)) ||
			`${cells.join(' | ')} / ${sum}`;
	});
	await step('fleet: the chart has time on its axis and reads out each point (id, run time, wait, time) by mouse and keyboard', async () => {
		const ticks = await fp.locator('#chart text').allTextContents();
		await fp.mouse.move(0, 0); // a scroll under the mouse would move the read-out
		await fp.focus('#chart');
		await fp.keyboard.press('End');
		const last = await fp.textContent('#chart-tip');
		await fp.keyboard.press('Home');
		const firstTip = await fp.textContent('#chart-tip');
		const box = await fp.locator('#chart').boundingBox();
		await fp.mouse.move(box.x + box.width - 12, box.y + 20);
		const hover = await fp.textContent('#chart-tip');
		await fp.screenshot({ path: `${OUT}/ui-fleet-chart.png` });
		// The slowest sets the scale: a spike reaches the top.
		return (ticks.filter((t) => /^\d\d:\d\d/.test(t)).length === 3 && ticks[0] === '249 ms' &&
			/^#10 completed in 249 ms after 1 min 16 s waiting for a runner, ended \d\d:\d\d:\d\d/.test(last) &&
			/^#1 completed in 70 ms/.test(firstTip) && hover === last) || `${ticks} / ${last} / ${firstTip} / ${hover}`;
	});
	await step('fleet: savepoints are marked as such in a job\'s history, never mixed in as checkpoints', async () => {
		await fp.goto(`${FLEET_BASE}/ui/#job/${FLEET(7)}`);
		const ids = fp.locator('#history tbody tr td:first-child');
		await ids.first().waitFor();
		const texts = await ids.allTextContents();
		return (texts.includes('#12 savepoint') && texts.includes('#11 savepoint') && texts.includes('#13') &&
			texts.filter((t) => t.includes('savepoint')).length === 2) || texts.join(',');
	});
	await step('fleet: the button on a failing Python action shows the traceback\'s last line and the exit status, the whole on demand', async () => {
		await fp.goto(`${FLEET_BASE}/ui/`);
		await fp.locator('#updated', { hasText: 'Updated' }).waitFor();
		const r = frow(6);
		await r.getByRole('button', { name: 'Trigger checkpoint' }).click();
		await r.locator('output', { hasText: 'In progress' }).waitFor({ timeout: 10000 });
		// One pass, as cron runs it.
		execFileSync(RUNNER, [], { env: { ...process.env, CHECKPOINT_DB: FLEET_DB }, stdio: 'ignore' });
		const out = r.locator('output');
		await out.filter({ hasText: 'Failed:' }).waitFor({ timeout: 15000 });
		const text = await out.evaluate((e) => e.firstChild.textContent);
		await out.locator('summary').click();
		const trace = await out.locator('pre').textContent();
		return (text === 'Failed: OSError: [Errno 122] Disk quota exceeded (exited with status 1)' && trace.includes('Traceback (most recent call last):') &&
			trace.includes('Checkpoint was declined.')) || `${text} / ${trace}`;
	});
	await step('fleet: a 502 from the proxy (an HTML page): a banner, never the HTML, the table dimmed, its buttons disabled', async () => {
		await fp.goto(`${FLEET_BASE}/ui/`);
		await fp.locator('#updated', { hasText: 'Updated' }).waitFor();
		await fp.route(FLEET_URL, (r) => r.fulfill({ status: 502, contentType: 'text/html', headers: { server: 'nginx' },
			body: '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n' }));
		try {
			const b = fp.locator('#banner');
			await b.waitFor({ timeout: 12000 });
			const text = await b.textContent();
			const enabled = await fp.locator('#jobs button:enabled', { hasText: 'Trigger checkpoint' }).count();
			const all = await fp.locator('#jobs button', { hasText: 'Trigger checkpoint' }).count();
			const dim = await fp.evaluate(() => getComputedStyle(document.querySelector('#jobs tbody')).opacity);
			const sum = await fp.textContent('#summary');
			const top = (await b.boundingBox()).y;
			await fp.screenshot({ path: `${OUT}/ui-fleet-502.png` });
			await fp.setViewportSize({ width: 390, height: 800 });
			await fp.screenshot({ path: `${OUT}/ui-fleet-502-phone.png` });
			const phoneTop = (await b.boundingBox()).y;
			await fp.setViewportSize({ width: 1280, height: 900 });
			return (/^Cannot read the jobs: 502 Bad Gateway from nginx, not the service's JSON \(text\/html\)/.test(text) &&
				!/<|center/.test(text) && /read \d+ s ago/.test(text) && all >= 10 && enabled === 0 && Number(dim) < 1 &&
				sum.startsWith('Service not answering') && top < 120 && phoneTop < 260) ||
				`${text} / ${enabled} of ${all} enabled / opacity ${dim} / ${sum} / ${top} ${phoneTop}`;
		} finally {
			await fp.unroute(FLEET_URL);
		}
	});
	await step('fleet: once the service answers again, the banner goes and the buttons work', async () => {
		await fp.locator('#banner').waitFor({ state: 'hidden', timeout: 12000 });
		const enabled = await fp.locator('#jobs button:enabled', { hasText: 'Trigger checkpoint' }).count();
		return enabled >= 10 || `${enabled} enabled`;
	});
	await step('fleet at phone width (390 px): health first, nothing overflows sideways', async () => {
		await fp.setViewportSize({ width: 390, height: 800 });
		await fp.waitForTimeout(300);
		await fp.screenshot({ path: `${OUT}/ui-fleet-phone.png` });
		const w = await fp.evaluate(() => document.documentElement.scrollWidth);
		const rows = await layout();
		const sum = await fp.locator('#summary').boundingBox();
		return (w <= 390 && rows[0].mark === 'failing ×5' && rows[0].top < 800 && sum.y < 100 && ferrs.length === 0) ||
			`scrollWidth ${w}, first ${rows[0].mark} at ${rows[0].top}, summary at ${sum.y}, ${ferrs}`;
	});
	await step('fleet, all well (the failing and stale suspended): the summary says so in green, at 1280x900 and 390 px', async () => {
		sql(FLEET_DB, `UPDATE jobs SET state = 'SUSPENDED' WHERE job_id IN ('${FLEET(6)}', '${FLEET(7)}', '${FLEET(8)}');
			UPDATE service_metrics SET pass_ms = ${Date.now() - 5000}`);
		const sum = fp.locator('#summary', { hasText: /^Nothing failing, stale or waiting/ });
		await sum.waitFor({ timeout: 12000 });
		await fp.screenshot({ path: `${OUT}/ui-fleet-healthy-phone.png` });
		const phoneW = await fp.evaluate(() => document.documentElement.scrollWidth);
		await fp.setViewportSize({ width: 1280, height: 900 });
		await fp.waitForTimeout(300);
		await fp.screenshot({ path: `${OUT}/ui-fleet-healthy.png` });
		const text = await sum.textContent();
		const colour = await fp.evaluate(() => getComputedStyle(document.querySelector('#summary b')).color);
		const rows = await layout();
		const marks = rows.map((r) => r.mark).join();
		return (/^Nothing failing, stale or waiting \(7 healthy, 1 without a checkpoint, 4 not running\)Runner: last pass .*\(\d+ s ago\)$/.test(text) &&
			colour === 'rgb(27, 110, 32)' && !/failing|stale|no runner/.test(marks) && phoneW <= 390) ||
			`${text} / ${colour} / ${marks} / ${phoneW}`;
	});
	await fp.close();


	await step(`the page lists the jobs (${JOBS}), 50 a page`, async () => {
		const t0 = Date.now();
		await page.goto(`${BASE}/ui/`);
		// "Updated" once the overview and the page's statistics are in.
		await page.locator('#updated', { hasText: 'Updated' }).waitFor();
		console.log(`# the page, ${JOBS} jobs, listed with their checkpoints in ${Date.now() - t0} ms`);
		const count = await page.textContent('#count');
		const rows = await page.locator('#jobs tbody tr').count();
		return (count === `${JOBS} jobs` && rows === Math.min(50, JOBS)) || `count "${count}", ${rows} rows`;
	});
	await step('the filter finds a job among them', async () => {
		await page.fill('#filter', 'orders');
		await row(OK_JOB).waitFor();
		return (await page.locator('#jobs tbody tr').count()) === 1 || 'not one row';
	});
	await step('keyboard: Tab from the filter reaches the Trigger checkpoint button', async () => {
		await page.focus('#filter');
		for (let i = 0; i < 10; i++) {
			await page.keyboard.press('Tab');
			if ((await page.evaluate(() => document.activeElement.textContent)) === 'Trigger checkpoint')
				return true;
		}
		return 'not reached in 10 Tabs';
	});
	let id = '';
	await step('the button triggers a checkpoint that the runner completes; the page shows its id', async () => {
		await page.keyboard.press('Enter'); // the focused button, by keyboard
		const out = row(OK_JOB).locator('output');
		await out.filter({ hasText: /Checkpoint \d+ completed/ }).waitFor({ timeout: 20000 });
		id = (await out.textContent()).match(/Checkpoint (\d+)/)[1];
		writeFileSync(`${OUT}/checkpoint-id`, id);
	});
	await step('the job\'s last completed checkpoint shows that id, its location, local time with UTC on hover', async () => {
		const cell = row(OK_JOB).locator('td').nth(2);
		await cell.filter({ hasText: `#${id} ` }).waitFor({ timeout: 15000 });
		const title = await cell.locator('time').getAttribute('title');
		const text = await cell.textContent();
		return (/ UTC$/.test(title) && text.includes(`file:/ckpt/${OK_JOB}/chk-${id}`)) || `${text} / ${title}`;
	});
	let spId = 0; // the savepoint's id, from the job's checkpoint sequence
	await step('the job\'s view: its schedule; Take savepoint POSTs, the runner completes it, its location listed', async () => {
		await page.goto(`${BASE}/ui/#job/${OK_JOB}`);
		await page.locator('#job-sched', { hasText: 'Scheduled' }).waitFor({ timeout: 10000 });
		const sched = await page.textContent('#job-sched');
		await page.click('#sp-take');
		const out = page.locator('#sp-out');
		await out.filter({ hasText: /^Savepoint at file:\/sp\/sp-\d+$/ }).waitFor({ timeout: 20000 });
		const where = (await out.textContent()).slice('Savepoint at '.length);
		const first = page.locator('#savepoints tbody tr').first();
		await first.filter({ hasText: where }).waitFor({ timeout: 10000 });
		const cells = await first.textContent();
		spId = Number(where.match(/sp-(\d+)$/)[1]);
		const rows = sql(DB, `SELECT kind, location FROM savepoints WHERE job_id = '${OK_JOB}'`).trim();
		return (/^Scheduled: checkpoints every 1h, next .*\d\d:\d\d:\d\d/.test(sched) && cells.includes('savepoint') &&
			cells.includes('COMPLETED') && rows === `SAVEPOINT|${where}`) || `${sched} / ${cells} / ${rows}`;
	});
	await step('Stop with savepoint asks first; dismissed, nothing is asked of the service', async () => {
		let asked = '';
		page.once('dialog', (d) => {
			asked = d.message();
			d.dismiss();
		});
		await page.click('#sp-stop');
		await page.waitForTimeout(500);
		const stops = sql(DB, 'SELECT count(*) FROM savepoints WHERE kind = \'STOP\'').trim();
		const busy = await page.locator('#sp-take').isDisabled();
		await page.goto(`${BASE}/ui/`);
		await page.locator('#updated', { hasText: 'Updated' }).waitFor();
		return (asked.startsWith('Stop orders with a savepoint?') && stops === '0' && !busy) ||
			`"${asked}", ${stops} stops, buttons busy ${busy}`;
	});
	await step('a failing job\'s trigger shows its stderr and exit status, not Flink\'s words, and, on demand, its stack trace', async () => {
		await page.fill('#filter', FAIL_JOB);
		await row(FAIL_JOB).getByRole('button', { name: 'Trigger checkpoint' }).click();
		const out = row(FAIL_JOB).locator('output');
		await out.filter({ hasText: 'Failed:' }).waitFor({ timeout: 20000 });
		const text = await out.evaluate((e) => e.firstChild.textContent);
		const pre = out.locator('pre');
		const hidden = !(await pre.isVisible());
		await out.locator('summary').click();
		const trace = await pre.textContent();
		return (text === 'Failed: disk quota exceeded (exited with status 1)' && hidden && trace.includes('Checkpoint was declined.')) ||
			`${text} / hidden ${hidden} / ${trace}`;
	});
	await step('the failing job\'s row shows its last failure', async () => {
		const cell = row(FAIL_JOB).locator('td').nth(3);
		await cell.filter({ hasText: 'disk quota exceeded (exited with status 1)' }).waitFor({ timeout: 15000 });
	});
	await step('a trigger in progress (posted by curl\'s way, no Origin) shows with the age of the oldest', async () => {
		const r = await fetch(`${BASE}/jobs/${SLOW_JOB}/checkpoints`, { method: 'POST',
			headers: { 'Content-Type': 'application/json' }, body: '{"checkpointType":"FULL","triggerId":null}' });
		if (r.status !== 202)
			return `POST: ${r.status}`;
		await page.fill('#filter', 'slow');
		const cell = row(SLOW_JOB).locator('td').nth(4);
		await cell.filter({ hasText: /^1 waiting \d.*1 running, 0 queued$/ }).waitFor({ timeout: 8000 });
		await cell.filter({ hasText: /^none$/ }).waitFor({ timeout: 20000 });
	});
	await step('a failed checkpoint\'s stack trace opens from the last failure and from the history', async () => {
		await page.fill('#filter', FAIL_JOB);
		const cell = row(FAIL_JOB).locator('td').nth(3);
		await cell.locator('summary', { hasText: 'Stack trace' }).waitFor({ timeout: 15000 });
		const pre = cell.locator('pre');
		const hidden = !(await pre.isVisible());
		await cell.locator('summary').click();
		const trace = await pre.textContent();
		await page.waitForTimeout(5500); // a refresh keeps it open
		const open = await pre.isVisible();
		await row(FAIL_JOB).locator('a').click();
		const hrow = page.locator('#history tbody tr').first();
		await hrow.locator('summary', { hasText: 'Stack trace' }).click();
		const htrace = await hrow.locator('pre').textContent();
		await page.goBack();
		return (hidden && open && trace.includes('disk quota exceeded') && trace.includes('\tat ') &&
			htrace === trace) || `hidden ${hidden}, open ${open}, ${trace} / ${htrace}`;
	});
	// The named jobs (their ids share this prefix), both outcomes shown.
	await page.fill('#filter', OK_JOB.slice(0, 31));
	await row(BIG_JOB).locator('td').nth(2).filter({ hasText: '#' }).waitFor();
	await page.screenshot({ path: `${OUT}/ui.png`, fullPage: true });
	await step('the job\'s history: a table, an SVG chart with the failure marked, its trigger button and outcome', async () => {
		await row(FAIL_JOB).locator('a').click();
		await page.locator('#history tbody tr').first().waitFor();
		const fail = await page.locator('#chart path.fail').count();
		const cells = await page.locator('#history tbody tr').first().textContent();
		const trig = await page.locator('#job-trigger output').textContent();
		return (fail === 1 && cells.includes('FAILED') && trig.startsWith('Failed:')) ||
			`fail marks ${fail}, row ${cells}, trigger "${trig}"`;
	});
	await step('10,000 checkpoints: the newest 1,000 (CHECKPOINT_HISTORY) charted, 100 rows at a time, in under 3 s', async () => {
		const t0 = Date.now();
		await page.goto(`${BASE}/ui/#job/${BIG_JOB}`);
		await page.locator('#chart path.line').waitFor();
		const ms = Date.now() - t0;
		console.log(`# the page, with a history of 1000, drawn in ${ms} ms`);
		const rows = await page.locator('#history tbody tr').count();
		const more = await page.textContent('#more');
		const sub = await page.textContent('#job-sub');
		const fails = await page.locator('#chart path.fail').getAttribute('d');
		await page.screenshot({ path: `${OUT}/ui-history.png` });
		await page.click('#more');
		const rows2 = await page.locator('#history tbody tr').count();
		return (rows === 100 && ms < 3000 && more === 'Show 100 more of 1000' && rows2 === 200 &&
			sub.includes('9900 completed, 100 failed') && fails.split('M').length - 1 === 10 &&
			(await page.textContent('#chart-cap')).includes('Older ones are not listed: the page reads 1000 at most')) ||
			`${rows} then ${rows2} rows, ${ms} ms, "${more}", "${sub}", ${fails}`;
	});
	await step('default CHECKPOINT_HISTORY, 150 checkpoints: all charted, the slowest (among the oldest 50) sets the scale', async () => {
		await page.goto(`${LONG_BASE}/ui/#job/${LONG_JOB}`);
		await page.locator('#chart path.line').waitFor();
		const top = (await page.locator('#chart text').allTextContents())[0];
		const cap = await page.textContent('#chart-cap');
		await page.screenshot({ path: `${OUT}/ui-long.png` });
		return (top === '4.32 s' && cap.startsWith('Run time of the 150 newest checkpoints') && !cap.includes('Older')) ||
			`${top} / ${cap}`;
	});
	await step('the page loads and refreshes with no console error', async () => {
		await page.goto(`${BASE}/ui/`);
		await page.waitForSelector('#jobs tbody tr');
		await page.waitForTimeout(6000); // one refresh
		return errors.length === 0 || errors.join('\n');
	});
	// Each row by its job, wherever a change of health moves it (a slow
	// build may see a trigger end meanwhile): the same element, and the
	// same content in its job's cell, which never changes.
	await step('no flicker: a refresh keeps the rows and their cells', async () => {
		const n = await page.evaluate(() => {
			window.__rows = new Map([...document.querySelectorAll('#jobs tbody tr')].map((r) =>
				[r.dataset.jid, [r, r.cells[1].firstChild]]));
			return window.__rows.size;
		});
		await page.waitForTimeout(5500);
		const [both, kept] = await page.evaluate(() => {
			const still = [...document.querySelectorAll('#jobs tbody tr')].filter((r) => window.__rows.has(r.dataset.jid));
			return [still.length, still.filter((r) => window.__rows.get(r.dataset.jid)[0] === r &&
				r.cells[1].firstChild === window.__rows.get(r.dataset.jid)[1]).length];
		});
		return (n > 0 && both > n / 2 && kept === both) || `${kept} of ${both} rows kept (${n} before)`;
	});
	await step('at phone width (390 px) nothing overflows sideways', async () => {
		await page.setViewportSize({ width: 390, height: 800 });
		await page.fill('#filter', '');
		await page.waitForTimeout(300);
		await page.screenshot({ path: `${OUT}/ui-phone.png` });
		const w = await page.evaluate(() => document.documentElement.scrollWidth);
		await page.setViewportSize({ width: 1280, height: 900 });
		return w <= 390 || `scrollWidth ${w}`;
	});
	await step('a 503 from the service (its database not one) is said plainly, and goes once it is', async () => {
		const p5 = await ctx.newPage();
		await p5.goto(`${JUNK_BASE}/ui/`);
		const b = p5.locator('#banner');
		await b.filter({ hasText: 'unavailable (503)' }).waitFor({ timeout: 12000 });
		const text = await b.textContent();
		renameSync(`${JUNK_DIR}/new.db`, `${JUNK_DIR}/checkpoints.db`);
		await b.waitFor({ state: 'hidden', timeout: 12000 });
		const empty = await p5.locator('#empty').isVisible();
		await p5.close();
		return (text.includes('cannot be opened or read') && empty) || `${text}, empty list shown: ${empty}`;
	});
	await step('an unreachable service is said plainly, and the buttons wait for it', async () => {
		await page.route(FLEET_URL, (r) => r.abort('connectionrefused'));
		try {
			await page.locator('#banner', { hasText: 'unreachable' }).waitFor({ timeout: 12000 });
			const enabled = await page.locator('#jobs button:enabled', { hasText: 'Trigger checkpoint' }).count();
			const all = await page.locator('#jobs button', { hasText: 'Trigger checkpoint' }).count();
			return (all > 0 && enabled === 0) || `${enabled} of ${all} buttons enabled`;
		} finally {
			await page.unroute(FLEET_URL);
		}
	});
	await step('a cross-site POST (a form on another origin) is refused', async () => {
		const evil = BASE.replace('127.0.0.1', 'localhost') + '/evil.html';
		const p2 = await ctx.newPage();
		await p2.route(evil, (r) => r.fulfill({ contentType: 'text/html', body:
			`<form method="post" enctype="text/plain" action="${BASE}/jobs/${OK_JOB}/checkpoints">` +
			'<input name=\'{"checkpointType":"FULL","triggerId":null,"x":"\' value=\'"}\'></form>' +
			'<script>document.forms[0].submit()</script>' }));
		const resp = p2.waitForResponse((r) => r.request().method() === 'POST');
		await p2.goto(evil);
		const r = await resp;
		const body = await r.text();
		await p2.close();
		return (r.status() === 403 && body.includes('Cross-site request refused')) || `${r.status()} ${body}`;
	});
	await step('under the /api prefix: /api/ui redirects to /api/ui/, which lists the jobs with no console error', async () => {
		const p3 = await ctx.newPage();
		const errs = [];
		p3.on('console', (m) => m.type() === 'error' && errs.push(m.text()));
		p3.on('pageerror', (e) => errs.push(e.message));
		await p3.goto(`${PREFIXED}/ui`);
		await p3.waitForSelector('#jobs tbody tr td a');
		await p3.waitForTimeout(500);
		const url = p3.url(), count = await p3.textContent('#count');
		await p3.close();
		return (url === `${PREFIXED}/ui/` && count === `${JOBS} jobs` && errs.length === 0) ||
			`${url}, "${count}", ${errs.join(' | ')}`;
	});
	await step('Trigger checkpoint under /api: POSTs to /api/jobs/..., the runner completes it', async () => {
		const p4 = await ctx.newPage();
		await p4.goto(`${PREFIXED}/ui/`);
		await p4.fill('#filter', 'orders');
		const r = p4.locator(`tr[data-jid="${OK_JOB}"]`);
		await r.getByRole('button', { name: 'Trigger checkpoint' }).click();
		await r.locator('output').filter({ hasText: /Checkpoint \d+ completed/ }).waitFor({ timeout: 20000 });
		const text = await r.locator('output').textContent();
		await p4.close();
		// The savepoint took the id after the page's first checkpoint.
		return (spId === Number(id) + 1 && text.includes(`Checkpoint ${spId + 1} completed`)) || `${text} (savepoint ${spId})`;
	});
	await step('triggers queued with no runner: the waiting count, the oldest\'s age; no alarm while its last pass is recent, said plainly once it is not', async () => {
		// The runner is stopped (the last check: none follows that needs it).
		// Ended once gone or a zombie (the shell test reaps it after).
		process.kill(RUNNER_PID, 'SIGTERM');
		const ended = () => {
			try {
				return readFileSync(`/proc/${RUNNER_PID}/stat`, 'utf8').replace(/^.*\) /s, '')[0] === 'Z';
			} catch {
				return true;
			}
		};
		for (let i = 0; i < 100 && !ended(); i++)
			await page.waitForTimeout(100);
		if (!ended())
			return 'the runner did not stop';
		for (let i = 0; i < 2; i++) {
			const r = await fetch(`${BASE}/jobs/${QUEUE_JOB}/checkpoints`, { method: 'POST',
				headers: { 'Content-Type': 'application/json' }, body: '{"checkpointType":"FULL","triggerId":null}' });
			if (r.status !== 202)
				return `POST: ${r.status}`;
		}
		await page.goto(`${BASE}/ui/`);
		await page.fill('#filter', 'queued');
		const cell = row(QUEUE_JOB).locator('td').nth(4);
		// The age grows: seconds after the POSTs, it shows them.
		await cell.filter({ hasText: /^2 waiting ([3-9]\.\d\d|\d\d\.\d) s/ }).waitFor({ timeout: 15000 });
		const text = await cell.textContent();
		const calm = await cell.locator('.bad').count() === 0 && await row(QUEUE_JOB).locator('.mark').textContent();
		// The runner's last pass made old: no runner at work.
		sql(DB, 'UPDATE service_metrics SET pass_ms = pass_ms - 600000');
		await cell.locator('.bad', { hasText: 'no runner at work' }).waitFor({ timeout: 12000 });
		const marked = await row(QUEUE_JOB).locator('.mark').textContent();
		const sum = await page.textContent('#summary');
		writeFileSync(`${OUT}/queued-shown`, text);
		return (calm === 'no checkpoint' && marked === 'no runner' && /1 waiting with no runner.*Runner: not at work/.test(sum)) ||
			`${text} / ${calm} / ${marked} / ${sum}`;
	});
} finally {
	await browser.close();
}
if (n !== CHECKS)
	check(false, `ran ${n} checks, not the ${CHECKS} planned`);
