// Witnesses of a whole bench run (issue 24; a measurement, not a timed test): for every
// task the run decided correctly (`argus bench --witness-dir DIR --out RESULTS`), the
// witness file exists, parses (npm `yaml`), is valid against the format-2.0 schema in
// tests/data/witness/ (ajv, as tests/e2e/witness.test.mjs), and `argus validate`
// confirms it. Prints one line per witness that is missing, invalid or not confirmed
// (with the validator's notes and failing invariants), then the counts per kind; writes
// the per-task records as JSON when --out is given.
// Usage: node tests/e2e/bench/witnesses.mjs RESULTS.json DIR [--argus build/argus]
//        [--timeout 30] [--jobs 2] [--verdict true|false] [--out FILE]
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const Ajv = require('ajv');
const YAML = require('yaml');

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
function option(name, fallback) {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
}
const ARGUS = option('--argus', path.resolve(here, '../../../build/argus'));
const TIMEOUT = Number(option('--timeout', '30'));
const JOBS = Number(option('--jobs', String(Math.max(1, Math.min(2, os.cpus().length)))));
const OUT = option('--out', null);
const ONLY = option('--verdict', null);  // only the tasks decided true (or false)
if (args.length !== 2) {
  console.error('usage: node tests/e2e/bench/witnesses.mjs RESULTS.json DIR [--argus A] [--timeout S] [--jobs N] [--out F]');
  process.exit(2);
}
const [resultsFile, dir] = args;
const schema = JSON.parse(fs.readFileSync(path.resolve(here, '../../data/witness/witness-2.0.schema.json'), 'utf8'));
const ajv = new Ajv({ allErrors: true, unknownFormats: 'ignore' });
const valid = ajv.compile(schema);

const results = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
const decided = results.tasks.filter((t) => (t.result === 'correct_true' || t.result === 'correct_false') &&
  (!ONLY || t.verdict === ONLY));
const wrong = results.tasks.filter((t) => t.result === 'wrong_true' || t.result === 'wrong_false');

function run(argv) {
  return new Promise((resolve) => {
    const child = spawn(ARGUS, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('close', (status) => resolve({ status, out, err }));
  });
}

async function check(t) {
  const file = path.join(dir, t.task.replaceAll('/', '__') + '.yml');
  const rec = { task: t.task, verdict: t.verdict, data_model: t.data_model, witness: file };
  if (!fs.existsSync(file)) return { ...rec, status: 'missing' };
  let doc;
  try {
    doc = YAML.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    return { ...rec, status: 'unparsable', detail: String(e.message).split('\n')[0] };
  }
  if (!valid(doc)) return { ...rec, status: 'schema-invalid', detail: JSON.stringify(valid.errors.slice(0, 3)) };
  rec.entry_type = doc[0]?.entry_type;
  rec.invariants = rec.entry_type === 'invariant_set' ? (doc[0].content ?? []).length : undefined;
  const started = process.hrtime.bigint();
  const r = await run(['validate', '--witness', file, t.file, '--data-model', t.data_model,
    '--timeout', String(TIMEOUT), '--format', 'json']);
  rec.validate_s = Number(process.hrtime.bigint() - started) / 1e9;
  let v;
  try {
    v = JSON.parse(r.out);
  } catch {
    return { ...rec, status: 'validator-error', detail: (r.err || r.out).trim().split('\n').slice(-2).join(' | ') };
  }
  rec.validator = v.witness;
  rec.notes = v.notes;
  rec.failed_invariants = v.failed_invariants;
  rec.status = v.witness === 'confirmed' && v.verdict === t.verdict ? 'confirmed' : `not confirmed (${v.witness})`;
  return rec;
}

const records = [];
let next = 0;
async function worker() {
  while (next < decided.length) {
    const t = decided[next++];
    const rec = await check(t);
    records.push(rec);
    const n = records.length;
    if (rec.status !== 'confirmed') {
      const why = rec.detail ?? [...(rec.failed_invariants ?? []).map((f) => JSON.stringify(f)), ...(rec.notes ?? [])].join('; ');
      console.log(`[${n}/${decided.length}] ${rec.task} (${rec.verdict}): ${rec.status}: ${why.slice(0, 400)}`);
    } else if (process.stderr.isTTY) {
      process.stderr.write(`\r[${n}/${decided.length}] ${rec.task}`.padEnd(90));
    }
  }
}
await Promise.all(Array.from({ length: JOBS }, worker));
if (process.stderr.isTTY) process.stderr.write('\n');

function counts(kind) {
  const rs = records.filter((r) => r.verdict === kind);
  const by = {};
  for (const r of rs) by[r.status] = (by[r.status] ?? 0) + 1;
  return { total: rs.length, by };
}
const summary = {
  results: resultsFile,
  decided_correctly: decided.length,
  wrong_verdicts_skipped: wrong.map((t) => t.task),
  violation: counts('false'),
  correctness: counts('true'),
};
const pct = (c) => (c.total ? (100 * (c.by.confirmed ?? 0) / c.total).toFixed(1) : '-');
console.log(`violation witnesses: ${summary.violation.total}, ${JSON.stringify(summary.violation.by)} (${pct(summary.violation)} % confirmed)`);
console.log(`correctness witnesses: ${summary.correctness.total}, ${JSON.stringify(summary.correctness.by)} (${pct(summary.correctness)} % confirmed)`);
if (OUT) fs.writeFileSync(OUT, JSON.stringify({ summary, records: records.sort((a, b) => a.task.localeCompare(b.task)) }, null, 1) + '\n');
