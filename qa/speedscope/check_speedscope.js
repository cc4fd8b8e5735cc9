// check_speedscope.js - validate a pmflame speedscope file against the
// file-format schema shipped in npm's speedscope package (ajv, JSON Schema
// draft-07), then read it back as speedscope's importer does and print,
// stable from run to run, for qa/221.out:
//
//   node check_speedscope.js FILE.speedscope.json [FRAME ...]
//
// schema errors (or "valid"), each profile's name, unit, sample count,
// sum of weights against endValue - startValue, the weight of the samples
// holding each FRAME (counted once per sample), and every sample as
// "profile: root;...;leaf weight", sorted.
'use strict';

const fs = require('fs');
const path = require('path');
const Ajv = require('ajv');

const [file, ...frames] = process.argv.slice(2);
const schemaFile = path.join(path.dirname(require.resolve('speedscope/package.json')),
	'dist/release/file-format-schema.json');
const schema = JSON.parse(fs.readFileSync(schemaFile, 'utf8'));
const doc = JSON.parse(fs.readFileSync(file, 'utf8'));

const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
console.log('schema:', validate(doc) ? 'valid' :
	validate.errors.map((e) => `${e.instancePath} ${e.message}`).join('; '));
console.log('exporter:', doc.exporter, '| active profile:', doc.activeProfileIndex);

// a frame's kind is its file: "name@file", as qa/pprof/read_pprof.js prints
const names = doc.shared.frames.map((f) => (f.file === undefined ? f.name : `${f.name}@${f.file}`));
const lines = [];
for (const p of doc.profiles) {
	let sum = 0;
	const perFrame = new Map();
	p.samples.forEach((stack, i) => {
		const w = p.weights[i];
		const named = stack.map((f) => (f >= 0 && f < names.length ? names[f] : `(bad frame ${f})`));
		sum += w;
		for (const f of frames)
			if (named.includes(f)) perFrame.set(f, (perFrame.get(f) || 0) + w);
		lines.push(`${p.name}: ${named.join(';')} ${w}`);
	});
	console.log(`profile ${p.name}: ${p.type}, unit ${p.unit}, ${p.samples.length} samples,`,
		`weights sum ${sum}, end - start ${p.endValue - p.startValue}`,
		sum === p.endValue - p.startValue && Number.isSafeInteger(sum) ? '(equal)' : '(DIFFERENT)');
	for (const f of frames) console.log(`  frame ${f}: ${perFrame.get(f) || 0}`);
}
for (const l of lines.sort()) console.log(l);
