// live_page.js - drives live.html in headless chromium for qa 420-422:
//
//   node live_page.js main URL OUT SHOT
//       columns appear second by second; the demo's shares; a brushed
//       range (drag on the heat map) written as OUT.folded with its seconds
//       in OUT.range ("FROM TO", the page's (FROM, TO] on drain times);
//       search and zoom; hostile names as text
//   node live_page.js restart URL CMD
//       CMD (a pmcd restart, a pmproxy restart) while the page polls: the
//       gaps it shows and whether columns come after them
//   node live_page.js auth URL USER PASSWORD
//       the page behind basic auth, same origin: columns and frames come
//
// Prints one line per observation, stable from run to run; exits 1 only on
// errors of the harness itself.
'use strict';

const { chromium } = require('playwright-core');
const { execSync } = require('child_process');
const fs = require('fs');

function say(...words) {
	console.log(words.join(' '));
}

async function open(url, creds) {
	const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
	const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 }, httpCredentials: creds });
	const page = await ctx.newPage();
	page.errors = [];
	page.on('pageerror', e => page.errors.push(e.message));
	page.on('dialog', d => { page.errors.push('dialog ' + d.message()); d.dismiss(); });
	page.on('console', m => { if (m.type() === 'error') page.errors.push('console: ' + m.text()); });
	await page.goto(url);
	return { browser, page };
}

// the next update of the page with new data (body[data-updates] grows)
async function nextUpdate(page, limitMs) {
	const before = await page.evaluate(() => Number(document.body.dataset.updates || 0));
	try {
		await page.waitForFunction(n => Number(document.body.dataset.updates || 0) > n, before,
			{ timeout: limitMs || 10000 });
		return true;
	} catch (e) {
		return false;
	}
}

async function columns(page) {
	return page.evaluate(() => window.stackprofLive.columns());
}

// shares of frames in the page's folded text (the demo's process)
function shares(folded, names) {
	let total = 0;
	const got = {};
	names.forEach(n => { got[n] = 0; });
	folded.split('\n').filter(Boolean).forEach(l => {
		const cut = l.lastIndexOf(' '), c = Number(l.slice(cut + 1)), frames = l.slice(0, cut).split(';');
		total += c;
		names.forEach(n => { if (frames.includes(n)) got[n] += c; });
	});
	return { total, got };
}

async function setHash(page, changes) {
	await page.evaluate(ch => {
		const p = new URLSearchParams(location.hash.slice(1));
		Object.keys(ch).forEach(k => p.set(k, ch[k]));
		location.hash = p.toString();
	}, changes);
	await page.waitForTimeout(300);
}

