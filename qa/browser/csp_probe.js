// csp_probe.js - the Content-Security-Policy of pmflame's pages in Debian's
// headless chromium.  For each PATH=COPY it opens BASE/PATH as pmflame
// wrote it and BASE/COPY, a copy the test made with what an unescaped name
// would amount to: a script from the same server and an inline one.
//
//   node csp_probe.js BASE_URL PATH=COPY...
//
// Prints per page: how many policy violations chromium reported, and
// whether the injected scripts ran (each sets an attribute on the root
// element).  Exits 1 only on errors of the harness itself.
'use strict';

const { chromium } = require('playwright-core');

const [base, ...paths] = process.argv.slice(2);

async function probe(browser, url) {
	const page = await browser.newPage();
	const violations = [];
	const errors = [];

	page.on('console', m => {
		if (/Content Security Policy/.test(m.text()))
			violations.push(m.text());
	});
	page.on('pageerror', e => errors.push(String(e)));
	await page.goto(url);
	await page.waitForTimeout(300);
	const ran = await page.evaluate(() => ({
		external: document.documentElement.getAttribute('data-external') === 'ran',
		inline: document.documentElement.getAttribute('data-inline') === 'ran',
	}));
	await page.close();
	return { violations, errors, ran };
}

(async () => {
	const browser = await chromium.launch({
		executablePath: '/usr/bin/chromium',
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
	});
	try {
		for (const pair of paths) {
			const [p, copy] = pair.split('=');
			const own = await probe(browser, base + '/' + p);
			const inj = await probe(browser, base + '/' + copy);

			console.log(`${p}: violations ${own.violations.length}, page errors ${own.errors.length}`);
			console.log(`${p} injected: external script ${inj.ran.external ? 'RAN' : 'blocked'}, ` +
				    `inline script ${inj.ran.inline ? 'RAN' : 'blocked'}, ` +
				    `violations reported ${inj.violations.length > 0 ? 'yes' : 'no'}`);
			for (const v of own.violations)
				console.error(p + ': ' + v);
		}
	} finally {
		await browser.close();
	}
})().catch(e => { console.error(e); process.exit(1); });
