// SV-COMP witnesses 2.0 from `argus verify --witness-out` and `argus bench --witness-dir`:
// parsed with the npm `yaml` parser and validated with ajv against the format-2.0 schema
// in tests/data/witness/ (a draft-07 transcription of the sv-witnesses documentation,
// Apache-2.0; see its NOTICE.md), plus the rules the schema does not state: one `follow`
// waypoint ends each segment, the `target` ends the last one, every location points where
// the format says (a function_return at the call's ')', the target at the error call),
// the file hash is the input's SHA-256, the values are the counterexample's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { ARGUSD, tempDir } from './lib.mjs';

const require = createRequire(import.meta.url);
const Ajv = require('ajv');
const YAML = require('yaml');

const here = path.dirname(fileURLToPath(import.meta.url));
const examples = path.resolve(here, '../../examples');
const schema = JSON.parse(fs.readFileSync(path.resolve(here, '../data/witness/witness-2.0.schema.json'), 'utf8'));
const ARGUS = path.join(path.dirname(ARGUSD), 'argus');

const ajv = new Ajv({ allErrors: true, unknownFormats: 'ignore' });
const validate = ajv.compile(schema);

const sha256 = (file) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

// Parses and validates a witness file; checks the metadata against the input file.
function load(witnessFile, inputFile, inputArg) {
  const doc = YAML.parse(fs.readFileSync(witnessFile, 'utf8'));
  assert.ok(validate(doc), JSON.stringify(validate.errors, null, 1));
  assert.equal(doc.length, 1);
  const m = doc[0].metadata;
  assert.equal(m.format_version, '2.0');
  assert.equal(m.producer.name, 'Argus');
  assert.deepEqual(m.task.input_files, [inputArg]);
  assert.equal(m.task.input_file_hashes[inputArg], sha256(inputFile));
  assert.match(m.task.specification, /^CHECK\( init\(main\(\)\), LTL\(G ! call\(reach_error\(\)\)\) \)$/);
  assert.ok(!Number.isNaN(Date.parse(m.creation_time)));
  return doc[0];
}

// The format's rules on a violation sequence that the schema leaves to the prose.
function checkSequence(entry, source) {
  const lines = source.split('\n');
  const segs = entry.content.map((s) => s.segment.map((w) => w.waypoint));
  segs.forEach((ws, i) => {
    const follows = ws.filter((w) => w.action === 'follow');
    assert.equal(follows.length, 1, `segment ${i}: one follow waypoint`);
    assert.equal(ws.at(-1).action, 'follow', `segment ${i} ends with its follow waypoint`);
    const targets = ws.filter((w) => w.type === 'target');
    assert.equal(targets.length, i === segs.length - 1 ? 1 : 0, `segment ${i}: target only at the end`);
    for (const w of ws) {
      const text = lines[w.location.line - 1] ?? '';
      if (w.type === 'function_return') assert.equal(text[w.location.column - 1], ')', `${JSON.stringify(w)} on '${text}'`);
    }
  });
  return segs;
}

function run(args) {
  return spawnSync(ARGUS, args, { encoding: 'utf8' });
}

test('the schema rejects what it should (the validator is live)', () => {
  assert.equal(validate([]), false);
  assert.equal(validate([{ entry_type: 'violation_sequence', metadata: {}, content: [] }]), false);
  const bad = {
    entry_type: 'violation_sequence',
    metadata: {
      format_version: '2.0', uuid: '00000000-0000-4000-8000-000000000000', creation_time: '2026-01-01T00:00:00Z',
      producer: { name: 'x', version: '1' },
      task: { input_files: ['a.c'], input_file_hashes: { 'a.c': 'ab' }, specification: 's', data_model: 'LP64', language: 'C' },
    },
    content: [{ segment: [{ waypoint: { type: 'target', action: 'follow', location: { file_name: 'a.c', line: 1 } } }] }],
  };
  assert.equal(validate([bad]), false, 'a short hash is not SHA-256');
  bad.metadata.task.input_file_hashes['a.c'] = 'a'.repeat(64);
  assert.equal(validate([bad]), true, JSON.stringify(validate.errors));
  bad.content[0].segment[0].waypoint.type = 'function_return';  // needs a constraint
  assert.equal(validate([bad]), false);
});