async function main(url, out, shot) {
	const { browser, page } = await open(url);
	// columns: every new one is the second after the newest before it
	let cols = [];
	await nextUpdate(page, 20000);
	let steady = true, appeared = 0;
	for (let i = 0; i < 8; i++) {
		if (!await nextUpdate(page)) {
			steady = false;
			break;
		}
		const now = await columns(page);
		const fresh = now.filter(c => !cols.includes(c));
		if (cols.length && fresh.some(c => c !== Math.max(...cols) + 1 + fresh.indexOf(c)))
			steady = false;
		appeared += cols.length ? fresh.length : 0;
		cols = now;
	}
	say('heat-map columns appear second by second:', steady && appeared >= 7 ? 'yes' : 'no (' + appeared + ')');

	// the demo alone, its last minute
	const proc = process.env.LIVE_PROC || 'stackprof_demo';
	await setHash(page, { proc, win: '60' });
	await nextUpdate(page);
	const s = shares(await page.evaluate(() => window.stackprofLive.folded()), ['demo_heavy', 'demo_light']);
	['demo_heavy:75', 'demo_light:25'].forEach(w => {
		const [n, want] = w.split(':'), pct = s.total ? 100 * s.got[n] / s.total : 0;
		say(n, 'share within 10 points of', want + '%:', Math.abs(pct - want) <= 10 ? 'yes' : 'no (' + pct.toFixed(1) + '%)');
	});

	// search, over the minute (5 s of samples are too few for 10 points)
	await page.fill('#search', 'demo_heavy');
	await page.waitForTimeout(300);
	const m = /matched: ([0-9.]+)%/.exec(await page.evaluate(() => window.stackprofLive.matched()));
	say('search demo_heavy: matched share within 10 points of 75%:', m && Math.abs(Number(m[1]) - 75) <= 10 ? 'yes' : 'no (' + (m && m[1]) + ')');
	const lit = await page.evaluate(() => {
		const c = document.getElementById('flame'), g = c.getContext('2d'), d = g.getImageData(0, 0, c.width, c.height).data;
		let n = 0;
		for (let i = 0; i < d.length; i += 4)
			if (d[i] === 0xe0 && d[i + 1] === 0x40 && d[i + 2] === 0xe0)
				n++;
		return n;
	});
	say('search highlights frames:', lit > 0 ? 'yes' : 'no');
	await page.fill('#search', '');

	// brush: drag over the 5 columns ending 4 s before the newest
	await page.click('#pause');
	await page.waitForTimeout(300);
	const box = await page.$eval('#heat', c => {
		const b = c.getBoundingClientRect();
		return { x: b.left, y: b.top, h: b.height, cw: Number(c.dataset.cw), first: Number(c.dataset.first) };
	});
	// A value that summed two drains cannot be cut at a range's edge, and
	// the page holds nothing before its first value (which sums every drain
	// since the page's start), so the page and the archive agree only on a
	// range inside the page's values whose edges no such value straddles:
	// take 5 columns, ending as near 4 s before the newest as can be, whose
	// edges have none within the 2 s after them (a drain a second).
	const newest = Math.max(...await columns(page));
	const values = await page.evaluate(() => window.stackprofLive.values());
	const first = Math.ceil(Math.min(...values.map(v => v[0])));
	const multi = values.filter(v => v[1] > 1).map(v => v[0]);
	const straddled = e => multi.some(t => t >= e && t < e + 2);
	const starts = [];
	for (let s = first; s + 4 <= newest - 2; s++)
		if (!straddled(s) && !straddled(s + 5))
			starts.push(s);
	starts.sort((p, q) => Math.abs(p - (newest - 8)) - Math.abs(q - (newest - 8)));
	if (!starts.length)
		throw new Error('no 5 s range of single-drain edges in the page values ' + JSON.stringify(values));
	const a = starts[0], b = a + 4;
	await page.mouse.move(box.x + (a - box.first + 0.5) * box.cw, box.y + box.h / 2);
	await page.mouse.down();
	await page.mouse.move(box.x + (b - box.first + 0.5) * box.cw, box.y + box.h / 2, { steps: 4 });
	await page.mouse.up();
	await page.waitForTimeout(300);
	const hash = new URLSearchParams((await page.evaluate(() => location.hash)).slice(1));
	say('brushed range in the URL:', hash.get('win') === 'sel' && hash.get('sel') === a + '-' + b ? 'yes' : 'no (' + hash.get('sel') + ')');
	fs.writeFileSync(out + '.folded', await page.evaluate(() => window.stackprofLive.folded()));
	fs.writeFileSync(out + '.range', a + ' ' + (b + 1) + '\n');
	fs.writeFileSync(out + '.values', (await page.evaluate(() => window.stackprofLive.values()))
		.map(v => v[0].toFixed(6) + ' drains ' + v[1]).join('\n') + '\n');
	const json = JSON.parse(await page.evaluate(() => window.stackprofLive.deepflow()));
	say('DeepFlow JSON:', json.OPT_STATUS, 'root parent', json.result.node_values.values[0][1]);

	// zoom: click demo_light, it fills the width; reset
	const f = await page.evaluate(() => {
		const c = document.getElementById('flame').getBoundingClientRect();
		return { left: c.left, top: c.top, frames: window.stackprofLive.frames() };
	});
	const light = f.frames.filter(x => x.name === 'demo_light').sort((p, q) => q.w - p.w)[0];
	if (light) {
		await page.mouse.click(f.left + light.x + light.w / 2, f.top + light.y + 5);
		await page.waitForTimeout(300);
		const w = await page.evaluate(() => document.getElementById('flame').width);
		const z = await page.evaluate(() => window.stackprofLive.frames().filter(x => x.name === 'demo_light'));
		say('zoom on demo_light: it fills the width:', z.length === 1 && Math.abs(z[0].w - w) < 1 ? 'yes' : 'no');
		say('zoom in the URL:', /zoom=[^&]*demo_light/.test(await page.evaluate(() => location.hash)) ? 'yes' : 'no');
		await page.click('#reset');
		await page.waitForTimeout(300);
		const again = await page.evaluate(() => window.stackprofLive.frames().filter(x => x.name === 'demo_light').length);
		say('reset: demo_light back beside demo_heavy:', again >= 1 && !/zoom=/.test(await page.evaluate(() => location.hash)) ? 'yes' : 'no');
	} else
		say('zoom: no demo_light frame on screen');
	// the top-functions table drives the zoom
	await page.selectOption('#top-by', 'total');
	await page.waitForTimeout(300);
	const row = await page.$$eval('#top tbody tr', rs => rs.findIndex(r => r.firstChild.textContent === 'demo_heavy'));
	if (row >= 0) {
		await page.click('#top tbody tr:nth-child(' + (row + 1) + ')');
		await page.waitForTimeout(300);
		say('top table click zooms:', /zoom=[^&]*demo_heavy/.test(await page.evaluate(() => location.hash)) ? 'yes' : 'no');
	} else
		say('top table: demo_heavy missing');

	await page.click('#pause');	// resume
	// hostile names: options are text, nothing injected ran
	const hostile = process.env.LIVE_HOSTILE;
	if (hostile) {
		await setHash(page, { proc: '', win: '60', zoom: '' });
		await nextUpdate(page);
		const o = await page.$$eval('#proc option', os => os.map(x => x.textContent));
		say('hostile process name listed as text:', o.includes(hostile) ? 'yes' : 'no (' + JSON.stringify(o) + ')');
		say('elements injected:', await page.evaluate(() => document.querySelectorAll('img, svg, iframe, b, i').length));
		const text = await page.evaluate(() => window.stackprofLive.folded());
		say('hostile name in the folded text:', text.includes('[p] ' + hostile) ? 'yes' : 'no');
		if (!text.includes('[p] ' + hostile))
			console.error('folded:', text.slice(0, 300), await page.evaluate(() => location.hash));
	}
	await setHash(page, { proc, win: '10', zoom: '', sel: '' });
	await nextUpdate(page);
	await page.screenshot({ path: shot });
	say('page errors:', page.errors.length);
	page.errors.forEach(e => console.error(e));
	await browser.close();
}

