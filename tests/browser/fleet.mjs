// tests/t3811-ui-fleet-browser.sh's browser half: the page over a failing
// fleet (tests/ui-fleet.sh's 12 jobs and healthy bulk ones) in Chromium
// at 1280x900 and 390x844.  Prints TAP lines ("ok - ...", "not ok -
// ...", "# ...") for the shell to pass on.  The checks: the summary is
// the fleet's; a refresh asks as many requests at 62 jobs as at 512; the
// search finds a job beyond the first page by name and by id; a job's id
// copies whole with one click; the chart marks savepoints; the failure
// cell shows its whole cause at 1280 px; missed slots show on the row and
// in the summary; pages go forward and back; the phone's width holds.
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';

const env = (k) => {
	if (!process.env[k])
		throw new Error(`${k} is not set`);
	return process.env[k];
};
const BASE = env('UI_BASE'), DB = env('UI_DB'), OUT = env('UI_OUT');
const BULK = Number(env('UI_BULK')), MORE = Number(env('UI_MORE'));
const FLEET = (i) => `00000000000000000000000000f1ee${String(i).padStart(2, '0')}`;
const BULK_JOB = (i) => (0xb0000 + i).toString(16).padStart(32, '0');
const sql = (q) => execFileSync('sqlite3', [DB, q], { encoding: 'utf8' });

function check(ok, desc, diag) {
	console.log(`${ok ? 'ok' : 'not ok'} - ${desc}`);
	if (!ok && diag)
		console.log(String(diag).split('\n').map((l) => `#   ${l}`).join('\n'));
}
async function step(desc, fn) {
	try {
		const r = await fn();
		check(r === true, desc, r);
	} catch (e) {
		check(false, desc, e.message);
	}
}

// bulk FROM TO: healthy jobs bulk-FROM..bulk-TO, a checkpoint a second ago.
function bulk(from, to) {
	const now = Date.now();
	sql(`BEGIN;
	    WITH RECURSIVE n(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM n WHERE i < ${to})
	    INSERT INTO jobs (job_id, name, state, created_ms, updated_ms)
	    SELECT printf('%032x', ${0xb0000} + i), printf('bulk-%04d', i), 'RUNNING', ${now}, ${now} FROM n;
	    INSERT INTO checkpoint_stats (job_id, completed, last_completed, completed_trigger_ms, completed_ms,
	        completed_location)
	    SELECT job_id, 1, 1, ${now - 1100}, ${now - 1000}, 's3://b/' || job_id FROM jobs WHERE name LIKE 'bulk-%'
	    AND job_id NOT IN (SELECT job_id FROM checkpoint_stats);
	    COMMIT;`);
}

