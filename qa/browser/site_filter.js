// site_filter.js - the site index's filters in Debian's headless chromium:
// choose a host, a profile and an event in the index's <select>s and see
// which rows stay; a host and a process named like HTML/script injections
// are shown as text and run nothing.
//
//   node site_filter.js BASE_URL
//
// Prints one line per observation, stable from run to run, for qa/302.out.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

const [base] = process.argv.slice(2);
const dialogs = [];
const errors = [];
const external = [];

async function visible(page) {
	return page.$$eval('#profiles tbody tr', (rows) => rows.filter((r) => !r.hidden)
		.map((r) => [r.dataset.host, r.dataset.profile, r.dataset.event].join(' | ')));
}

async function show(page, what) {
	const rows = await visible(page);
	const shown = await page.textContent('#shown');
	console.log(`${what}: ${rows.length} rows (says ${shown})`);
	rows.forEach((r) => console.log(`  ${r}`));
}

async function main() {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qa-chromium-'));
	const context = await chromium.launchPersistentContext(dir, {
		executablePath: '/usr/bin/chromium', headless: true,
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
			'--disable-background-networking', '--disable-component-update'],
	});
	await context.route('**/*', (route) => {
		const url = new URL(route.request().url());
		if (url.hostname === '127.0.0.1')
			return route.continue();
		external.push(url.href);
		return route.abort();
	});
	const page = await context.newPage();
	page.on('dialog', async (d) => { dialogs.push(d.message()); await d.dismiss(); });
	page.on('pageerror', (e) => errors.push(String(e)));
	const resp = await page.goto(`${base}/index.html`);
	console.log(`index: HTTP ${resp.status()}`);
	for (const k of ['host', 'profile', 'event'])
		console.log(`${k} options: ${JSON.stringify(await page.$$eval(`#filter-${k} option`,
			(o) => o.map((x) => x.textContent)))}`);
	await show(page, 'all');
	await page.selectOption('#filter-host', 'web2');
	await show(page, 'host web2');
	await page.selectOption('#filter-profile', 'nginx');
	await show(page, 'host web2, profile nginx');
	await page.selectOption('#filter-event', 'off-cpu');
	await show(page, 'host web2, profile nginx, event off-cpu');
	await page.selectOption('#filter-host', '');
	await page.selectOption('#filter-profile', '');
	await page.selectOption('#filter-event', '');
	await page.selectOption('#filter-host', '"><img src=x onerror=alert(1)>');
	await show(page, 'hostile host');
	console.log(`hostile: <img> elements ${(await page.$$('img')).length}`);
	console.log(`dialogs: ${dialogs.length}, page errors: ${errors.length}, external requests: ${external.length}`);
	await context.close();
	fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => { console.error(e); process.exit(1); });
