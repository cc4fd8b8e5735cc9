// view_page.js - live.html opening an archive range's view file (pmflame -o
// writes STEM.view.json beside the SVG; index.html links it as "view"), for
// qa 423:
//
//   node view_page.js INDEX_URL OUT [SHOT]
//       follows index.html's first "view" link, waits for the page to draw
//       the file, writes the page's folded stacks (its download) as OUT
//       and, with SHOT, a screenshot
//   node view_page.js missing URL
//       URL names a view file that is not there: what the status says
//
// Prints one line per observation, stable from run to run; exits 1 only on
// errors of the harness itself.
'use strict';

const { chromium } = require('playwright-core');
const fs = require('fs');

(async () => {
	const [index, out, shot] = process.argv.slice(2);
	const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
	const page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
	const errors = [];
	page.on('pageerror', e => errors.push(e.message));
	if (index === 'missing') {
		await page.goto(out);
		await page.waitForFunction(() => /OUT/.test(document.getElementById('status').textContent),
			null, { timeout: 20000 });
		console.log('status: ' + await page.evaluate(() => document.getElementById('status').textContent));
		console.log('page errors: ' + errors.length);
		await browser.close();
		return;
	}
	page.on('console', m => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
	await page.goto(index);
	const link = page.locator('a', { hasText: /^view$/ }).first();
	console.log('index.html view links: ' + (await page.locator('a', { hasText: /^view$/ }).count() > 0 ? 'yes' : 'no'));
	await link.click();
	await page.waitForFunction(() => /archive range|OUT/.test(document.getElementById('status').textContent) &&
		Number(document.body.dataset.updates || 0) > 0, null, { timeout: 20000 });
	await page.waitForTimeout(500);	// the update after the load
	const got = await page.evaluate(() => ({
		status: document.getElementById('status').textContent,
		columns: Number(document.getElementById('heat').dataset.columns),
		folded: window.stackprofLive.folded(),
		hash: location.hash,
		frames: window.stackprofLive.frames().length,
	}));
	fs.writeFileSync(out, got.folded);
	if (shot)
		await page.screenshot({ path: shot, fullPage: false });
	console.log('status says archive range: ' + (/archive range/.test(got.status) ? 'yes' : 'no: ' + got.status));
	console.log('heat-map columns drawn: ' + (got.columns > 0 ? 'yes' : 'no'));
	console.log('flame graph frames drawn: ' + (got.frames > 0 ? 'yes' : 'no'));
	console.log('the range is brushed in the URL: ' + (/[#&]sel=\d+-\d+/.test(got.hash) && /[#&]win=sel/.test(got.hash) ? 'yes' : 'no: ' + got.hash));
	console.log('page errors: ' + errors.length);
	errors.forEach(e => console.error(e));
	await browser.close();
})().catch(e => { console.error(e); process.exit(1); });