async function restart(url, cmd) {
	const { browser, page } = await open(url);
	await nextUpdate(page, 20000);
	await nextUpdate(page);
	await nextUpdate(page);
	const before = (await page.evaluate(() => window.stackprofLive.gaps())).length;
	say('gaps before:', before);
	execSync(cmd, { stdio: 'ignore' });
	// back: no host out, and three more updates
	try {
		await page.waitForFunction(() => document.getElementById('status').dataset.down === '0' &&
			window.stackprofLive.gaps().length > 0, null, { timeout: 60000 });
	} catch (e) { /* said below */ }
	for (let i = 0; i < 3; i++)
		await nextUpdate(page);
	const gaps = await page.evaluate(() => window.stackprofLive.gaps());
	say('gaps after:', gaps.length);
	const cols = await columns(page), end = gaps.length ? gaps[gaps.length - 1].end : Infinity;
	say('columns after the gap:', cols.filter(c => c > end).length >= 2 ? 'yes' : 'no');
	say('page errors:', page.errors.filter(e => !/Failed to load resource|ERR_CONNECTION_REFUSED/.test(e)).length);
	await browser.close();
}

async function auth(url, user, password) {
	const { browser, page } = await open(url, { username: user, password: password });
	await nextUpdate(page, 20000);
	await nextUpdate(page);
	await nextUpdate(page);
	const cols = await columns(page);
	say('columns through nginx with basic auth:', cols.length >= 2 ? 'yes' : 'no');
	await setHash(page, { proc: process.env.LIVE_PROC || 'stackprof_demo', win: '60' });
	await nextUpdate(page);
	const s = shares(await page.evaluate(() => window.stackprofLive.folded()), ['demo_heavy']);
	say('demo frames through nginx:', s.got.demo_heavy > 0 ? 'yes' : 'no');
	say('page errors:', page.errors.length);
	page.errors.forEach(e => console.error(e));
	await browser.close();
}

const [mode, ...args] = process.argv.slice(2);
({ main, restart, auth })[mode](...args).catch(e => {
	console.error(e);
	process.exit(1);
});
