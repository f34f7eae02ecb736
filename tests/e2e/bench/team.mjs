// Team-service benchmark (issue 23; not a timed test, prints figures): a real
// redis-server on a free loopback port, argusd replicas with --redis (1 worker each).
//   cache hit across replicas: N programs verified through replica A, then asked through
//     B and C: latency of each answer (p50, p95), no verifier run on B or C;
//   throughput: M new programs at once through 1 replica alone (its own Redis database,
//     so no other replica takes its jobs from the job stream), then M other new programs
//     sent to the 3 replicas (the stream spreads the stages over their workers; same
//     machine): programs per second and the ratio; stream jobs taken per replica.
// Usage: ARGUSD=build/argusd node tests/e2e/bench/team.mjs [N] [M]
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startTcp, connectTcp, tempDir, startRedis, freePort } from '../lib.mjs';

const N = Number(process.argv[2] ?? 20);
const M = Number(process.argv[3] ?? 12);
const TOKEN = 'bench-token-' + process.pid;
const PASSWORD = 'bench-pw-' + process.pid;
const dir = tempDir();
const pwFile = path.join(dir, 'pw');
fs.writeFileSync(pwFile, PASSWORD + '\n', { mode: 0o600 });

function program(seed) {
  return `extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int main(void) {
  int tag = ${seed};
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 5) return 0;
  int s = 0;
  for (int i = 0; i < n; i++) s += 2;
  if (s > 10 && tag >= 0) reach_error();
  return 0;
}
`;
}

const port = await freePort();
const redis = await startRedis({ dir, port, password: PASSWORD });
const replicas = [];
for (let i = 0; i < 3; i++)
  replicas.push(await startTcp({ token: TOKEN, workers: 1, extra: ['--redis', `redis://127.0.0.1:${port}/0`, '--redis-password-file', pwFile] }));
const clients = [];
for (const r of replicas) {
  const c = await connectTcp(r.port);
  await c.conn.sendRequest('initialize', { processId: null, capabilities: {}, initializationOptions: { token: TOKEN } });
  clients.push(c);
}
const verify = (i, text, name) => clients[i].conn.sendRequest('argus/verify', { text, filename: name, timeout: 60 });
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

try {
  // cache hits across replicas
  for (let k = 0; k < N; k++) assert.equal((await verify(0, program(1000 + k), `h${k}.c`)).verdict, 'true');
  const before = await Promise.all([1, 2].map((i) => clients[i].conn.sendRequest('argus/stats')));
  const lat = [];
  for (let k = 0; k < N; k++)
    for (const i of [1, 2]) {
      const t0 = process.hrtime.bigint();
      const r = await verify(i, program(1000 + k), `h${k}.c`);
      lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
      assert.equal(r.verdict, 'true');
    }
  const after = await Promise.all([1, 2].map((i) => clients[i].conn.sendRequest('argus/stats')));
  const runs = after[0].workerRuns - before[0].workerRuns + after[1].workerRuns - before[1].workerRuns;
  console.log(`cache hit across replicas: ${lat.length} answers, p50 ${pct(lat, 50).toFixed(1)} ms, p95 ${pct(lat, 95).toFixed(1)} ms, verifier runs on B and C: ${runs}`);

  // throughput, 1 replica (alone on database 1) against 3
  const lone = await startTcp({ token: TOKEN, workers: 1, extra: ['--redis', `redis://127.0.0.1:${port}/1`, '--redis-password-file', pwFile] });
  replicas.push(lone);
  const lc = await connectTcp(lone.port);
  await lc.conn.sendRequest('initialize', { processId: null, capabilities: {}, initializationOptions: { token: TOKEN } });
  clients.push(lc);
  const run = async (targets, base) => {
    const t0 = Date.now();
    const rs = await Promise.all(Array.from({ length: M }, (_, k) => verify(targets[k % targets.length], program(base + k), `t${base + k}.c`)));
    for (const r of rs) assert.equal(r.verdict, 'true');
    return (M / (Date.now() - t0)) * 1000;
  };
  const one = await run([3], 2000);
  const taken0 = await Promise.all([0, 1, 2].map((i) => clients[i].conn.sendRequest('argus/stats')));
  const three = await run([0, 1, 2], 3000);
  const taken1 = await Promise.all([0, 1, 2].map((i) => clients[i].conn.sendRequest('argus/stats')));
  const taken = taken1.map((s, i) => (s.streamJobsTaken ?? 0) - (taken0[i].streamJobsTaken ?? 0));
  console.log(`throughput (${M} new programs, 1 worker per replica): 1 replica ${one.toFixed(2)}/s, 3 replicas ${three.toFixed(2)}/s, ratio ${(three / one).toFixed(2)}; stream jobs taken per replica: ${taken.join(', ')}`);
} finally {
  for (const c of clients) { c.conn.dispose(); c.socket.destroy(); }
  for (const r of replicas) r.proc.kill('SIGTERM');
  await Promise.all(replicas.map((r) => r.exited));
  await redis.stop();
}
