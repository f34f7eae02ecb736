// argusd latency benchmark (not a timed unit test; prints figures):
//   cold: didOpen of a generated 300-line file with 10 functions →
//         first publishDiagnostics carrying a verification result, and → all final;
//   edit: a one-line edit inside one function → updated diagnostics / all final.
// Targets (issue 6): first diagnostic ≤ 1 s; re-verification ≤ 25 % of the cold time.
// Usage: ARGUSD=build/argusd [DEBOUNCE_MS=n] node tests/e2e/bench/latency.mjs [rounds]
// (DEBOUNCE_MS unset: the daemon's default debounce.)
import assert from 'node:assert/strict';
import { startStdio, initialize, stop, waitFor, sleep, fileUri, settled, positionOf } from '../lib.mjs';
import { generate } from './gen.mjs';

const rounds = Number(process.argv[2] ?? 3);
const text = generate();
const lineCount = text.split('\n').length - 1;
const results = [];

const hasResult = (p) =>
  p.functions.some((f) => ['verified', 'violated', 'conditional', 'error'].includes(f.state));

for (let r = 0; r < rounds; r++) {
  // no store: every round is cold
  const d = startStdio(process.env.DEBOUNCE_MS ? { debounceMs: Number(process.env.DEBOUNCE_MS) } : { debounceMs: null });
  await initialize(d.conn);
  await sleep(500);  // the daemon starts its workers at launch, as an editor would
  const uri = fileUri(`/tmp/argus-bench/latency${r}.c`);
  const t0 = Date.now();
  d.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'c', version: 1, text } });
  await waitFor(() => settled(d.rec, uri, 1), 120000, 'cold verification');
  const tAll = Date.now() - t0;
  const firstDiag = d.rec.diagLog.find((e) => e.p.uri === uri).t - t0;
  const firstResult = d.rec.statusLog.find((e) => e.p.uri === uri && hasResult(e.p)).t - t0;
  const st = d.rec.status.get(uri);
  assert.equal(st.functions.length, 11);
  assert.equal(st.functions.find((f) => f.name === 'f7').state, 'violated');
  const errorsCold = d.rec.diagnostics.get(uri).diagnostics.filter((x) => x.severity === 1).length;

  // One-line edit inside f4 (a different constant in its loop body).
  const pos = positionOf(text, 's = s + i * 4;');
  const runsBefore = Object.fromEntries(st.functions.map((f) => [f.name, f.verifications]));
  const t1 = Date.now();
  d.conn.sendNotification('textDocument/didChange', {
    textDocument: { uri, version: 2 },
    contentChanges: [{ range: { start: pos, end: { line: pos.line, character: pos.character + 14 } }, text: 's = s + i * 5;' }],
  });
  await waitFor(() => d.rec.statusLog.some((e) => e.p.uri === uri && e.p.version === 2), 60000, 'edit picked up');
  const editFirst = d.rec.statusLog.find((e) => e.p.uri === uri && e.p.version === 2 && hasResult(e.p)).t - t1;
  const f4Done = await waitFor(
    () => d.rec.statusLog.find((e) => e.p.uri === uri && e.p.version === 2 && e.p.functions.find((f) => f.name === 'f4').final),
    120000, 'f4 re-verified');
  const editF4 = f4Done.t - t1;
  await waitFor(() => settled(d.rec, uri, 2), 120000, 'edit verification');
  const tEdit = Date.now() - t1;
  const after = d.rec.status.get(uri).functions;
  const reverified = after.filter((f) => f.verifications > runsBefore[f.name]).map((f) => f.name);
  results.push({ firstDiag, firstResult, tAll, editFirst, editF4, tEdit, reverified, errorsCold });
  await stop(d);
}

const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const summary = {
  debounce_ms: process.env.DEBOUNCE_MS ? Number(process.env.DEBOUNCE_MS) : 'daemon default',
  file: { lines: lineCount, functions: 10 },
  rounds,
  median_ms: {
    didOpen_to_first_publishDiagnostics: med(results.map((x) => x.firstDiag)),
    didOpen_to_first_result_diagnostics: med(results.map((x) => x.firstResult)),
    didOpen_to_all_final: med(results.map((x) => x.tAll)),
    edit_to_first_updated_publish: med(results.map((x) => x.editFirst)),
    edit_to_edited_function_final: med(results.map((x) => x.editF4)),
    edit_to_all_final: med(results.map((x) => x.tEdit)),
  },
  reverified_after_edit: results[0].reverified,
  runs: results,
};
summary.edit_vs_cold_ratio = +(summary.median_ms.edit_to_all_final / summary.median_ms.didOpen_to_all_final).toFixed(3);
summary.targets = {
  first_diagnostic_le_1s: summary.median_ms.didOpen_to_first_result_diagnostics <= 1000,
  edit_le_25pct_of_cold: summary.edit_vs_cold_ratio <= 0.25,
};
console.log(JSON.stringify(summary, null, 2));
