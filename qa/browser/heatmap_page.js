// heatmap_page.js - use a heat map SVG (pmflame --format heatmap) in Debian's
// headless chromium as a person would: hover a cell, click a start cell and
// an end cell, read the flame graph drawn for that range, reload from the
// URL, and check that profile text with markup stays text.
//
//   node heatmap_page.js FILE.svg|URL SCREENSHOT_PREFIX
//
// (A URL serves it over HTTP, e.g. with a Content-Security-Policy header:
// qa/301.)
//
// Prints one line per observation, stable from run to run, for qa/406.out.
// Exits 1 only on errors of the harness itself.
'use strict';

const { chromium } = require('playwright-core');

const [file, shotPrefix] = process.argv.slice(2);
const dialogs = [];
const pageErrors = [];

function say(...words) {
	console.log(words.join(' '));
}

// Centre of cell (column c, row r) in page coordinates (the SVG is 1:1).
function cellPoint(H, c, r) {
	return { x: H.x0 + (c + 0.5) * H.cw, y: H.y0 + (H.rows - 1 - r + 0.5) * H.ch };
}

async function open(browser, hash) {
	const page = await browser.newPage({ viewport: { width: 1300, height: 1000 } });
	page.on('dialog', d => { dialogs.push(d.message()); d.dismiss(); });
	page.on('pageerror', e => pageErrors.push(String(e)));
	await page.goto((/^https?:/.test(file) ? file : 'file://' + file) + (hash || ''));
	return page;
}

// Frame titles drawn in the flame graph: [{name, samples}]
async function frames(page) {
	return page.$$eval('#flame g.frame title', ts => ts.map(t => {
		const m = /^(.*) \((\d+) samples, [\d.]+%\)$/.exec(t.textContent);
		return m ? { name: m[1], samples: +m[2] } : { name: t.textContent, samples: -1 };
	}));
}

async function main() {
	const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
		args: ['--no-sandbox', '--disable-gpu'] });
	let page = await open(browser);
	const H = await page.evaluate(() => ({ x0: H.x0, y0: H.y0, cw: H.cw, ch: H.ch,
		rows: H.rows, cols: H.cols }));
	say('grid:', H.cols, 'columns x', H.rows, 'rows');

	// no selection yet: the flame graph of all seconds
	say('on load:', (await page.textContent('#flametitle')).replace(/,.*/, ''));
	const all = (await frames(page)).find(f => f.name === 'all');

	// hover: time, offsets and the cell's count, as in the embedded data
	let p = cellPoint(H, 3, 0);
	await page.mouse.move(p.x, p.y);
	const tip = await page.textContent('#tiptext');
	const want = await page.evaluate(() => count(3, 0));
	say('hover tip visible:', await page.getAttribute('#tip', 'visibility'));
	say('hover tip:', tip.replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/, 'TIME')
		.replace(/: \d+ samples?$/, ': N samples'));
	say('hover count matches the data:', tip.endsWith(': ' + want + (want === 1 ? ' sample' : ' samples')));

	// click start (column 10, row 5), then end (column 12, row 40)
	p = cellPoint(H, 10, 5);
	await page.mouse.click(p.x, p.y);
	say('after first click:', (await page.textContent('#info')).replace(/^Start: .*\. /, 'Start: CELL. '));
	p = cellPoint(H, 12, 40);
	await page.mouse.click(p.x, p.y);
	say('selection outlines:', await page.locator('#sel rect').count());
	say('url:', page.url().replace(/^.*#/, '#'));
	const title = await page.textContent('#flametitle');
	say('flame title:', title.replace(/, .* UTC:/, ', RANGE:').replace(/\d+ stack samples/, 'N stack samples'));
	const sel = await frames(page);
	const root = sel.find(f => f.name === 'all');
	say('flame frames drawn:', sel.length > 10);
	say('selection smaller than all seconds:', root && all && root.samples < all.samples);
	// the sum over the selected columns, straight from the embedded data
	const direct = await page.evaluate(() => {
		let n = 0;
		for (let c = 10; c <= 12; c++)
			for (const e of (stacks[c] ? stacks[c].split(',') : []))
				n += e.includes('*') ? parseInt(e.split('*')[1], 36) : 1;
		return n;
	});
	say('flame total equals the selected seconds\' stacks:', root && root.samples === direct);
	await page.screenshot({ path: shotPrefix + '-selected.png' });

	// markup in names is text: in titles and labels, never elements or dialogs
	const hostile = sel.filter(f => f.name.includes('<script>') || f.name.includes('<img'));
	say('names with markup shown as text:', hostile.length > 0);
	say('injected elements:', await page.evaluate(() =>
		document.querySelectorAll('script').length - 1 + document.querySelectorAll('img').length));
	await page.close();

	// the URL alone restores the selection
	page = await open(browser, '#sel=10.5-12.40');
	const again = (await frames(page)).find(f => f.name === 'all');
	say('reload from url gives the same flame graph:', again && root && again.samples === root.samples);
	say('dialogs:', dialogs.length, 'page errors:', pageErrors.length);
	for (const e of pageErrors)
		say('  error:', e);
	await browser.close();
}

main().catch(e => { console.error(e); process.exit(1); });
