// SARIF 2.1.0 from `argus verify --format sarif`, `argus bench --sarif` and argusd's
// `argus/verify` with "format": "sarif", each validated against the official SARIF 2.1.0
// JSON schema (rtm.5, as shipped in the npm package @microsoft/jest-sarif, MIT; not
// copied into the repository) with ajv (draft-04, as the schema is written).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { ARGUSD, startStdio, initialize, stop, tempDir } from './lib.mjs';

const require = createRequire(import.meta.url);
const Ajv = require('ajv');
const draft04 = require('ajv/lib/refs/json-schema-draft-04.json');
const schema = require('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json');

const here = path.dirname(fileURLToPath(import.meta.url));
const examples = path.resolve(here, '../../examples');
const ARGUS = path.join(path.dirname(ARGUSD), 'argus');

const ajv = new Ajv({ schemaId: 'id', allErrors: true, unknownFormats: 'ignore' });
ajv.addMetaSchema(draft04);
const validate = ajv.compile(schema);

function valid(log) {
  const ok = validate(log);
  assert.ok(ok, JSON.stringify(validate.errors, null, 1));
  assert.equal(log.version, '2.1.0');
  assert.equal(log.runs.length, 1);
  assert.equal(log.runs[0].tool.driver.name, 'Argus');
  assert.ok(log.runs[0].tool.driver.rules.some((r) => r.id === 'unreach-call'));
}

function verifySarif(file, ...extra) {
  const out = execFileSync(ARGUS, ['verify', file, '--format', 'sarif', ...extra], { encoding: 'utf8' });
  return JSON.parse(out);
}

test('the schema rejects what it should (the validator is live)', () => {
  assert.equal(validate({ version: '2.1.0', runs: [{ tool: {} }] }), false);
  assert.equal(validate({ version: '2.1.0', runs: [{ tool: { driver: { name: 'x' } }, results: [{ message: {}, level: 'fatal' }] }] }), false);
});

test('a counterexample is one error result with the path as a code flow', () => {
  const log = verifySarif(path.join(examples, 'pointer_swap.c'));
  valid(log);
  const run = log.runs[0];
  assert.equal(run.results.length, 1);
  const r = run.results[0];
  assert.equal(r.level, 'error');
  assert.equal(r.ruleId, 'unreach-call');
  assert.match(r.message.text, /reach_error\(\) is reachable from main/);
  assert.equal(r.locations[0].physicalLocation.region.startLine, 16);
  const steps = r.codeFlows[0].threadFlows[0].locations;
  assert.ok(steps.length >= 10, `steps: ${steps.length}`);
  assert.equal(steps.at(-1).location.physicalLocation.region.startLine, 16);
  assert.ok(steps.some((s) => s.state && s.state.a0 && s.state.a0.text === '-2147483648'), JSON.stringify(steps.map((s) => s.state)));
  assert.match(r.partialFingerprints['argus/closure/v1'], /^[0-9a-f]+$/);
  const inv = run.invocations[0];
  assert.equal(inv.executionSuccessful, true);
  assert.match(inv.commandLine, /^argus verify .*pointer_swap\.c --format sarif$/);
  assert.ok(inv.startTimeUtc <= inv.endTimeUtc);
});

test('one rule per property: a violation has the rule of the property it violates', () => {
  const file = path.resolve(here, '../data/tasks/double_free.c');
  const log = verifySarif(file, '--property', 'valid-memsafety,no-overflow', '--algorithm', 'bmc');
  valid(log);
  const rules = log.runs[0].tool.driver.rules.map((r) => r.id);
  for (const id of ['unreach-call', 'valid-deref', 'valid-free', 'valid-memtrack', 'valid-memcleanup', 'no-overflow', 'div-by-zero', 'shift'])
    assert.ok(rules.includes(id), `rule ${id} in ${rules}`);
  assert.equal(new Set(rules).size, rules.length);
  const r = log.runs[0].results[0];
  assert.equal(r.ruleId, 'valid-free');
  assert.equal(rules[r.ruleIndex], 'valid-free');
  assert.match(r.message.text, /^valid-free violated at free\(p\)/);
  assert.equal(r.locations[0].physicalLocation.region.startLine, 11);
});

