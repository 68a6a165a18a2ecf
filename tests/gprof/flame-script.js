// SPDX-License-Identifier: GPL-2.0-or-later
// Runs the script of a flame graph (--export=flamegraph) under node with
// a stand-in for the browser's DOM: the frames come from FRAMES.json
// (run-exports extracts them from the SVG with python3), then it clicks
// the box of ZOOM and searches for SEARCH, and prints what a person
// would see: each box's place and visibility, and the "Matched" line.
// Usage: node flame-script.js FRAMES.json ZOOM SEARCH
'use strict';
const fs = require('fs');
const [file, zoomName, searchFor] = process.argv.slice(2);
const d = JSON.parse(fs.readFileSync(file));

function el(attrs, text) {
	return {
		a: Object.assign({}, attrs), style: {}, textContent: text,
		getAttribute(k) { return k in this.a ? this.a[k] : null; },
		setAttribute(k, v) { this.a[k] = String(v); },
	};
}
const gs = d.frames.map(f => {
	const g = el({ class: 'f' }, '');
	const r = el(f.rect, ''), t = el({}, f.text), ti = el({}, f.title);

	g.getElementsByTagName = n => n === 'rect' ? [r] :
		n === 'text' ? [t] : [ti];
	g.r = r;
	g.t = t;
	return g;
});
const byId = { details: el({}, ''), matched: el({}, ''), unzoom: el({}, '') };
global.document = {
	getElementsByTagName: () => gs,
	getElementById: id => byId[id],
};
global.prompt = () => searchFor;
global.alert = m => { throw new Error(m); };
// The script declares its globals with var: run it in this scope.
(0, eval)(d.script + '\ninit();');

function show(when) {
	for (const g of gs)
		console.log(when, g.r.a['data-name'], g.style.display === 'none' ?
			'hidden' : 'x=' + (+g.r.a.x).toFixed(1) + ' w=' +
			(+g.r.a.width).toFixed(1) + ' opacity=' +
			(g.style.opacity === undefined ? 1 : g.style.opacity) +
			' text=' + g.t.textContent);
}
const z = gs.find(g => g.r.a['data-name'] === zoomName);
if (!z)
	throw new Error('no box ' + zoomName);
z.onclick();
show('zoomed');
eval('unzoom')();
show('unzoomed');
eval('search')();
console.log('matched', byId.matched.textContent);
z.onmouseover();
console.log('details', byId.details.textContent);
