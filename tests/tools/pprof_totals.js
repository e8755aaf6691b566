// pprof_totals.js DIR FILE.pb.gz [TYPE]: decode a pprof profile with the
// npm package pprof-format (installed in DIR by the test set-up), an
// encoder and decoder independent of proftools, and print per function
// "name<TAB>self<TAB>total" of the sample type TYPE (default: the
// profile's default_sample_type, else the last), sorted by name; on
// stderr a summary "types=a/unit,b/unit default=T samples=N ... mappings=
// FILE@BUILD_ID:FN@ADDR+FN@ADDR,..." (the locations of each mapping).
// Self: the leaf frame's function; total: each function once per sample.
'use strict';
const fs = require('fs');
const zlib = require('zlib');
const path = require('path');
const { Profile } = require(path.join(process.argv[2], 'node_modules', 'pprof-format'));

let data = fs.readFileSync(process.argv[3]);
if (data[0] === 0x1f && data[1] === 0x8b)
	data = zlib.gunzipSync(data);
const p = Profile.decode(data);
const str = (i) => p.stringTable.strings[Number(i)];
const types = p.sampleType.map((t) => str(t.type) + '/' + str(t.unit));
let k = p.sampleType.length - 1;
const want = process.argv[4] || (p.defaultSampleType ? str(p.defaultSampleType) : '');
if (want) {
	k = p.sampleType.findIndex((t) => str(t.type) === want);
	if (k < 0) {
		console.error('no sample type ' + want);
		process.exit(1);
	}
}
const fnName = new Map(p.function.map((f) => [Number(f.id), str(f.name)]));
const locFns = new Map(p.location.map((l) => [Number(l.id), l.line.map((ln) => fnName.get(Number(ln.functionId)))]));
const self = new Map(), total = new Map();
const add = (m, k2, v) => m.set(k2, (m.get(k2) || 0n) + v);
for (const s of p.sample) {
	const v = BigInt(s.value[k]);
	const names = [];
	for (const id of s.locationId)	// leaf first
		names.push(...locFns.get(Number(id)));
	if (!names.length)
		continue;
	add(self, names[0], v);
	for (const n of new Set(names))
		add(total, n, v);
}
console.error('types=' + types.join(',') + ' default=' + (p.defaultSampleType ? str(p.defaultSampleType) : '') +
	' samples=' + p.sample.length + ' period=' + p.period + ' period_type=' +
	(p.periodType ? str(p.periodType.type) + '/' + str(p.periodType.unit) : '') +
	' time_nanos=' + p.timeNanos + ' duration_nanos=' + p.durationNanos +
	' mappings=' + p.mapping.map((m) => str(m.filename) + '@' + str(m.buildId) + ':' +
		p.location.filter((l) => Number(l.mappingId) === Number(m.id)).map((l) =>
			l.line.map((ln) => fnName.get(Number(ln.functionId))).join('+') + '@' +
			Number(l.address).toString(16)).sort().join('+')).join(','));
const out = [...total.keys()].sort().map((n) => n + '\t' + (self.get(n) || 0n) + '\t' + total.get(n));
process.stdout.write(out.join('\n') + (out.length ? '\n' : ''));
