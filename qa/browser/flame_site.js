// flame_site.js - open a pmflame site (pmflame -o DIR served over HTTP) in
// Debian's headless chromium and use it as a person would: the index, a
// flame graph, zoom by click, reset, regex search, the view restored from
// the URL, and a process whose name is an HTML/script injection attempt.
//
//   node flame_site.js BASE_URL SCREENSHOT_PREFIX [ICICLE_PATH]
//
// ICICLE_PATH is the same nginx profile drawn with --inverted.
//
// Prints one line per observation, stable from run to run, for qa/300.out.
// Fails (exit 1) only on errors of the harness itself; the checks are in
// what it prints.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

const [base, shotPrefix, iciclePath] = process.argv.slice(2);
const dialogs = [];		// every dialog any page opened
const pageErrors = [];		// uncaught exceptions in the pages
const external = [];		// requests that tried to leave 127.0.0.1
let promptAnswer = null;	// what to type into the next prompt()

function say(...words) {
	console.log(words.join(' '));
}

async function launch() {
	const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'qa-chromium-'));
	const context = await chromium.launchPersistentContext(userDataDir, {
		executablePath: '/usr/bin/chromium',
		headless: true,
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
			'--no-first-run', '--disable-background-networking',
			'--disable-component-update', '--disable-sync'],
	});
	// the site must be self-contained: refuse and record anything else
	await context.route('**/*', (route) => {
		const url = new URL(route.request().url());
		if (url.hostname === '127.0.0.1')
			return route.continue();
		external.push(url.href);
		return route.abort();
	});
	return { context, userDataDir };
}

function watch(page) {
	page.on('dialog', async (dialog) => {
		dialogs.push(`${dialog.type()}: ${dialog.message()}`);
		if (dialog.type() === 'prompt' && promptAnswer !== null) {
			const answer = promptAnswer;
			promptAnswer = null;
			await dialog.accept(answer);
		} else {
			await dialog.dismiss();
		}
	});
	page.on('pageerror', (err) => pageErrors.push(err.message));
}

const frame = (page, name) => page.locator('#frames > g').filter({
	has: page.locator('title', { hasText: new RegExp('^' + name.replace(/[[\]()]/g, '\\$&') + ' \\(') }),
});
const rectWidths = (page) => page.$$eval('#frames > g > rect', (rs) => rs.map((r) => r.getAttribute('width')));
const countOf = (page, selector) => page.locator(selector).count();
const query = (page) => decodeURIComponent(new URL(page.url()).search);

async function checkIndex(page) {
	const response = await page.goto(`${base}/index.html`);
	say('index: HTTP', response.status(), response.headers()['content-type']);
	const rows = await page.$$eval('#profiles tbody tr', (trs) => trs.map((tr) => ({
		name: tr.cells[2].textContent,
		svg: (tr.querySelector('a[href$=".svg"]') || {}).href,
	})));
	rows.sort((a, b) => (a.name < b.name ? -1 : 1));
	say('index: profiles', JSON.stringify(rows.map((r) => r.name)));
	say('index: <img> elements', await countOf(page, 'img'));
	await page.screenshot({ path: `${shotPrefix}-index.png` });
	return rows;
}

async function checkZoomAndSearch(page, svgUrl) {
	const response = await page.goto(svgUrl);
	say('svg: HTTP', response.status(), response.headers()['content-type']);
	say('svg: frames', await countOf(page, '#frames > g'));
	say('svg: root', await page.locator('#frames > g > title').first().textContent());
	const before = await rectWidths(page);
	const main = frame(page, 'main');
	say('svg: main width', await main.locator('rect').getAttribute('width'));

	await main.click();
	say('zoom: main width', await main.locator('rect').getAttribute('width'));
	say('zoom: frames changed width', (await rectWidths(page)).filter((w, i) => w !== before[i]).length);
	say('zoom: hidden', await countOf(page, '#frames > g.hide'),
		'dimmed callers', await countOf(page, '#frames > g.parent'));
	const zoomQuery = query(page);
	say('zoom: url', zoomQuery);
	await page.screenshot({ path: `${shotPrefix}-zoom.png` });

	await page.click('#unzoom');
	say('reset: widths restored', JSON.stringify(await rectWidths(page)) === JSON.stringify(before));
	say('reset: hidden', await countOf(page, '#frames > g.hide'), 'url', JSON.stringify(query(page)));

	promptAnswer = 'foo';
	await page.click('#search');
	await page.waitForFunction(() => document.getElementById('matched').textContent.trim() !== '');
	say('search: foo', await page.locator('#matched').textContent());
	say('search: highlighted', await countOf(page, '#frames > g > rect[fill="rgb(230,0,230)"]'),
		'url', query(page));
	await page.screenshot({ path: `${shotPrefix}-search.png` });

	// a bookmarked view: zoomed on main, searching a regex
	await page.goto(`${svgUrl}${zoomQuery}&s=${encodeURIComponent('^ba[rz]$')}`);
	say('url state: main width', await main.locator('rect').getAttribute('width'),
		'matched', await page.locator('#matched').textContent());
}

// Root at the top: zoom must still widen callees and dim callers.
async function checkIcicle(page, svgUrl) {
	await page.goto(svgUrl);
	const root = page.locator('#frames > g > rect').first();
	const main = frame(page, 'main');
	say('icicle: root y', await root.getAttribute('y'), 'main y', await main.locator('rect').getAttribute('y'));
	await main.click();
	say('icicle zoom: main width', await main.locator('rect').getAttribute('width'),
		'hidden', await countOf(page, '#frames > g.hide'),
		'dimmed callers', await countOf(page, '#frames > g.parent'));
}

async function checkHostile(page, svgUrl) {
	await page.goto(svgUrl);
	const root = page.locator('#frames > g').first();
	say('hostile: title', await root.locator('title').textContent());
	say('hostile: label', await root.locator('text').textContent());
	await root.hover();
	say('hostile: details', await page.locator('#details').textContent());
	say('hostile: <img> elements', await page.evaluate(() => document.getElementsByTagName('img').length),
		'<script> elements', await page.evaluate(() => document.getElementsByTagName('script').length));
	await root.click();		// the script runs on this name too
	await page.waitForTimeout(300);
	await page.screenshot({ path: `${shotPrefix}-hostile.png` });
}

async function main() {
	const { context, userDataDir } = await launch();
	try {
		const page = await context.newPage();
		watch(page);
		const rows = await checkIndex(page);
		const nginx = rows.find((r) => r.name === 'nginx');
		const hostile = rows.find((r) => r.name.includes('<img'));
		if (!nginx || !hostile)
			throw new Error('index lacks the nginx or the hostile profile');
		await checkZoomAndSearch(page, nginx.svg);
		if (iciclePath)
			await checkIcicle(page, `${base}/${iciclePath}`);
		await checkHostile(page, hostile.svg);
		say('dialogs', JSON.stringify(dialogs));
		say('page errors', JSON.stringify(pageErrors));
		say('external requests', JSON.stringify(external));
	} finally {
		await context.close();
		fs.rmSync(userDataDir, { recursive: true, force: true });
	}
}

main().catch((err) => {
	console.error(err);
	process.exit(1);
});
