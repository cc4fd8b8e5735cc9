// speedscope_app.js - open a pmflame speedscope file in speedscope's own
// app (npm's speedscope package, the built app) in Debian's headless
// chromium, the way `speedscope FILE` does (a script that hands the file
// to speedscope.loadFileFromBase64, named in #localProfilePath), and
// report what the app shows, stable from run to run, for qa/223.out:
//
//   node speedscope_app.js FILE.speedscope.json SCREENSHOT_PREFIX [SYMBOL ...]
//
// the window title, the sandwich view's Total and Self of each SYMBOL (as
// speedscope computes and prints them from our weights), how many symbols
// it lists, and any dialog or page error.  Screenshots: PREFIX-time.png
// (the flame chart) and PREFIX-sandwich.png.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require(path.join(__dirname, '../browser/node_modules/playwright-core'));

const [file, shots, ...symbols] = process.argv.slice(2);
const app = path.join(path.dirname(require.resolve('speedscope/package.json')), 'dist/release/index.html');

function say(...words) {
	console.log(words.join(' '));
}

// The app's sandwich table as {name: [total, self]}.
async function sandwich(page) {
	return page.$$eval('table tr', (rows) => Object.fromEntries(rows
		.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent))
		.filter((cells) => cells.length === 3)
		.map(([total, self, name]) => [name, [total, self]])));
}

async function main() {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qa-speedscope-'));
	const loader = path.join(dir, 'profile.js');
	fs.writeFileSync(loader, `speedscope.loadFileFromBase64(${JSON.stringify(path.basename(file))}, ` +
		`${JSON.stringify(fs.readFileSync(file).toString('base64'))})`);
	const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
		args: ['--no-sandbox', '--disable-gpu', '--allow-file-access-from-files'] });
	const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
	const dialogs = [], errors = [];
	page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
	page.on('pageerror', (e) => errors.push(String(e)));
	await page.goto(`file://${app}#localProfilePath=${loader}`);
	await page.waitForFunction(() => document.title !== 'speedscope', null, { timeout: 30000 })
		.catch(() => {});
	say('title:', await page.title());
	await page.waitForTimeout(500);
	await page.screenshot({ path: `${shots}-time.png` });
	await page.keyboard.press('3');			// the sandwich view
	await page.waitForSelector('table tr td', { timeout: 10000 }).catch(() => {});
	const table = await sandwich(page);
	await page.screenshot({ path: `${shots}-sandwich.png` });
	say('sandwich symbols:', Object.keys(table).length);
	for (const s of symbols)
		say(`  ${s}: total ${table[s] ? table[s][0] : 'absent'}, self ${table[s] ? table[s][1] : 'absent'}`);
	say('dialogs:', dialogs.length ? dialogs.join(' | ') : 'none');
	say('page errors:', errors.length ? errors.join(' | ') : 'none');
	await browser.close();
	fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => { console.error(e); process.exit(1); });