test('a false gives a violation sequence: the nondet values as function returns, then the target', () => {
  const dir = tempDir();
  const input = path.join(examples, 'pointer_swap.c');
  const out = path.join(dir, 'w.yml');
  const r = run(['verify', input, '--algorithm', 'bmc', '--format', 'json', '--witness-out', out]);
  assert.equal(r.status, 0, r.stderr);
  const res = JSON.parse(r.stdout);
  assert.equal(res.verdict, 'false');
  const entry = load(out, input, input);
  assert.equal(entry.entry_type, 'violation_sequence');
  const source = fs.readFileSync(input, 'utf8');
  const segs = checkSequence(entry, source);
  const target = segs.at(-1).at(-1);
  assert.equal(target.type, 'target');
  assert.equal(target.location.line, 16);
  assert.equal(source.split('\n')[15].slice(target.location.column - 1).startsWith('reach_error()'), true);
  const returns = segs.flat().filter((w) => w.type === 'function_return');
  const inputs = res.counterexample.inputs;
  assert.equal(returns.length, inputs.length);
  returns.forEach((w, i) => {
    assert.equal(w.location.line, inputs[i].line);
    const v = BigInt(inputs[i].value), width = BigInt(inputs[i].width);
    const signed = inputs[i].signed && v >= (1n << (width - 1n)) ? v - (1n << width) : v;
    assert.equal(w.constraint.value, `\\result == ${signed}`);
    assert.equal(w.constraint.format, 'acsl_expression');
  });
  // two calls on line 12: the waypoints point at different closing parentheses
  assert.notEqual(returns[0].location.column, returns[1].location.column);
});

test('a true gives an invariant set with the proof\'s loop invariants in C', () => {
  const dir = tempDir();
  const input = path.join(dir, 'loop.c');
  fs.writeFileSync(input, `extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int main(void) {
  int x = 0;
  int y = 0;
  int n = __VERIFIER_nondet_int();
  while (x < n) {
    x++;
    if (y < 100) y++;
  }
  if (y > 100) reach_error();
  return 0;
}
`);
  for (const alg of ['kind', 'kiki']) {
    const out = path.join(dir, `${alg}.yml`);
    const r = run(['verify', input, '--algorithm', alg, '--witness-out', out]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /VERDICT: true/);
    const entry = load(out, input, input);
    assert.equal(entry.entry_type, 'invariant_set');
    assert.equal(entry.content.length, 1);
    const inv = entry.content[0].invariant;
    assert.equal(inv.type, 'loop_invariant');
    assert.deepEqual([inv.location.line, inv.location.column, inv.location.function], [7, 3, 'main']);  // the `while`
    assert.match(inv.value, /y <= 100/);
    assert.doesNotMatch(inv.value, /__|@/);  // only the program's own names
    assert.equal(inv.format, 'c_expression');
    // the invariant is a C expression over the loop's variables: it compiles there
    const probe = path.join(dir, `probe-${alg}.c`);
    fs.writeFileSync(probe, `int f(int x, int y, int n) { return ${inv.value}; }\n`);
    const cc = spawnSync('cc', ['-fsyntax-only', '-Werror', '-Wall', probe], { encoding: 'utf8' });
    assert.equal(cc.status, 0, cc.stderr);
  }
});

test('an unknown gives no witness (and removes an old one)', () => {
  const dir = tempDir();
  const input = path.join(dir, 'hard.c');
  fs.writeFileSync(input, `extern unsigned __VERIFIER_nondet_uint(void);
extern void reach_error(void);
int main(void) {
  unsigned n = __VERIFIER_nondet_uint(), i = 0, s = 0;
  while (i < n) { i++; s += i; }
  if (2 * s != i * (i + 1)) reach_error();
  return 0;
}
`);
  const out = path.join(dir, 'w.yml');
  fs.writeFileSync(out, 'stale');
  const r = run(['verify', input, '--algorithm', 'bmc', '--timeout', '3', '--witness-out', out]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /VERDICT: unknown/);
  assert.equal(fs.existsSync(out), false);
});

