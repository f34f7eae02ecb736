// argusd on SQLite's amalgamation (issue 28): an editor client (stdio) opens sqlite3.c
// with -DSQLITE_DEBUG (from a compile_commands.json beside it) and reads everything.
// Prints as JSON: seconds until every function has a status, peak resident memory of
// daemon + workers (RSS sum and PSS sum, sampled every 500 ms), bytes received, and
// every minute the counts by state; at the end the counts of unknown/error by reason.
// Usage: ARGUSD=build/argusd node tests/e2e/bench/sqlite.mjs PATH/TO/sqlite3.c [minutes]
//        (scripts/fetch-sqlite.sh fetches sqlite3.c into build/sqlite/)
import fs from 'node:fs';
import path from 'node:path';
import { startStdio, initialize, sleep, tempDir, fileUri, stop } from '../lib.mjs';
import { treeRssKb, treePssKb } from './proc.mjs';

const SRC = process.argv[2];
const MINUTES = Number(process.argv[3] ?? 10);
if (!SRC || !fs.existsSync(SRC)) {
  console.error('usage: node sqlite.mjs PATH/TO/sqlite3.c [minutes]  (scripts/fetch-sqlite.sh)');
  process.exit(2);
}

const rssMb = (pid) => treeRssKb(pid) / 1024;
const pssMb = (pid) => treePssKb(pid) / 1024;

const dir = tempDir();
const file = path.join(dir, 'sqlite3.c');
fs.copyFileSync(SRC, file);
const hdr = path.join(path.dirname(SRC), 'sqlite3.h');
if (fs.existsSync(hdr)) fs.copyFileSync(hdr, path.join(dir, 'sqlite3.h'));
fs.writeFileSync(
  path.join(dir, 'compile_commands.json'),
  JSON.stringify([{ directory: dir, file: 'sqlite3.c', arguments: ['cc', '-DSQLITE_DEBUG', '-c', 'sqlite3.c'] }]),
);
const d = startStdio({ workers: 2, debounceMs: null });
let received = 0;
d.proc.stdout.on('data', (b) => (received += b.length));
await initialize(d.conn);
const pid = d.proc.pid;
let peakRss = 0;
let peakPss = 0;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, rssMb(pid));
  peakPss = Math.max(peakPss, pssMb(pid));
}, 500);

const uri = fileUri(file);
const t0 = Date.now();
d.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'c', version: 1, text: fs.readFileSync(file, 'utf8') } });
const result = { file: SRC, minutes: MINUTES, timeline: [] };
const counts = () => {
  const s = d.rec.status.get(uri);
  const c = {};
  for (const f of s?.functions ?? []) c[f.state] = (c[f.state] ?? 0) + 1;
  return c;
};
const end = t0 + MINUTES * 60000;
let nextTick = t0 + 60000;
while (Date.now() < end) {
  // the recorders' logs keep every message (the merged table after each status delta):
  // over ten minutes of SQLite that was 4 GB in this client, which then died
  d.rec.statusLog.length = 0;
  d.rec.diagLog.length = 0;
  d.rec.partial.length = 0;
  const s = d.rec.status.get(uri);
  if (result.all_status_s === undefined && s && s.functions.length > 0) {
    result.all_status_s = (Date.now() - t0) / 1000;
    result.functions = s.functions.length;
  }
  if (result.parse_error === undefined && s?.parseError) result.parse_error = d.rec.diagnostics.get(uri)?.diagnostics?.[0]?.message;
  if (s && s.functions.length > 0 && s.pending === 0) break;
  if (Date.now() >= nextTick) {
    result.timeline.push({ s: Math.round((Date.now() - t0) / 1000), ...counts(), rss_mb: Math.round(rssMb(pid)), pss_mb: Math.round(pssMb(pid)) });
    console.error(JSON.stringify(result.timeline.at(-1)));
    nextTick += 60000;
  }
  await sleep(500);
}
clearInterval(sampler);
result.elapsed_s = (Date.now() - t0) / 1000;
result.counts = counts();
// Why functions are not verified: the Information/Warning diagnostics name the reason.
const reasons = {};
for (const g of d.rec.diagnostics.get(uri)?.diagnostics ?? []) {
  const m = /^argus: (?:'[^']*' )?(unknown: |could not verify '[^']*': )?(.*)$/.exec(g.message);
  if (!m || !m[1]) continue;
  const why = m[2].replace(/'[^']*'/g, "'…'").replace(/\d+/g, 'N').replace(/ at [^ ]+:N(:N)?/g, '').slice(0, 80);
  reasons[why] = (reasons[why] ?? 0) + 1;
}
result.reasons = Object.fromEntries(Object.entries(reasons).sort((a, b) => b[1] - a[1]).slice(0, 25));
// SQLITE_TABLE=FILE: every function's final state (and its diagnostic's reason) as JSON
// lines, to compare with `argus project` on the same file (scripts/compare-project.py).
if (process.env.SQLITE_TABLE) {
  const why = new Map();
  for (const g of d.rec.diagnostics.get(uri)?.diagnostics ?? []) if (g.data?.function) why.set(g.data.function, g.message);
  const rows = (d.rec.status.get(uri)?.functions ?? []).map((f) => JSON.stringify({ name: f.name, state: f.state, final: f.final, algorithm: f.algorithm, message: why.get(f.name) ?? '' }));
  fs.writeFileSync(process.env.SQLITE_TABLE, rows.join('\n') + '\n');
}
result.peak_rss_mb = Math.round(peakRss);
result.peak_pss_mb = Math.round(peakPss);
result.received_mb = +(received / 1048576).toFixed(2);
await stop(d);
console.log(JSON.stringify(result, null, 1));
