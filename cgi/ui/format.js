// Times and durations as people read them: local time, UTC on hover.

export function fmtDuration(ms) {
	if (ms === undefined || ms === null || ms < 0)
		return 'n/a';
	if (ms < 1000)
		return `${ms} ms`;
	if (ms < 60000)
		return `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;
	const m = Math.floor(ms / 60000), s = Math.round((ms % 60000) / 1000);
	if (m < 60)
		return `${m} min ${s} s`;
	return `${Math.floor(m / 60)} h ${m % 60} min`;
}

// A <time> element: local time shown, UTC in its title (hover).
export function timeEl(ms) {
	const t = document.createElement('time');
	if (typeof ms !== 'number' || ms <= 0) {
		t.textContent = 'n/a';
		return t;
	}
	const d = new Date(ms);
	t.dateTime = d.toISOString();
	t.title = d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
	t.textContent = d.toLocaleString();
	return t;
}
