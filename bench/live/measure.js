// measure.js - the live page in headless chromium for bench/live/run:
//   node measure.js page URL SECONDS   first paint, ms per update (the
//       page's own timer and chromium's TaskDuration), bytes, JS heap
//   node measure.js pages URL N SECONDS   N pages open for SECONDS
//   node measure.js memory URL MINUTES   one page open for MINUTES: a line
//       a minute with the JS heap (as it is, and after a forced GC) and the
//       renderer's RSS, then the peaks
'use strict';
const { chromium } = require('playwright-core');

async function page(url, seconds) {
	const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
	const p = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
	const cdp = await p.context().newCDPSession(p);
	await cdp.send('Performance.enable');
	const t0 = Date.now();
	await p.goto(url);
	await p.waitForFunction(() => Number(document.body.dataset.updates || 0) >= 3, null, { timeout: 30000 });
	const firstData = (Date.now() - t0) / 1000;
	const fcp = await p.evaluate(() => (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime);
	const metric = async n => (await cdp.send('Performance.getMetrics')).metrics.find(m => m.name === n).value;
	// TaskDuration is the main thread's tasks in wall time (a loaded host
	// stretches it); ThreadTime is its CPU time, what the page costs
	const u0 = await p.evaluate(() => Number(document.body.dataset.updates)), task0 = await metric('TaskDuration');
	const cpu0 = await metric('ThreadTime');
	const b0 = await p.evaluate(() => window.stackprofLive.bytes());
	const ms = [], heap = [];
	for (let i = 0; i < seconds; i++) {
		await p.waitForTimeout(1000);
		ms.push(Number(await p.evaluate(() => document.body.dataset.lastMs)));
		if (i % 10 === 0)
			heap.push(Math.round(await metric('JSHeapUsedSize') / 1048576));
	}
	const u1 = await p.evaluate(() => Number(document.body.dataset.updates)), task1 = await metric('TaskDuration');
	const cpu1 = await metric('ThreadTime');
	const b1 = await p.evaluate(() => window.stackprofLive.bytes());
	const frames = await p.evaluate(() => window.stackprofLive.frames().length);
	ms.sort((a, b) => a - b);
	console.log(JSON.stringify({
		fcp_ms: Math.round(fcp), first_data_s: firstData, updates: u1 - u0, frames_drawn: frames,
		update_ms_median: ms[ms.length >> 1], update_ms_p90: ms[Math.floor(ms.length * 0.9)],
		main_thread_ms_per_update: Math.round(1000 * (task1 - task0) / Math.max(1, u1 - u0)),
		main_thread_cpu_ms_per_update: Math.round(1000 * (cpu1 - cpu0) / Math.max(1, u1 - u0)),
		kb_per_s: ((b1 - b0) / 1024 / seconds).toFixed(2), heap_mb: heap
	}));
	await browser.close();
}

async function pages(url, n, seconds) {
	const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
	const ps = [];
	for (let i = 0; i < n; i++) {
		const p = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
		await p.goto(url);
		ps.push(p);
	}
	// the bench times the server's CPU between these two lines
	const b0 = await Promise.all(ps.map(p => p.evaluate(() => window.stackprofLive.bytes())));
	console.error('open');
	await new Promise(r => setTimeout(r, seconds * 1000));
	console.error('closing');
	let bytes = 0;
	for (let i = 0; i < n; i++)
		bytes += await ps[i].evaluate(() => window.stackprofLive.bytes()) - b0[i];
	console.log(JSON.stringify({ pages: n, kb_per_s_per_page: (bytes / 1024 / seconds / n).toFixed(2) }));
	await browser.close();
}

// the resident KB (VmRSS, and RssAnon: the private part, without shared
// code) of this node's descendants that are chromium renderers (the page's
// process: no other tab is open), and how many there are
function rendererRssKb() {
	const fs = require('fs');
	const parent = {}, cmd = {};
	for (const d of fs.readdirSync('/proc')) {
		if (!/^[0-9]+$/.test(d))
			continue;
		try {
			const stat = fs.readFileSync('/proc/' + d + '/stat', 'utf8');
			parent[d] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
			cmd[d] = fs.readFileSync('/proc/' + d + '/cmdline', 'utf8');
		} catch (e) { /* gone meanwhile */ }
	}
	const mine = d => { for (let q = parent[d]; q && q !== '0'; q = parent[q]) if (q === String(process.pid)) return true; return false; };
	const kb = { rss: 0, anon: 0, n: 0 };
	for (const d in cmd)
		if (cmd[d].includes('--type=renderer') && mine(d)) {
			const st = fs.readFileSync('/proc/' + d + '/status', 'utf8');
			kb.rss += Number((/VmRSS:\s+([0-9]+)/.exec(st) || [0, 0])[1]);
			kb.anon += Number((/RssAnon:\s+([0-9]+)/.exec(st) || [0, 0])[1]);
			kb.n++;
		}
	return kb;
}

async function memory(url, minutes) {
	const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
	const p = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
	const cdp = await p.context().newCDPSession(p);
	await cdp.send('Performance.enable');
	await p.goto(url);
	await p.waitForFunction(() => Number(document.body.dataset.updates || 0) >= 3, null, { timeout: 60000 });
	const metric = async n => (await cdp.send('Performance.getMetrics')).metrics.find(m => m.name === n).value;
	const mb = b => Math.round(b / 1048576 * 10) / 10;
	const peak = { heap_mb: 0, heap_gc_mb: 0, renderer_rss_mb: 0, renderer_anon_mb: 0 };
	for (let i = 0; i <= minutes; i++) {
		if (i)
			await p.waitForTimeout(60000);
		const heap = mb(await metric('JSHeapUsedSize'));
		await cdp.send('HeapProfiler.collectGarbage');
		const r = rendererRssKb();
		const row = {
			minute: i, updates: Number(await p.evaluate(() => document.body.dataset.updates)),
			heap_mb: heap, heap_gc_mb: mb(await metric('JSHeapUsedSize')),
			renderer_rss_mb: Math.round(r.rss / 1024), renderer_anon_mb: Math.round(r.anon / 1024),
			renderers: r.n, nodes: await metric('Nodes')
		};
		for (const k in peak)
			peak[k] = Math.max(peak[k], row[k]);
		console.log(JSON.stringify(row));
	}
	console.log('peak: ' + JSON.stringify(peak));
	await browser.close();
}

const [mode, ...a] = process.argv.slice(2);
(mode === 'page' ? page(a[0], Number(a[1])) : mode === 'memory' ? memory(a[0], Number(a[1])) :
	pages(a[0], Number(a[1]), Number(a[2]))).catch(e => {
	console.error(e);
	process.exit(1);
});
