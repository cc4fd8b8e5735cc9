// read_grafana.js - read a pmflame Grafana frame (*.grafana.json) the way
// the flame-graph panel does (@grafana/flamegraph: FlameGraphDataContainer
// requires fields label string|enum, level/value/self number;
// nestedSetToLevels walks the rows depth first under one root) and re-sum
// it.  Prints, stable from run to run, for qa/222.out:
//
//   node read_grafana.js FILE.grafana.json [LABEL ...]
//
// the frame's shape, whether every row's value is its self plus its
// children's values, the root's value against the sum of all selfs, the
// value of each LABEL (rows nested in a row of the same label counted
// once), and every row with self as "root;...;leaf self", sorted.
// No npm package: @grafana/data needs a browser environment to load.
'use strict';

const fs = require('fs');

const [file, ...labels] = process.argv.slice(2);
const frames = JSON.parse(fs.readFileSync(file, 'utf8'));
if (!Array.isArray(frames) || frames.length !== 1 || !frames[0].schema || !frames[0].data)
	throw new Error('not an array of one DataFrameJSON frame');
const { schema, data } = frames[0];
const want = { label: ['string', 'enum'], level: ['number'], value: ['number'], self: ['number'] };
const col = {};
schema.fields.forEach((f, i) => {
	if (want[f.name] && want[f.name].includes(f.type)) col[f.name] = data.values[i];
});
console.log('frame:', schema.name, '| fields:', schema.fields.map((f) => `${f.name}:${f.type}`).join(' '),
	'| visualisation:', schema.meta && schema.meta.preferredVisualisationType,
	'| unit:', (schema.fields.find((f) => f.name === 'value').config || {}).unit);
for (const k of Object.keys(want))
	if (!col[k]) throw new Error(`field ${k} missing or of the wrong type`);
const n = col.level.length;
if (![col.value, col.self, col.label].every((c) => c.length === n)) throw new Error('ragged columns');

// depth first: a row's parent is the last row one level up
const parent = new Array(n), sums = col.self.slice(), path = [], lines = [];
let roots = 0, order = true, selfs = 0;
const perLabel = new Map();
for (let i = 0; i < n; i++) {
	const d = col.level[i];
	if (!Number.isSafeInteger(col.value[i]) || !Number.isSafeInteger(col.self[i])) order = false;
	if (i > 0 ? d > col.level[i - 1] + 1 : d !== 0) order = false;
	path.length = d;
	parent[i] = d ? path[d - 1] : -1;
	roots += d === 0;
	if (d) sums[parent[i]] += col.value[i];
	const names = path.map((j) => col.label[j]);
	if (labels.includes(col.label[i]) && !names.includes(col.label[i]))
		perLabel.set(col.label[i], (perLabel.get(col.label[i]) || 0) + col.value[i]);
	path.push(i);
	selfs += col.self[i];
	if (col.self[i]) lines.push(`${names.concat(col.label[i]).join(';')} ${col.self[i]}`);
}
const bad = sums.filter((v, i) => v !== col.value[i]).length;
console.log(`rows: ${n}, roots: ${roots}, depth-first levels: ${order ? 'yes' : 'NO'},`,
	`value = self + children: ${bad ? `${bad} rows DIFFER` : 'every row'}`);
console.log(`root value ${n ? col.value[0] : 0}, sum of selfs ${selfs}`);
for (const l of labels) console.log(`  label ${l}: ${perLabel.get(l) || 0}`);
for (const l of lines.sort()) console.log(l);
