// The page (/ui/) in Debian's Chromium, driven by playwright-core: prints
// one TAP line per check ("ok - ..." or "not ok - ..."), which
// tests/t3800-ui-browser.sh numbers.  The number of checks is fixed
// (CHECKS, which the shell test knows too, to skip them all when Chromium
// is missing).  Settings come from the environment (see the shell test).
import { chromium } from 'playwright-core';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

export const CHECKS = 20;
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
const OUT = env('UI_OUT'), JOBS = Number(env('UI_JOBS'));

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
	await step('a failing job\'s trigger shows its failure text and, on demand, its stack trace', async () => {
		await page.fill('#filter', FAIL_JOB);
		await row(FAIL_JOB).getByRole('button', { name: 'Trigger checkpoint' }).click();
		const out = row(FAIL_JOB).locator('output');
		await out.filter({ hasText: 'Failed:' }).waitFor({ timeout: 20000 });
		const text = await out.evaluate((e) => e.firstChild.textContent);
		const pre = out.locator('pre');
		const hidden = !(await pre.isVisible());
		await out.locator('summary').click();
		const trace = await pre.textContent();
		return (text.includes('Checkpoint was declined.') && hidden && trace.includes('disk quota exceeded')) ||
			`${text} / hidden ${hidden} / ${trace}`;
	});
	await step('the failing job\'s row shows its last failure', async () => {
		const cell = row(FAIL_JOB).locator('td').nth(3);
		await cell.filter({ hasText: 'declined' }).waitFor({ timeout: 15000 });
	});
	await step('a trigger in progress (posted by curl\'s way, no Origin) shows with the age of the oldest', async () => {
		const r = await fetch(`${BASE}/jobs/${SLOW_JOB}/checkpoints`, { method: 'POST',
			headers: { 'Content-Type': 'application/json' }, body: '{"checkpointType":"FULL","triggerId":null}' });
		if (r.status !== 202)
			return `POST: ${r.status}`;
		await page.fill('#filter', 'slow');
		const cell = row(SLOW_JOB).locator('td').nth(4);
		await cell.filter({ hasText: /^1 waiting, oldest \d.*1 running, 0 queued$/ }).waitFor({ timeout: 8000 });
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
			sub.includes('9900 completed, 100 failed') && fails.split('M').length - 1 === 20) ||
			`${rows} then ${rows2} rows, ${ms} ms, "${more}", "${sub}", ${fails}`;
	});
	await step('the page loads and refreshes with no console error', async () => {
		await page.goto(`${BASE}/ui/`);
		await page.waitForSelector('#jobs tbody tr');
		await page.waitForTimeout(6000); // one refresh
		return errors.length === 0 || errors.join('\n');
	});
	await step('no flicker: a refresh keeps the rows and their cells', async () => {
		const before = await page.evaluate(() => {
			window.__row = document.querySelector('#jobs tbody tr');
			window.__cell = window.__row.cells[0].firstChild;
			return true;
		});
		await page.waitForTimeout(5500);
		return (before && await page.evaluate(() => document.querySelector('#jobs tbody tr') === window.__row &&
			window.__row.cells[0].firstChild === window.__cell)) || 'rows were rebuilt';
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
	await step('an unreachable service is said plainly', async () => {
		await page.route('**/jobs/overview', (r) => r.abort('connectionrefused'));
		try {
			await page.locator('#banner', { hasText: 'unreachable' }).waitFor({ timeout: 12000 });
		} finally {
			await page.unroute('**/jobs/overview');
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
		return text.includes(`Checkpoint ${Number(id) + 1} completed`) || text;
	});
	await step('triggers queued with no runner: the waiting count, the oldest\'s age, none running, said plainly', async () => {
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
		await cell.filter({ hasText: /^2 waiting, oldest ([3-9]\.\d\d|\d\d\.\d) s/ }).waitFor({ timeout: 15000 });
		const text = await cell.textContent();
		const bad = await cell.locator('.bad').textContent();
		writeFileSync(`${OUT}/queued-shown`, text);
		return (bad === 'none running: no runner has claimed them') || text;
	});
} finally {
	await browser.close();
}
if (n !== CHECKS)
	check(false, `ran ${n} checks, not the ${CHECKS} planned`);