test('argus bench --witness-dir writes one valid witness per decided task', () => {
  const dir = tempDir();
  const manifest = path.join(dir, 'M.tsv');
  const tasks = [['pointer_swap.c', 'false'], ['safe_sum.c', 'true'], ['switch_state.c', 'false']];
  fs.writeFileSync(manifest, 'task\tfile\tcategory\tsource\tproperty\texpected\tdata_model\tnotes\n' +
    tasks.map(([f, e]) => `ex/${f}\t${path.join(examples, f)}\tex\tlocal\tunreach-call\t${e}\tILP32\t`).join('\n') + '\n');
  const wdir = path.join(dir, 'witnesses');
  const r = spawnSync(ARGUS, ['bench', manifest, '--algorithm', 'bmc', '--timeout', '20', '--out', path.join(dir, 'r.json'),
    '--witness-dir', wdir], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const files = fs.readdirSync(wdir).sort();
  assert.deepEqual(files, ['ex__pointer_swap.c.yml', 'ex__safe_sum.c.yml', 'ex__switch_state.c.yml']);
  for (const [f, expected] of tasks) {
    const input = path.join(examples, f);
    const entry = load(path.join(wdir, `ex__${f}.yml`), input, input);
    assert.equal(entry.metadata.task.data_model, 'ILP32');
    assert.equal(entry.entry_type, expected === 'false' ? 'violation_sequence' : 'invariant_set');
    if (expected === 'false') checkSequence(entry, fs.readFileSync(input, 'utf8'));
  }
});

function validateWitness(witness, input) {
  const r = run(['validate', '--witness', witness, input, '--format', 'json', '--timeout', '30']);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('argus validate confirms Argus\'s violation witnesses and rejects a wrong value', () => {
  const dir = tempDir();
  for (const f of ['pointer_swap.c', 'switch_state.c']) {
    const input = path.join(examples, f);
    const out = path.join(dir, `${f}.yml`);
    assert.equal(run(['verify', input, '--witness-out', out]).status, 0);
    const v = validateWitness(out, input);
    assert.equal(v.witness, 'confirmed', JSON.stringify(v));
    assert.equal(v.verdict, 'false');
    assert.match(v.notes.join('\n'), new RegExp(`reaches the error at ${f}:\\d+`));
  }
  // pointer_swap with both values 0: the run the witness fixes ends without the error
  const swap = fs.readFileSync(path.join(dir, 'pointer_swap.c.yml'), 'utf8');
  const zero = path.join(dir, 'zero.yml');
  fs.writeFileSync(zero, swap.replace(/\\\\result == -?\d+/g, '\\\\result == 0'));
  const z = validateWitness(zero, path.join(examples, 'pointer_swap.c'));
  assert.equal(z.witness, 'rejected', JSON.stringify(z));
  assert.equal(z.verdict, 'unknown');
  // switch_state needs inputs 1, 2, 3: with 4 for the last one the loop goes on to a
  // call the witness leaves open, so the run shows nothing either way
  const good = fs.readFileSync(path.join(dir, 'switch_state.c.yml'), 'utf8');
  assert.match(good, /\\\\result == 3/);
  const bad = path.join(dir, 'bad.yml');
  fs.writeFileSync(bad, good.replace('\\\\result == 3', '\\\\result == 4'));
  const v = validateWitness(bad, path.join(examples, 'switch_state.c'));
  assert.equal(v.witness, 'unknown', JSON.stringify(v));
  assert.match(v.notes.join('\n'), /leaves open were taken as 0/);
  // a witness the validator cannot follow is unknown, not a guess
  const other = path.join(dir, 'other.yml');
  fs.writeFileSync(other, good.replace('type: "function_return"', 'type: "function_enter"'));
  assert.equal(validateWitness(other, path.join(examples, 'switch_state.c')).witness, 'unknown');
});

test('values no call returns (an uninitialised local, scanf input) become assumption waypoints that argus validate follows', () => {
  const dir = tempDir();
  const input = path.join(dir, 'open.c');
  fs.writeFileSync(input, `#include <stdio.h>
extern void reach_error(void);
int main(void) {
  int n;
  long long big = 0;
  double d = 0;
  if (n != 7) return 0;
  if (scanf("%lld", &big) != 1) return 0;
  if (big != 5000000000LL) return 0;
  if (scanf("%lf", &d) != 1) return 0;
  if (d == 0.0) return 0;
  reach_error();
  return 0;
}
`);
  const out = path.join(dir, 'w.yml');
  const r = run(['verify', input, '--algorithm', 'bmc', '--data-model', 'LP64', '--witness-out', out]);
  assert.match(r.stdout, /VERDICT: false/, r.stdout + r.stderr);
  const entry = load(out, input, input);
  const segs = checkSequence(entry, fs.readFileSync(input, 'utf8'));
  const assumptions = segs.flat().filter((w) => w.type === 'assumption');
  const values = assumptions.map((w) => w.constraint.value);
  assert.ok(values.includes('n == 7'), JSON.stringify(values));
  assert.ok(values.includes('big == 5000000000'), JSON.stringify(values));
  assert.ok(values.some((v) => /^d == /.test(v) && v !== 'd == 0'), JSON.stringify(values));
  for (const w of assumptions) assert.equal(w.constraint.format, 'c_expression');
  // each stands before the statement after the choice: n's at line 5, big's at line 9
  assert.equal(assumptions.find((w) => w.constraint.value === 'n == 7').location.line, 5);
  assert.equal(assumptions.find((w) => w.constraint.value === 'big == 5000000000').location.line, 9);
  const v = validateWitness(out, input);
  assert.equal(v.witness, 'confirmed', JSON.stringify(v));
  // n == 8: the run the witness now fixes returns early, nowhere near the target
  const text = fs.readFileSync(out, 'utf8');
  const bad = path.join(dir, 'bad.yml');
  fs.writeFileSync(bad, text.replace('n == 7', 'n == 8'));
  const b = validateWitness(bad, input);
  assert.notEqual(b.witness, 'confirmed', JSON.stringify(b));
  assert.match(b.notes.join('\n'), /ends without an error/);
  // another value for what scanf reads: the run reads it and returns at line 9
  const lie = path.join(dir, 'lie.yml');
  fs.writeFileSync(lie, text.replace('big == 5000000000', 'big == 5000000001'));
  const l = validateWitness(lie, input);
  assert.notEqual(l.witness, 'confirmed', JSON.stringify(l));
});

test('a witness with only its target (a path through uninitialised memory) is confirmed by a replayed search, not at another line', () => {
  const dir = tempDir();
  const input = path.join(dir, 'mem.c');
  fs.writeFileSync(input, `extern void reach_error(void);
struct S { int pad; void *p; };
int main(void) {
  struct S s;
  if (s.pad != 0)
    reach_error();
  return 0;
}
`);
  const out = path.join(dir, 'w.yml');
  const r = run(['verify', input, '--algorithm', 'bmc', '--data-model', 'LP64', '--witness-out', out]);
  assert.match(r.stdout, /VERDICT: false/, r.stdout + r.stderr);
  const entry = load(out, input, input);
  assert.deepEqual(checkSequence(entry, fs.readFileSync(input, 'utf8')).flat().map((w) => w.type), ['target']);
  const v = validateWitness(out, input);
  assert.equal(v.witness, 'confirmed', JSON.stringify(v));
  assert.match(v.notes.join('\n'), /only its target/);
  // the same witness pointing at `return 0;`: no error there
  const wrong = path.join(dir, 'wrong.yml');
  fs.writeFileSync(wrong, fs.readFileSync(out, 'utf8').replace(/line: 6/, 'line: 7'));
  const x = validateWitness(wrong, input);
  assert.notEqual(x.witness, 'confirmed', JSON.stringify(x));
});

test('argus validate checks a correctness witness\'s invariants and names the one that fails', () => {
  const dir = tempDir();
  const input = path.join(dir, 'loop.c');
  fs.writeFileSync(input, `extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int main(void) {
  int x = 0;
  int y = 0;
  int n = __VERIFIER_nondet_int();
  while (x < n) {
    x++;
    if (y < 100) y++;
  }
  for (int i = 0; i < 10; i++) x--;
  if (y > 100) reach_error();
  return 0;
}
`);
  const out = path.join(dir, 'w.yml');
  assert.equal(run(['verify', input, '--algorithm', 'kind', '--witness-out', out]).status, 0);
  const ok = validateWitness(out, input);
  assert.equal(ok.witness, 'confirmed', JSON.stringify(ok));
  assert.equal(ok.verdict, 'true');
  assert.deepEqual(ok.failed_invariants, []);
  // one invariant made too strong (y <= 50 fails once the loop ran 51 times), one wrong
  // about the for loop: both are named, the remaining ones hold
  const w = YAML.parse(fs.readFileSync(out, 'utf8'));
  const content = w[0].content;
  const atWhile = content.find((c) => c.invariant.location.line === 7);
  assert.ok(atWhile, JSON.stringify(content));
  atWhile.invariant.value = 'y <= 50';
  content.push({ invariant: { type: 'loop_invariant', location: { file_name: input, line: 11, column: 3, function: 'main' },
    value: 'i <= 5', format: 'c_expression' } });
  content.push({ invariant: { type: 'loop_invariant', location: { file_name: input, line: 11, column: 3, function: 'main' },
    value: 'i >= 0', format: 'c_expression' } });
  const bad = path.join(dir, 'bad.yml');
  fs.writeFileSync(bad, YAML.stringify(w));
  const v = validateWitness(bad, input);
  assert.equal(v.witness, 'rejected', JSON.stringify(v));
  assert.deepEqual(v.failed_invariants.map((f) => f.value).sort(), ['i <= 5', 'y <= 50']);
});

test('a correctness witness names only variables in scope at each loop, and validates', () => {
  const dir = tempDir();
  const input = path.join(dir, 'scopes.c');
  fs.writeFileSync(input, `extern void reach_error(void);
int main(void) {
  int j = 0;
  for (int i = 0; i < 1050; i++) {
    if (i > 2000) reach_error();
  }
  for (; j < 5; j++) {}
  for (int i = 0; i < 3; i++) j++;
  if (j != 8) reach_error();
  return 0;
}
`);
  const out = path.join(dir, 'w.yml');
  const r = run(['verify', input, '--algorithm', 'kind', '--witness-out', out]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /VERDICT: true/);
  const entry = load(out, input, input);
  const byLine = Object.fromEntries(entry.content.map((c) => [c.invariant.location.line, c.invariant.value]));
  // at line 7 no `i` is in scope; the two loops' `i` share a C name, so no invariant names it
  for (const [line, v] of Object.entries(byLine)) assert.doesNotMatch(v, /\bi\b/, `line ${line}: ${v}`);
  const v = validateWitness(out, input);
  assert.equal(v.witness, 'confirmed', JSON.stringify(v));
});

test('validation instruments a for (;;) loop', () => {
  const dir = tempDir();
  const input = path.join(dir, 'forever.c');
  fs.writeFileSync(input, `extern void reach_error(void);
int main(void) {
  int i = 0;
  for (;;) {
    i++;
    if (i == 100) break;
  }
  if (i != 100) reach_error();
  return 0;
}
`);
  const out = path.join(dir, 'w.yml');
  fs.writeFileSync(out, `- entry_type: invariant_set
  metadata:
    format_version: "2.0"
    uuid: 00000000-0000-4000-8000-000000000000
    creation_time: 2026-01-01T00:00:00Z
    producer: {name: hand, version: "1"}
    task:
      input_files: [forever.c]
      input_file_hashes: {}
      specification: CHECK( init(main()), LTL(G ! call(reach_error())) )
      data_model: LP64
      language: C
  content:
    - invariant:
        type: loop_invariant
        location: {file_name: forever.c, line: 4, column: 3, function: main}
        value: 0 <= i && i <= 99
        format: c_expression
`.replace('producer: {name: hand, version: "1"}', 'producer:\n      name: hand\n      version: "1"')
   .replace('input_file_hashes: {}', 'input_file_hashes: {}')
   .replace('location: {file_name: forever.c, line: 4, column: 3, function: main}',
     'location:\n          file_name: forever.c\n          line: 4\n          column: 3\n          function: main'));
  const v = validateWitness(out, input);
  assert.equal(v.witness, 'confirmed', JSON.stringify(v));
  fs.writeFileSync(out, fs.readFileSync(out, 'utf8').replace('i <= 99', 'i <= 50'));
  const w = validateWitness(out, input);
  assert.equal(w.witness, 'rejected', JSON.stringify(w));
  assert.deepEqual(w.failed_invariants.map((f) => f.value), ['0 <= i && i <= 50']);
});