const browser = await chromium.launch({
	executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
	args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
		'--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
	const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
	await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE });
	const page = await ctx.newPage();
	const errors = [];
	page.on('pageerror', (e) => errors.push(e.message));
	const row = (jid) => page.locator(`tr[data-jid="${jid}"]`);
	// The requests of one refresh: from a request of ./fleet to the next.
	const cycle = async () => {
		const seen = [];
		const on = (r) => seen.push(new URL(r.url()).pathname);
		const isFleet = (r) => new URL(r.url()).pathname.endsWith('/ui/fleet');
		await page.waitForRequest(isFleet, { timeout: 15000 });
		page.on('request', on);
		await page.waitForRequest(isFleet, { timeout: 15000 });
		page.off('request', on);
		return seen.length; // the second ./fleet counted, the first not
	};
	const healthy = (n) => new RegExp(`^2 failing, 1 waiting with no runner, 1 stale \\(${n} healthy, 1 without a checkpoint, 1 not running\\)`);

	bulk(1, BULK);
	let small = 0;
	await step(`the summary is the fleet's, ${12 + BULK} jobs, read in one request`, async () => {
		await page.goto(`${BASE}/ui/`);
		await page.locator('#summary', { hasText: healthy(6 + BULK) }).waitFor({ timeout: 15000 });
		small = await cycle();
		await page.screenshot({ path: `${OUT}/ui-fleet-small.png` });
		return true;
	});
	await step(`a refresh asks as many requests at ${12 + BULK + MORE} jobs as at ${12 + BULK}, one and two a row shown`, async () => {
		bulk(BULK + 1, BULK + MORE);
		await page.locator('#summary', { hasText: healthy(6 + BULK + MORE) }).waitFor({ timeout: 15000 });
		const large = await cycle();
		const rows = await page.locator('#jobs tbody tr').count();
		return (small === large && large === 1 + 2 * rows && rows === 50) ||
			`${small} requests, then ${large}, ${rows} rows`;
	});
	await step('the failure cell shows the whole cause at 1280 px, before Flink\'s words', async () => {
		const cell = row(FLEET(6)).locator('td').nth(3).locator('.bad');
		await cell.waitFor();
		const m = await cell.evaluate((e) => ({ text: e.textContent, over: e.scrollHeight > e.clientHeight + 1,
			w: e.getBoundingClientRect().width }));
		return (m.text.startsWith('OSError: [Errno 122] Disk quota exceeded') && m.text.includes('exited with status 1') &&
			!m.over && m.w >= 300) || JSON.stringify(m);
	});
	await step('a job\'s whole id is copied by one click', async () => {
		const r = row(FLEET(7));
		const shown = await r.locator('.jid').getAttribute('title');
		await r.locator('button.copy').click();
		await r.locator('button.copy', { hasText: 'Copied' }).waitFor({ timeout: 3000 });
		const got = await page.evaluate(() => navigator.clipboard.readText());
		return (got === FLEET(7) && shown === FLEET(7)) || `${got} / ${shown}`;
	});
	await step('the search finds a job beyond the first page by name, then by a piece of its id', async () => {
		const far = BULK + MORE - 3, jid = BULK_JOB(far);
		const before = await row(jid).count();
		await page.fill('#filter', `BULK-${String(far).padStart(4, '0')}`);
		await row(jid).waitFor({ timeout: 5000 });
		const byName = await page.locator('#jobs tbody tr').count();
		const count = await page.textContent('#count');
		await page.fill('#filter', jid.slice(-5));
		await row(jid).waitFor({ timeout: 5000 });
		const byId = await page.locator('#jobs tbody tr').count();
		await page.fill('#filter', '');
		await row(FLEET(6)).waitFor({ timeout: 5000 });
		return (before === 0 && byName === 1 && byId === 1 && count === `1 of ${12 + BULK + MORE} jobs`) ||
			`${before} before, ${byName} by name (${count}), ${byId} by id`;
	});
	// The first row's job once it is not (or is) jid: the page's CSP
	// forbids waitForFunction's eval.
	const firstRow = async (jid, same) => {
		for (let i = 0; i < 100; i++) {
			const f = await page.locator('#jobs tbody tr').first().getAttribute('data-jid');
			if ((f === jid) === same)
				return f;
			await page.waitForTimeout(100);
		}
		return null;
	};
	await step('pages go forward and back by the server\'s cursor', async () => {
		const first = await page.locator('#jobs tbody tr').first().getAttribute('data-jid');
		await page.click('#next');
		await page.locator('#page', { hasText: 'page 2 of ' }).waitFor();
		const second = await firstRow(first, false);
		await page.click('#prev');
		const back = await firstRow(first, true);
		// Worst first, then by name: five unhealthy, then the healthy
		// from bulk-0001, fifty a page.
		return (first === FLEET(7) && second === BULK_JOB(46) && back === first) || `${first} then ${second}, ${back}`;
	});
	await step('missed schedule slots show on the job\'s row and in the summary', async () => {
		sql(`UPDATE schedules SET missed = 4 WHERE job_id = '${FLEET(8)}'`);
		await row(FLEET(8)).locator('.missed', { hasText: '4 slots missed' }).waitFor({ timeout: 12000 });
		const sum = await page.textContent('#summary');
		return /1 with missed slots/.test(sum) || sum;
	});
	await step('the chart marks savepoints apart from checkpoints', async () => {
		await page.goto(`${BASE}/ui/#job/${FLEET(7)}`);
		await page.locator('#chart path.sp').waitFor({ timeout: 10000 });
		const d = await page.locator('#chart path.sp').getAttribute('d');
		const cap = await page.textContent('#chart-cap');
		await page.screenshot({ path: `${OUT}/ui-fleet-savepoints.png` });
		return ((d.match(/M/g) ?? []).length === 2 && cap.includes('savepoints ◆')) || `${d} / ${cap}`;
	});
	await step('at 390x844: health first, the copy button on screen, nothing overflows sideways', async () => {
		await page.setViewportSize({ width: 390, height: 844 });
		await page.goto(`${BASE}/ui/`);
		await row(FLEET(6)).waitFor({ timeout: 10000 });
		await page.waitForTimeout(300);
		await page.screenshot({ path: `${OUT}/ui-fleet-390.png` });
		const m = await page.evaluate(() => {
			const b = document.querySelector('#jobs tbody tr button.copy').getBoundingClientRect();
			return { w: document.documentElement.scrollWidth, first: document.querySelector('#jobs tbody tr .mark').textContent,
				copy: b.right <= 390 && b.width > 0 };
		});
		return (m.w <= 390 && /^failing/.test(m.first) && m.copy && errors.length === 0) || JSON.stringify({ ...m, errors });
	});
} finally {
	await browser.close();
}
