// read_pprof.js - read a pmflame pprof file (*.pb.gz) with Datadog's
// pprof-format, a decoder independent of ours, and print what a pprof
// user would see, stable from run to run, for qa/220.out:
//
//   node read_pprof.js FILE.pb.gz [FRAME ...]
//
// the header (types, period, times), whether every reference resolves,
// the totals of each sample type, per process and thread label, per FRAME
// (samples whose stack holds it, counted once), and every sample as
// "process|thread|root;...;leaf values", sorted.  A frame outside the
// program (the first Mapping, which pprof takes for the main binary) is
// "name@file" of its Mapping: the kind of a frame is its Mapping there.
'use strict';

const fs = require('fs');
const zlib = require('zlib');
const { Profile } = require('pprof-format');

const [file, ...frames] = process.argv.slice(2);
const gz = fs.readFileSync(file);
console.log('gzip magic:', gz[0] === 0x1f && gz[1] === 0x8b ? 'yes' : 'no');
const p = Profile.decode(zlib.gunzipSync(gz));
const s = p.stringTable.strings;
const str = (i) => (i >= 0 && i < s.length ? s[Number(i)] : `(bad string ${i})`);

console.log('string_table[0] empty:', s[0] === '' ? 'yes' : 'no');
console.log('sample types:', p.sampleType.map((t) => `${str(t.type)}/${str(t.unit)}`).join(' '));
console.log('default sample type:', str(p.defaultSampleType));
console.log('period:', `${str(p.periodType.type)}/${str(p.periodType.unit)}`, String(p.period));
console.log('time_nanos:', String(p.timeNanos), 'duration_nanos:', String(p.durationNanos));
console.log('comments:', p.comment.map(str).join(' / '));

// every id must resolve, ids are nonzero and unique
const problems = [];
const functions = new Map();
for (const f of p.function) {
	if (!f.id || functions.has(String(f.id))) problems.push(`function id ${f.id}`);
	functions.set(String(f.id), str(f.name));
}
const mappings = new Map();
for (const m of p.mapping) {
	if (!m.id || mappings.has(String(m.id))) problems.push(`mapping id ${m.id}`);
	mappings.set(String(m.id), str(m.filename));
}
console.log('mappings:', p.mapping.map((m) => `${m.id} ${str(m.filename)}`).join(', '));
const program = p.mapping.length ? String(p.mapping[0].id) : null;
const locations = new Map();
for (const l of p.location) {
	if (!l.id || locations.has(String(l.id))) problems.push(`location id ${l.id}`);
	if (l.line.length !== 1 || !functions.has(String(l.line[0].functionId)))
		problems.push(`location ${l.id} lines`);
	if (!mappings.has(String(l.mappingId))) problems.push(`location ${l.id} mapping`);
	const name = l.line.length ? functions.get(String(l.line[0].functionId)) : '?';
	locations.set(String(l.id), String(l.mappingId) === program ? name
		: `${name}@${mappings.get(String(l.mappingId))}`);
}
for (const x of p.sample) {
	for (const id of x.locationId)
		if (!locations.has(String(id))) problems.push(`sample location ${id}`);
	if (x.value.length !== p.sampleType.length) problems.push('sample values');
}
console.log('references:', problems.length ? problems.join(', ') : 'all resolve');

const add = (a, v) => v.map((x, i) => (a ? a[i] : 0n) + BigInt(x));
const label = (x, key) => {
	const l = x.label.find((l) => str(l.key) === key);
	return l === undefined ? '-' : l.str ? str(l.str) : String(l.num);
};
let total = null;
const byLabel = new Map(), byFrame = new Map(), lines = [];
for (const x of p.sample) {
	const stack = x.locationId.map((id) => locations.get(String(id))).reverse();
	total = add(total, x.value);
	for (const key of ['process', 'thread', 'pid']) {
		const k = `${key}=${label(x, key)}`;
		if (!k.endsWith('=-')) byLabel.set(k, add(byLabel.get(k), x.value));
	}
	for (const f of frames)
		if (stack.includes(f)) byFrame.set(f, add(byFrame.get(f), x.value));
	lines.push(`${label(x, 'process')}|${label(x, 'thread')}|${stack.join(';')} ${x.value.join(' ')}`);
}
console.log('samples:', p.sample.length);
console.log('total:', (total || []).join(' '));
for (const k of [...byLabel.keys()].sort()) console.log(`  ${k}:`, byLabel.get(k).join(' '));
for (const f of frames) console.log(`  frame ${f}:`, (byFrame.get(f) || ['none']).join(' '));
for (const l of lines.sort()) console.log(l);
