// speedscope_check.js DIR FILE.json: validate a speedscope document
// against the JSON schema the npm package speedscope ships
// (dist/release/file-format-schema.json), with ajv, both installed in DIR
// by the test set-up. Prints "valid" and per function
// "name<TAB>self" (its weight as the leaf, summed over profiles), sorted
// by name; on failure the schema errors on stderr, exit 1.
'use strict';
const fs = require('fs');
const path = require('path');
const mods = path.join(process.argv[2], 'node_modules');
const Ajv = require(path.join(mods, 'ajv'));
const schema = JSON.parse(fs.readFileSync(path.join(mods, 'speedscope', 'dist', 'release',
	'file-format-schema.json'), 'utf8'));
const doc = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile({ ...schema, $ref: '#/definitions/FileFormat.File' });
if (!validate(doc)) {
	console.error(JSON.stringify(validate.errors).slice(0, 2000));
	process.exit(1);
}
const self = new Map();
for (const p of doc.profiles) {
	if (p.samples.length !== p.weights.length) {
		console.error('profile ' + p.name + ': samples and weights differ in length');
		process.exit(1);
	}
	p.samples.forEach((s, i) => {
		if (s.length) {
			const n = doc.shared.frames[s[s.length - 1]].name;
			self.set(n, (self.get(n) || 0) + p.weights[i]);
		}
	});
}
console.log('valid');
for (const n of [...self.keys()].sort())
	console.log(n + '\t' + self.get(n));
