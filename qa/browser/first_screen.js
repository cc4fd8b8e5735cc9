// first_screen.js - what a person sees on the first screen of a 1400x1000
// window, without scrolling, for qa/408:
//
//   node first_screen.js flame FILE.svg BASE TOP SCREENSHOT
//       the frames named BASE and TOP (title up to " (") lie inside the
//       window; the legend is drawn, and which prefixes it names
//   node first_screen.js heatmap FILE.svg SCREENSHOT
//       the distinct colours of the cells (read from the cells' image
//       through a canvas, one pixel per cell), and whether the flame
//       graph's "all" frame lies inside the window
//
// Prints one line per observation, stable from run to run.  Exits 1 only
// on errors of the harness itself.
'use strict';

const { chromium } = require('playwright-core');

const W = 1400, H = 1000;

function say(...words) {
	console.log(words.join(' '));
}

function inside(box) {
	return box !== null && box.y >= 0 && box.x >= 0 && box.y + box.height <= H &&
		box.x + box.width <= W;
}

// The bounding box of the rect of the first frame whose name is name.
async function frameBox(page, selector, name) {
	const g = await page.evaluateHandle(([sel, n]) => {
		for (const t of document.querySelectorAll(sel)) {
			const s = t.textContent, cut = s.lastIndexOf(' (');
			if ((cut >= 0 ? s.slice(0, cut) : s) === n)
				return t.parentNode.querySelector('rect');
		}
		return null;
	}, [selector, name]);
	const el = g.asElement();
	return el ? el.boundingBox() : null;
}

async function flame(page, base, top) {
	say('base frame', base, 'on the first screen:', inside(await frameBox(page, '#frames title', base)));
	say('top frame', top, 'on the first screen:', inside(await frameBox(page, '#frames title', top)));
	const legend = await page.$('#legend');
	say('legend:', legend ? 'present' : 'missing',
		legend && inside(await legend.boundingBox()) ? 'on the first screen' : 'off screen');
	const words = await page.$$eval('#legend text', ts => ts.map(t => t.textContent));
	['[k] kernel', '[l] library', '[t] thread', '[p] process'].forEach(w =>
		say('legend names', w + ':', words.includes(w)));
	const folded = await page.$$eval('#frames title', ts =>
		ts.filter(t => /^\u2026 \d+ frames folded/.test(t.textContent)).length);
	say('fold markers:', folded);
}

async function heatmap(page) {
	const colours = await page.evaluate(async () => {
		const img = document.querySelector('#cells image');
		const src = img.getAttribute('xlink:href') || img.getAttribute('href');
		const im = new Image();
		im.src = src;
		await im.decode();
		const c = new OffscreenCanvas(im.width, im.height);
		const ctx = c.getContext('2d');
		ctx.drawImage(im, 0, 0);
		const d = ctx.getImageData(0, 0, c.width, c.height).data, seen = {};
		for (let i = 0; i < d.length; i += 4)
			seen[d[i] + ',' + d[i + 1] + ',' + d[i + 2]] = (seen[d[i] + ',' + d[i + 1] + ',' + d[i + 2]] || 0) + 1;
		return seen;
	});
	// a band is a quarter of the legend's ramp (its 6 px swatches, in
	// order); no data and zero are no shade of a count
	const ramp = await page.$$eval('#legend rect[width="6"]', rs => rs.map(r => {
		const h = r.getAttribute('fill');
		return parseInt(h.slice(1, 3), 16) + ',' + parseInt(h.slice(3, 5), 16) + ',' +
			parseInt(h.slice(5, 7), 16);
	}));
	const bands = new Set();
	Object.keys(colours).forEach(k => {
		const i = ramp.indexOf(k);
		if (i >= 0)
			bands.add(Math.floor(4 * i / ramp.length));
	});
	say('legend ramp shades:', ramp.length);
	say('cells in at least four colour bands:', bands.size >= 4);
	console.error('heat map colours: ' + JSON.stringify(colours) + ' bands ' + [...bands].join(' '));
	const all = await frameBox(page, '#flame title', 'all');
	say('flame graph of the heat map starts on the first screen:', inside(all));
	// drawn boxes (after the offset label's rotation), against the image's width
	const labels = await page.$$eval('g.axis text', ts => ts.map(t => {
		const b = t.getBoundingClientRect();
		return b.left >= 0 && b.right <= document.documentElement.width.baseVal.value;
	}));
	say('every axis label inside the image:', labels.length > 0 && labels.every(x => x));
}

async function main() {
	const [mode, file, ...rest] = process.argv.slice(2);
	const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
		args: ['--no-sandbox', '--disable-gpu'] });
	const page = await browser.newPage({ viewport: { width: W, height: H } });
	const errors = [];
	page.on('pageerror', e => errors.push(String(e)));
	await page.goto('file://' + file);
	await page.waitForLoadState('load');
	if (mode === 'flame')
		await flame(page, rest[0], rest[1]);
	else
		await heatmap(page);
	await page.screenshot({ path: rest[rest.length - 1] });
	say('page errors:', errors.length);
	errors.forEach(e => console.error(e));
	await browser.close();
}

main().catch(e => { console.error(e); process.exit(1); });
