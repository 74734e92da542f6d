// The history's end-to-end durations as an SVG line, drawn by the page:
// one path for any number of checkpoints (10,000 stay cheap), failures as
// crosses, axes labelled with the range of ids and durations.
import { fmtDuration } from './format.js';

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

// history: Flink's CheckpointingStatistics.history, newest first.
// Drawn at the element's own width, one unit a pixel: text is never
// stretched (the page redraws it when the window is resized).
export function drawChart(svg, history) {
	const W = Math.max(320, Math.round(svg.getBoundingClientRect().width) || 640);
	svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
	const pts = history.filter((c) => c.status !== 'IN_PROGRESS').reverse();
	const kids = [];
	kids.push(el('line', { class: 'axis', x1: L, y1: H - B, x2: W - R, y2: H - B }));
	kids.push(el('line', { class: 'axis', x1: L, y1: T, x2: L, y2: H - B }));
	if (pts.length === 0) {
		kids.push(el('text', { x: L + 10, y: H / 2 }, 'No finished checkpoint yet'));
		svg.replaceChildren(...kids);
		return;
	}
	const max = Math.max(1, ...pts.map((c) => c.end_to_end_duration));
	const n = pts.length;
	const x = (i) => (n === 1 ? (L + W - R) / 2 : L + (i * (W - L - R)) / (n - 1));
	const y = (d) => H - B - (Math.max(0, d) * (H - T - B)) / max;
	let line = '', crosses = '';
	const dots = [];
	pts.forEach((c, i) => {
		const px = x(i).toFixed(1);
		if (c.status === 'FAILED') {
			const py = c.end_to_end_duration >= 0 ? y(c.end_to_end_duration) : T;
			crosses += `M${px - 4} ${py - 4}l8 8M${px - 4} ${py + 4}l8 -8`;
			return;
		}
		const py = y(c.end_to_end_duration).toFixed(1);
		line += `${line ? 'L' : 'M'}${px} ${py}`;
		if (n <= 200)
			dots.push(el('circle', { class: 'dot', cx: px, cy: py, r: 2.5 }));
	});
	if (line)
		kids.push(el('path', { class: 'line', d: line }));
	if (crosses)
		kids.push(el('path', { class: 'fail', d: crosses }));
	kids.push(...dots);
	kids.push(el('text', { x: L - 6, y: T + 10, 'text-anchor': 'end' }, fmtDuration(max)));
	kids.push(el('text', { x: L - 6, y: H - B, 'text-anchor': 'end' }, '0'));
	kids.push(el('text', { x: L, y: H - 8 }, `#${pts[0].id}`));
	kids.push(el('text', { x: W - R, y: H - 8, 'text-anchor': 'end' }, `#${pts[n - 1].id}`));
	const failed = pts.filter((c) => c.status === 'FAILED').length;
	kids.push(el('title', {}, `${n} checkpoints, ${failed} failed, longest ${fmtDuration(max)}`));
	svg.replaceChildren(...kids);
}
