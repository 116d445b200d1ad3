// Validates an AsyncAPI document as `asyncapi validate --fail-severity warn` does, with the same
// library (@asyncapi/parser and its Spectral ruleset) but without the 1.5 GB command-line tool.
// Usage: node tools/asyncapi/validate.mjs FILE
// Prints one line per diagnostic (severity, rule, path, message) and a summary line; exits 1 when
// there is an error or a warning (info and hint lines, such as "a newer AsyncAPI version exists",
// are printed but do not fail), 2 when the file cannot be read.
import { readFileSync } from 'node:fs';
import { Parser } from '@asyncapi/parser';

const SEVERITY = ['error', 'warning', 'info', 'hint'];
const file = process.argv[2];
if (!file) {
  console.error('usage: node validate.mjs FILE');
  process.exit(2);
}
let text;
try {
  text = readFileSync(file, 'utf8');
} catch (error) {
  console.error(`${file}: ${error.message}`);
  process.exit(2);
}
const diagnostics = await new Parser().validate(text, { source: file });
const counts = [0, 0, 0, 0];
for (const diagnostic of diagnostics) {
  counts[diagnostic.severity] += 1;
  const where = diagnostic.path.length ? diagnostic.path.join('.') : '(document)';
  console.log(`${SEVERITY[diagnostic.severity]}\t${diagnostic.code}\t${where}\t${diagnostic.message}`);
}
const failed = counts[0] + counts[1] > 0;
console.log(`${file} is ${failed ? 'invalid' : 'valid'}: ${counts[0]} errors, ${counts[1]} warnings, ` +
            `${counts[2]} infos, ${counts[3]} hints`);
process.exit(failed ? 1 : 0);
