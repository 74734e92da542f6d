// Each checkpoint's run time against the time it ended, drawn by the page
// as an SVG: one path for any number of checkpoints (10,000 stay cheap),
// failures as crosses, savepoints (which take ids as checkpoints do) as
// diamonds, time on the x axis.  One point at a time is read
// out (id, run time, queue wait, time) under the mouse, or from the
// keyboard with the arrow keys once the chart has focus.
import { fmtDuration, fmtTime, fmtAge } from './format.js';

const NS = 'http://www.w3.org/2000/svg';
const H = 220, L = 56, R = 10, T = 12, B = 28;

function el(name, attrs, text) {
	const e = document.createElementNS(NS, name);
	for (const [k, v] of Object.entries(attrs))
		e.setAttribute(k, v);
	if (text !== undefined)
		e.textContent = text;
	return e;
}

const hhmm = (ms) => new Date(ms).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

// cps: the job's checkpoints, newest first ({ id, status, end, dur, wait }).
// Drawn at the element's own width, one unit a pixel: text is never
// stretched (the page redraws it when the window is resized).
export function drawChart(svg, tip, cps) {
	const W = Math.max(320, Math.round(svg.getBoundingClientRect().width) || 640);
	svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
	const pts = cps.filter((c) => c.status !== 'IN_PROGRESS' && c.end > 0).reverse();
	const kids = [el('line', { class: 'axis', x1: L, y1: H - B, x2: W - R, y2: H - B }),
		el('line', { class: 'axis', x1: L, y1: T, x2: L, y2: H - B })];
	svg.onmousemove = svg.onkeydown = svg.onmouseleave = null;
	tip.textContent = '';
	if (pts.length === 0) {
		kids.push(el('text', { x: L + 10, y: H / 2 }, 'No finished checkpoint yet'));
		svg.replaceChildren(...kids);
		return;
	}
	const max = Math.max(1, ...pts.map((c) => c.dur));
	const t0 = pts[0].end, t1 = Math.max(pts.at(-1).end, t0 + 1);
	const x = (c) => (pts.length === 1 ? (L + W - R) / 2 : L + ((c.end - t0) * (W - L - R)) / (t1 - t0));
	const y = (d) => H - B - (Math.max(0, d) * (H - T - B)) / max;
	let line = '', crosses = '', diamonds = '';
	for (const c of pts) {
		const px = x(c);
		if (c.sp)
			diamonds += `M${px.toFixed(1)} ${((c.dur >= 0 ? y(c.dur) : T) - 6).toFixed(1)}l6 6l-6 6l-6 -6z`;
		if (c.status === 'FAILED') {
			const py = c.dur >= 0 ? y(c.dur) : T;
			crosses += `M${(px - 4).toFixed(1)} ${(py - 4).toFixed(1)}l8 8m-8 0l8 -8`;
		} else
			line += `${line ? 'L' : 'M'}${px.toFixed(1)} ${y(c.dur).toFixed(1)}`;
	}
	if (line)
		kids.push(el('path', { class: 'line', d: line }));
	if (crosses)
		kids.push(el('path', { class: 'fail', d: crosses }));
	if (diamonds)
		kids.push(el('path', { class: 'sp', d: diamonds }));
	kids.push(el('text', { x: L - 6, y: T + 10, 'text-anchor': 'end' }, fmtDuration(max)));
	kids.push(el('text', { x: L - 6, y: H - B, 'text-anchor': 'end' }, '0'));
	kids.push(el('text', { x: L, y: H - 8 }, hhmm(t0)));
	kids.push(el('text', { x: (L + W - R) / 2, y: H - 8, 'text-anchor': 'middle' }, hhmm((t0 + t1) / 2)));
	kids.push(el('text', { x: W - R, y: H - 8, 'text-anchor': 'end' }, hhmm(t1)));
	const cursor = el('circle', { class: 'cursor', r: 5, visibility: 'hidden' });
	kids.push(cursor);
	svg.replaceChildren(...kids);

	let at = pts.length - 1;
	const show = (i) => {
		at = Math.max(0, Math.min(pts.length - 1, i));
		const c = pts[at];
		cursor.setAttribute('cx', x(c).toFixed(1));
		cursor.setAttribute('cy', (c.dur >= 0 ? y(c.dur) : T).toFixed(1));
		cursor.setAttribute('visibility', 'visible');
		tip.textContent = `#${c.id}${c.sp ? ' savepoint' : ''} ${c.status === 'FAILED' ? 'failed' : 'completed'} in ${fmtDuration(c.dur)}` +
			(c.wait >= 0 ? ` after ${fmtDuration(c.wait)} waiting for a runner` : '') +
			`, ended ${fmtTime(c.end)} (${fmtAge(c.end)})`;
	};
	svg.onmousemove = (ev) => {
		const r = svg.getBoundingClientRect(), mx = ((ev.clientX - r.left) * W) / r.width;
		let best = 0;
		pts.forEach((c, i) => {
			if (Math.abs(x(c) - mx) < Math.abs(x(pts[best]) - mx))
				best = i;
		});
		show(best);
	};
	svg.onkeydown = (ev) => {
		const step = { ArrowLeft: -1, ArrowRight: 1, PageUp: -10, PageDown: 10, Home: -1e9, End: 1e9 }[ev.key];
		if (step === undefined)
			return;
		ev.preventDefault();
		show(at + step);
	};
	svg.onfocus = () => show(at);
}
