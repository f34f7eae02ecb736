// argusd loopback load benchmark (bounded; prints figures):
// 8 TCP clients × 50 argus/verify each, every request a different program (so every
// one is a real verification in a worker, not a cache hit), half of them buggy.
// Every response is checked against the expected verdict. The daemon's RSS
// (/proc/PID/status VmRSS) is read after a warm-up round and at the end.
// Target (issue 6): RSS at the end within 10 % of the post-warm-up RSS.
// Usage: ARGUSD=build/argusd node tests/e2e/bench/load.mjs [clients] [requests]
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startTcp, connectTcp, sleep } from '../lib.mjs';

const CLIENTS = Number(process.argv[2] ?? 8);
const REQUESTS = Number(process.argv[3] ?? 50);
const TOKEN = 'bench-' + process.pid;

function program(k) {
  const buggy = k % 2 === 0;
  const text = `extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int step(int x, int k) { return x + k; }
int main(void) {
  int x = __VERIFIER_nondet_int();
  int i;
  int s = 0;
  if (x < 0 || x > 4) return 0;
  for (i = 0; i < x; i++) s = step(s, ${k % 7 + 1});
  if (${buggy ? `s == ${(k % 7 + 1) * 3}` : `s < 0`}) reach_error();
  return s + ${k};
}
`;
  return { text, expected: buggy ? 'false' : 'true' };
}

const rssKb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);

async function client(id, base, count, check) {
  const c = await connectTcp(server.port);
  await c.conn.sendRequest('initialize', { processId: null, capabilities: {}, initializationOptions: { token: TOKEN } });
  const latencies = [];
  for (let i = 0; i < count; i++) {
    const k = base + i;
    const p = program(k);
    const t0 = Date.now();
    const r = await c.conn.sendRequest('argus/verify', { text: p.text, filename: `c${id}_${k}.c`, timeout: 30 });
    latencies.push(Date.now() - t0);
    check(r, p, k);
  }
  c.conn.dispose();
  c.socket.destroy();
  return latencies;
}

let wrong = 0;
const check = (r, p, k) => {
  if (r.verdict !== p.expected) wrong++;
  if (p.expected === 'false') {
    assert.equal(r.counterexample.steps.at(-1).statement, 'reach_error()', `request ${k}`);
  }
};

const server = await startTcp({ token: TOKEN, workers: 2 });
const pid = server.proc.pid;
const rssStart = rssKb(pid);
const tWarm = Date.now();
await Promise.all([0, 1].map((c) => client(100 + c, 1_000_000 + c * 1000, 10, check)));
await sleep(500);
const rssWarm = rssKb(pid);
const t0 = Date.now();
const lat = (await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c, c * 1000, REQUESTS, check)))).flat();
const wall = Date.now() - t0;
await sleep(1000);
const rssEnd = rssKb(pid);
server.proc.kill('SIGTERM');
await server.exited;

lat.sort((a, b) => a - b);
const q = (f) => lat[Math.min(lat.length - 1, Math.floor(f * lat.length))];
const summary = {
  clients: CLIENTS,
  requests_per_client: REQUESTS,
  total_requests: lat.length,
  wrong_verdicts: wrong,
  wall_s: +(wall / 1000).toFixed(2),
  throughput_per_s: +((lat.length * 1000) / wall).toFixed(1),
  latency_ms: { p50: q(0.5), p90: q(0.9), p99: q(0.99), max: lat.at(-1) },
  rss_kb: { start: rssStart, after_warmup: rssWarm, end: rssEnd },
  warmup_s: +((t0 - tWarm) / 1000).toFixed(2),
};
summary.rss_end_vs_warm = +(rssEnd / rssWarm).toFixed(3);
summary.targets = { all_correct: wrong === 0, rss_within_10pct: Math.abs(rssEnd / rssWarm - 1) <= 0.1 };
console.log(JSON.stringify(summary, null, 2));
if (wrong) process.exitCode = 1;