test('a proof has no result; an unknown is a note saying what was verified', () => {
  const safe = verifySarif(path.join(examples, 'safe_sum.c'));
  valid(safe);
  assert.equal(safe.runs[0].results.length, 0);
  assert.equal(safe.runs[0].properties.verified, 1);

  const dir = tempDir();
  const hard = path.join(dir, 'hard.c');
  fs.writeFileSync(hard, `extern unsigned __VERIFIER_nondet_uint(void);
extern void reach_error(void);
int main(void) {
  unsigned n = __VERIFIER_nondet_uint(), i = 0, s = 0;
  while (i < n) { i++; s += i; }
  if (2 * s != i * (i + 1)) reach_error();
  return 0;
}
`);
  const log = verifySarif(hard, '--algorithm', 'bmc', '--timeout', '3');
  valid(log);
  assert.equal(log.runs[0].results.length, 1);
  const n = log.runs[0].results[0];
  assert.equal(n.level, 'note');
  assert.match(n.message.text, /^main: unknown; verified for loops .*unrolled <= \d+ times/);
  assert.equal(n.locations[0].physicalLocation.region.startLine, 3);
});

test('the fingerprint survives an edit elsewhere and changes with the function', () => {
  const dir = tempDir();
  const text = fs.readFileSync(path.join(examples, 'pointer_swap.c'), 'utf8');
  const a = path.join(dir, 'a.c'), b = path.join(dir, 'b.c'), c = path.join(dir, 'c.c');
  fs.writeFileSync(a, text);
  fs.writeFileSync(b, '// a comment\n\n\n' + text);  // lines move, the code does not change
  fs.writeFileSync(c, text.replace('a > b + 100', 'a > b + 99'));
  const fp = (f) => verifySarif(f, '--algorithm', 'bmc').runs[0].results[0].partialFingerprints['argus/closure/v1'];
  assert.equal(fp(a), fp(b));
  assert.notEqual(fp(a), fp(c));
});

test('argus bench --sarif writes one log for every task', () => {
  const dir = tempDir();
  const manifest = path.join(dir, 'M.tsv');
  fs.writeFileSync(manifest, 'task\tfile\tcategory\tsource\tproperty\texpected\tdata_model\tnotes\n' +
    ['pointer_swap.c\tfalse', 'safe_sum.c\ttrue', 'switch_state.c\tfalse'].map((l) => {
      const [f, e] = l.split('\t');
      return `ex/${f}\t${path.join(examples, f)}\tex\tlocal\tunreach-call\t${e}\tLP64\t`;
    }).join('\n') + '\n');
  const sarif = path.join(dir, 'bench.sarif');
  const r = spawnSync(ARGUS, ['bench', manifest, '--algorithm', 'bmc', '--timeout', '20', '--out', path.join(dir, 'r.json'), '--sarif', sarif], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const log = JSON.parse(fs.readFileSync(sarif, 'utf8'));
  valid(log);
  const errs = log.runs[0].results.filter((x) => x.level === 'error');
  assert.equal(errs.length, 2);
  assert.deepEqual(log.runs[0].artifacts.length, 3);
  assert.ok(errs.every((x) => x.codeFlows[0].threadFlows[0].locations.length > 0));
});

let d;
after(async () => d && stop(d));

test('argus/verify with "format": "sarif" answers with a valid log', async () => {
  d = startStdio();
  await initialize(d.conn);
  const text = fs.readFileSync(path.join(examples, 'pointer_swap.c'), 'utf8');
  const log = await d.conn.sendRequest('argus/verify', { text, filename: 'pointer_swap.c', format: 'sarif', timeout: 30 });
  valid(log);
  assert.equal(log.runs[0].results[0].level, 'error');
  await assert.rejects(d.conn.sendRequest('argus/verify', { text, filename: 'x.c', format: 'xml' }), (e) => e.code === -32602);
});
