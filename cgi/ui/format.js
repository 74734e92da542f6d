// Times and durations as people read them: local time with its zone and
// its age ("3 min ago"), UTC on hover; a failure's cause in one line.

export function fmtDuration(ms) {
	if (ms === undefined || ms === null || ms < 0 || Number.isNaN(ms))
		return 'n/a';
	if (ms < 1000)
		return `${Math.round(ms)} ms`;
	if (ms < 60000)
		return `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;
	const m = Math.floor(ms / 60000), s = Math.round((ms % 60000) / 1000);
	if (m < 60)
		return `${m} min ${s} s`;
	if (m < 2880)
		return `${Math.floor(m / 60)} h ${m % 60} min`;
	return `${Math.floor(m / 1440)} days`;
}

// "3 min ago", coarse on purpose: the exact time is on hover.
export function fmtAge(ms, now = Date.now()) {
	const d = Math.max(0, now - ms);
	if (d < 5000)
		return 'just now';
	if (d < 60000)
		return `${Math.floor(d / 1000)} s ago`;
	if (d < 3600000)
		return `${Math.floor(d / 60000)} min ago`;
	if (d < 172800000)
		return `${Math.floor(d / 3600000)} h ago`;
	return `${Math.floor(d / 86400000)} days ago`;
}

// "18:50:01 CET", with the date when not today.
export function fmtTime(ms) {
	const d = new Date(ms), today = new Date().toDateString() === d.toDateString();
	return d.toLocaleString(undefined, { ...(today ? {} : { month: 'short', day: 'numeric' }),
		hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'short' });
}

export const utc = (ms) => new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');

// A <time>: its age ("3 min ago"), or with full, the local time with its
// zone and then its age; the other form and UTC in its title (hover).
export function timeEl(ms, full = false) {
	const t = document.createElement('time');
	if (typeof ms !== 'number' || ms <= 0) {
		t.textContent = 'n/a';
		return t;
	}
	t.dateTime = new Date(ms).toISOString();
	Object.assign(t.dataset, { ms, full: full ? 1 : '' });
	return ageTick(t);
}

// Brings a <time>'s age up to date, in place (nothing is rebuilt).
export function ageTick(t) {
	const ms = Number(t.dataset.ms);
	t.title = `${fmtTime(ms)}, ${fmtAge(ms)}; ${utc(ms)}`;
	t.textContent = t.dataset.full ? `${fmtTime(ms)} (${fmtAge(ms)})` : fmtAge(ms);
	return t;
}

// The line that says why, what went wrong first: the last line of a
// trace that is not a stack frame (a Python traceback ends in its
// exception; Java's first line is the exception, and a JobManager's
// chain ends in its deepest cause), without "Caused by: ", a Java class
// name or Flink's fixed words before it, then how the runner's action
// ended, from its frame ("at checkpoint action (it exited with status
// 3)"), as checkpointctl and the runner's log say it.
export function causeLine(text) {
	const t = text ?? '';
	const lines = t.split('\n').map((l) => l.trim())
		.filter((l) => l && !/^(at |\.\.\. \d+ more|File ")/.test(l) && !/^Traceback \(most recent/.test(l));
	const last = (lines.at(-1) ?? '').replace(/^(Caused by: )?([a-z_$][\w$]*\.)+[A-Z][\w$]*: /, '');
	const what = last.replace(/^(Checkpoint was declined\.|Checkpoint expired before completing\.|The \w+ action failed\.)\s*/, '');
	const how = /^\s*at \w+ action \((?:it )?(.*)\)\s*$/m.exec(t)?.[1];
	return how ? (what ? `${what} (${how})` : how) : last;
}
