// Team service (issue 23): real argusd replicas sharing one result store and one job
// stream (server/service/redis_queue.h) in a real redis-server (Debian package;
// scripts/install-deps.sh), on a loopback port picked here, with a password and AOF on.
// Also `argus remote verify` against a replica. argus/verify stages run on whichever
// replica takes them from the stream, so "who ran a verifier" sums over the replicas.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTcp, connectTcp, tempDir, waitFor, sleep, startRedis, freePort, ARGUSD, SLOW } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const ARGUS = process.env.ARGUS ?? path.join(path.dirname(ARGUSD), 'argus');
const EXAMPLES = path.resolve(here, '../../examples');
const TOKEN = 'team-token-' + process.pid;
const PASSWORD = 'redis-pw-' + process.pid + '-x';
const dir = tempDir();
const pwFile = path.join(dir, 'redis-password');
fs.writeFileSync(pwFile, PASSWORD + '\n', { mode: 0o600 });
const tokenFile = path.join(dir, 'token');
fs.writeFileSync(tokenFile, TOKEN + '\n', { mode: 0o600 });

// A program per (seed, buggy): distinct texts, so each is a distinct store key.
function program(seed, buggy) {
  const bound = 3 + (seed % 4);
  return `extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int main(void) {
  int tag = ${seed};
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > ${bound}) return 0;
  int s = 0;
  for (int i = 0; i < n; i++) s += 1;
  if (s ${buggy ? '==' : '>'} ${bound} && tag >= 0) reach_error();
  return 0;
}
`;
}

let redisPort;
let redis;
const startRedisHere = () => startRedis({ dir, port: redisPort, password: PASSWORD });
const stopRedis = () => redis.stop();

const replicas = [];
const others = [];  // replicas of the stream tests (other Redis databases)
async function startReplica({ db = 2, extra = [], into = db === 2 ? replicas : others } = {}) {
  const r = await startTcp({
    token: TOKEN, workers: 1,
    extra: ['--redis', `redis://127.0.0.1:${redisPort}/${db}`, '--redis-password-file', pwFile, '--redis-claim-ms', '3000', ...extra],
  });
  into.push(r);
  return r;
}
// the sum of a counter of argus/stats over live replicas
async function total(reps, field) {
  let n = 0;
  for (const r of reps) if (r.proc.exitCode === null && r.proc.signalCode === null) n += (await stats(r))[field];
  return n;
}
// the replica (of reps) whose worker runs a job of `file`, or null
// (stage: a predicate on the chain stage the worker runs; any stage when absent)
async function runnerOf(reps, file, stage = () => true) {
  for (const r of reps) {
    if (r.proc.exitCode !== null || r.proc.signalCode !== null) continue;
    const c = await client(r);
    const w = await c.conn.sendRequest('argus/workers');
    c.conn.dispose();
    c.socket.destroy();
    if (w.workers.some((x) => x.file === file && stage(x.stage))) return r;
  }
  return null;
}

async function client(rep) {
  const c = await connectTcp(rep.port);
  await c.conn.sendRequest('initialize', { processId: null, capabilities: {}, initializationOptions: { token: TOKEN } });
  return c;
}
async function verify(rep, text, filename) {
  const c = await client(rep);
  try {
    const r = await c.conn.sendRequest('argus/verify', { text, filename, timeout: 60 });
    const stats = await c.conn.sendRequest('argus/stats');
    return { r, stats, partial: c.rec.partial };
  } finally {
    c.conn.dispose();
    c.socket.destroy();
  }
}
async function stats(rep) {
  const c = await client(rep);
  const s = await c.conn.sendRequest('argus/stats');
  c.conn.dispose();
  c.socket.destroy();
  return s;
}

before(async () => {
  redisPort = await freePort();
  redis = await startRedisHere();
  for (let i = 0; i < 3; i++) await startReplica();
});
after(async () => {
  for (const r of [...replicas, ...others]) {
    r.proc.kill('SIGTERM');
    const e = await Promise.race([r.exited, sleep(10000).then(() => null)]);
    if (!e) r.proc.kill('SIGKILL');
  }
  if (redis) await stopRedis();
});

test('a function verified through replica A is answered by replica B from Redis without a verifier run', async (t) => {
  const A = replicas[0];
  const text = program(1, true);
  const s0 = await Promise.all(replicas.map(stats));
  const runs0 = await total(replicas, 'workerRuns');
  const a = await verify(A, text, 'shared.c');
  assert.equal(a.r.verdict, 'false');
  assert.ok(a.stats.jobStream, 'the job stream is on');
  assert.ok(a.stats.streamEnqueued >= 1, 'A put its stage on the job stream');
  const runs1 = await total(replicas, 'workerRuns');
  assert.ok(runs1 > runs0, 'a replica ran a verifier for A');
  // B: a replica other than A that ran none of A's stages (a runner holds them in
  // memory). The plan's stages may have gone to both other replicas; then B is a
  // replica started now, which can only know the result from Redis.
  const s1 = await Promise.all(replicas.map(stats));
  let B = replicas.find((r, i) => r !== A && s1[i].workerRuns === s0[i].workerRuns);
  const fresh = [];
  t.after(async () => {
    for (const r of fresh) {
      r.proc.kill('SIGTERM');
      if (!(await Promise.race([r.exited, sleep(10000).then(() => null)]))) r.proc.kill('SIGKILL');
    }
  });
  if (!B) B = await startReplica({ into: fresh });
  const reps = [...replicas, ...fresh];
  const before = await stats(B);
  const b = await verify(B, text, 'shared.c');
  assert.equal(b.r.verdict, 'false');
  assert.deepEqual(b.r.counterexample, a.r.counterexample);
  assert.equal(await total(reps, 'workerRuns'), runs1, 'no replica ran a verifier for B');
  assert.equal(b.stats.streamEnqueued, before.streamEnqueued, 'B put nothing on the stream');
  assert.ok(b.stats.storeHits > before.storeHits, 'B answered from the shared store');
  assert.ok(b.partial.length >= 1 && b.partial.every((p) => p.cached), 'every stage B reported was cached');
});

test('the same new program through two replicas at once is verified once (single flight)', async () => {
  const [A, B] = replicas;
  const text = `extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = x * 3 + 7;
  if (y == 40 && x > 0) reach_error();
  return 0;
}
`;
  const [ca, cb] = [await client(A), await client(B)];
  const runs0 = await total(replicas, 'workerRuns');
  const waits0 = await total(replicas, 'flightWaits');
  const [ra, rb] = await Promise.all([
    ca.conn.sendRequest('argus/verify', { text, filename: 'flight.c', timeout: 60 }),
    cb.conn.sendRequest('argus/verify', { text, filename: 'flight.c', timeout: 60 }),
  ]);
  for (const c of [ca, cb]) { c.conn.dispose(); c.socket.destroy(); }
  assert.equal(ra.verdict, 'false');
  assert.equal(rb.verdict, 'false');
  assert.deepEqual(rb.counterexample, ra.counterexample);
  const runs = (await total(replicas, 'workerRuns')) - runs0;
  const waits = (await total(replicas, 'flightWaits')) - waits0;
  // one stage (ibmc finds the bug) computed by one replica (whichever took it from the
  // stream); the other requester waited for it
  assert.equal(runs, 1, `verifier runs over all replicas (waits ${waits})`);
  assert.ok(waits >= 1, 'one replica waited for the other\'s claim');
});

test('SIGKILL of the replica holding a claim: the waiting replica still gets the answer', async () => {
  const D = await startReplica();
  const B = replicas[1];
  const text = SLOW.replace('0xFFFFFFF', '0xFFFFFF7');  // a key nobody verified
  const cd = await client(D);
  const pd = cd.conn.sendRequest('argus/verify', { text, filename: 'kill.c', timeout: 4 }).catch((e) => e);
  // D holds the claim and put the stage on the stream; some replica (D too) runs it
  await waitFor(async () => (await runnerOf(replicas, 'kill.c')) !== null, 20000, 'a replica to run D\'s job');
  const survivors = replicas.filter((r) => r !== D);
  const runs0 = await total(survivors, 'workerRuns');
  const cb = await client(B);
  const sb0 = await cb.conn.sendRequest('argus/stats');
  const t0 = Date.now();
  const pb = cb.conn.sendRequest('argus/verify', { text, filename: 'kill.c', timeout: 4 });
  await waitFor(async () => (await stats(B)).flightWaits > sb0.flightWaits, 20000, 'B to wait for D\'s claim');
  D.proc.kill('SIGKILL');
  await D.exited;
  const rb = await pb;
  const sb1 = await cb.conn.sendRequest('argus/stats');
  for (const c of [cd, cb]) { c.conn.dispose(); c.socket.destroy(); }
  await pd;
  // the error is reachable only after 2^28 iterations: no stage decides it in 4 s
  assert.ok(['unknown', 'false'].includes(rb.verdict), JSON.stringify(rb.verdict));
  if (rb.verdict === 'false') assert.equal(rb.counterexample.steps.at(-1).statement, 'reach_error()');
  assert.ok(sb1.flightWaits > sb0.flightWaits);
  assert.ok((await total(survivors, 'workerRuns')) > runs0, 'a surviving replica computed (part of) the answer');
  assert.ok(Date.now() - t0 < 120000);
});

test('3 replicas, 8 clients x 20 requests (safe and buggy) spread over them: every answer correct', async () => {
  const before = await Promise.all(replicas.slice(0, 3).map(stats));
  const jobs = [];
  for (let c = 0; c < 8; c++) {
    jobs.push((async () => {
      const out = [];
      const conns = [];
      for (let i = 0; i < 3; i++) conns.push(await client(replicas[i]));
      for (let k = 0; k < 20; k++) {
        const seed = 20 + ((c + k) % 5);  // 10 programs shared by every client
        const buggy = (c + k) % 2 === 0;
        const cc = conns[(c + k) % 3];
        const r = await cc.conn.sendRequest('argus/verify', { text: program(seed, buggy), filename: `p${seed}.c`, timeout: 60 });
        out.push([buggy, r.verdict]);
      }
      for (const cc of conns) { cc.conn.dispose(); cc.socket.destroy(); }
      return out;
    })());
  }
  const all = (await Promise.all(jobs)).flat();
  assert.equal(all.length, 160);
  for (const [buggy, verdict] of all) assert.equal(verdict, buggy ? 'false' : 'true');
  // through the stream: the stages were taken by more than one replica
  const after = await Promise.all(replicas.slice(0, 3).map(stats));
  const taken = after.map((s, i) => s.streamJobsTaken - before[i].streamJobsTaken);
  const enqueued = after.reduce((n, s, i) => n + s.streamEnqueued - before[i].streamEnqueued, 0);
  assert.ok(enqueued >= 10, `stages on the stream: ${enqueued}`);
  assert.ok(taken.filter((n) => n > 0).length >= 2, `stream jobs taken per replica: ${taken}`);
  assert.ok(taken.reduce((a, b) => a + b, 0) >= enqueued, `taken ${taken} of ${enqueued} enqueued`);
});

test('SIGKILL of the replica that runs a job: another replica reclaims it (XAUTOCLAIM) and the client gets its answer', async () => {
  // a database of their own: the replicas above never take these jobs
  const X = await startReplica({ db: 4 });
  const Y = await startReplica({ db: 4 });
  const cx = await client(X);
  const t0 = Date.now();
  const ask = (text, filename) => cx.conn.sendRequest('argus/verify', { text, filename, timeout: 4 });
  // Ask through X until Y runs one of the jobs: while X's only worker is busy with one
  // (X runs its own client's job), Y takes the next from the stream. Y must be in a stage
  // that runs until the time limit: the plan's first stage (a shallow bmc) ends within
  // milliseconds, and a Y killed after it answered leaves nothing to reclaim (CI failed so).
  const long = (stage) => !stage.startsWith('bmc');
  let runner = null, pending = null;
  const alsoWait = [];
  for (let i = 1; i <= 4 && runner !== Y; i++) {
    const file = `reclaim${i}.c`;
    const p = ask(SLOW.replace('0xFFFFFFF', `0xFFFFFE${i}`), file);
    runner = null;
    await waitFor(async () => (runner = await runnerOf([X, Y], file, long)) !== null, 30000, `a replica to take ${file}`);
    if (runner === Y) pending = p;
    else alsoWait.push(p);
  }
  assert.equal(runner, Y);
  const x0 = await stats(X);
  Y.proc.kill('SIGKILL');
  await Y.exited;
  const r = await pending;
  const x1 = await stats(X);
  for (const p of alsoWait) await p;
  cx.conn.dispose();
  cx.socket.destroy();
  // the error is reachable only after 2^28 iterations: no stage decides it in 4 s
  assert.ok(['unknown', 'false'].includes(r.verdict), JSON.stringify(r.verdict));
  if (r.verdict === 'false') assert.equal(r.counterexample.steps.at(-1).statement, 'reach_error()');
  assert.ok(x1.streamReclaims > x0.streamReclaims, `X reclaimed Y's job (${x0.streamReclaims} -> ${x1.streamReclaims})`);
  assert.ok(x1.workerRuns > x0.workerRuns, 'X ran it');
  assert.ok(Date.now() - t0 < 150000);
});

test('a job that fails on every delivery is reported to its client as failed with the reason, after N deliveries', async () => {
  // --memory-budget 1: every run ends at once "over the memory budget" (a real failure of
  // the product's own limit, not a test hook); 3 deliveries, released for another at once
  const reps = [];
  for (let i = 0; i < 2; i++)
    reps.push(await startReplica({ db: 5, extra: ['--memory-budget', '1', '--redis-max-deliveries', '3'] }));
  const c = await client(reps[0]);
  const t0 = Date.now();
  const err = await c.conn.sendRequest('argus/verify', { text: program(77, true), filename: 'fail.c', timeout: 30 }).then(
    (r) => assert.fail('answered ' + JSON.stringify(r.verdict)), (e) => e);
  c.conn.dispose();
  c.socket.destroy();
  assert.match(err.message, /failed on 3 deliveries: over the memory budget/);
  await waitFor(async () => (await total(reps, 'streamFailed')) === 1, 5000, 'the failure to be counted');
  const st = await Promise.all(reps.map(stats));
  const sum = (f) => st.reduce((n, s) => n + s[f], 0);
  assert.equal(sum('streamJobsTaken') + sum('streamReclaims'), 3, 'delivered 3 times');
  assert.equal(sum('streamReleased'), 2, 'given back after the first two failures');
  assert.equal(sum('streamFailed'), 1, 'reported failed once');
  assert.ok(Date.now() - t0 < 60000);
  for (const r of reps) {
    r.proc.kill('SIGTERM');
    await r.exited;
  }
});

test('Redis restarted with AOF on: results stored before are served after', async () => {
  const A = replicas[0];
  const text = program(40, false);
  const a = await verify(A, text, 'aof.c');
  assert.equal(a.r.verdict, 'true');
  await stopRedis();
  redis = await startRedisHere();
  assert.match(redis.out(), /DB loaded from append only file|Reading the remaining AOF tail|Done loading/i);
  // C: a replica started after the restart, so this program is not in its memory cache
  // (the stages of A's request may have run on any replica)
  const C = await startReplica();
  const live = replicas.filter((r) => r.proc.exitCode === null && r.proc.signalCode === null);
  const runs0 = await total(live, 'workerRuns');
  const before = await stats(C);
  const c = await verify(C, text, 'aof.c');
  assert.equal(c.r.verdict, 'true');
  assert.equal(await total(live, 'workerRuns'), runs0, 'no replica ran a verifier after the restart');
  assert.ok(c.stats.storeHits > before.storeHits);
});

test('wrong token and wrong Redis password are refused with a clear error; secrets never logged', async () => {
  const bad = await connectTcp(replicas[0].port);
  await assert.rejects(
    bad.conn.sendRequest('initialize', { processId: null, capabilities: {}, initializationOptions: { token: 'wrong' } }),
    (e) => e.code === -32010 && /token/.test(e.message),
  );
  bad.conn.dispose();
  bad.socket.destroy();
  const wrongPw = path.join(dir, 'wrong-pw');
  fs.writeFileSync(wrongPw, 'not-the-password\n');
  const url = `redis://127.0.0.1:${redisPort}/2`;
  for (const [args, env, want] of [
    [['--redis-password-file', wrongPw], {}, /authentication failed: WRONGPASS/],
    [[], { ARGUS_REDIS_PASSWORD: 'also-wrong' }, /authentication failed: WRONGPASS/],
    [[], {}, /NOAUTH/],
  ]) {
    const r = spawnSync(ARGUSD, ['--listen', '127.0.0.1:0', '--token-file', tokenFile, '--redis', url, ...args],
      { encoding: 'utf8', timeout: 20000, env: { ...process.env, ARGUS_REDIS_PASSWORD: '', ...env } });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, want);
    assert.doesNotMatch(r.stderr, /listening/);
    assert.ok(!r.stderr.includes('not-the-password') && !r.stderr.includes('also-wrong'));
  }
  // the environment's password works
  const ok = spawn(ARGUSD, ['--listen', '127.0.0.1:0', '--token-file', tokenFile, '--redis', url, '--no-store'],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ARGUS_REDIS_PASSWORD: PASSWORD } });
  let err = '';
  ok.stderr.on('data', (d) => (err += d));
  await waitFor(() => /listening on/.test(err), 10000, 'argusd with ARGUS_REDIS_PASSWORD');
  ok.kill('SIGTERM');
  // a password in the URL is refused (it would be on the command line)
  const u = spawnSync(ARGUSD, ['--listen', '127.0.0.1:0', '--token-file', tokenFile, '--redis', `redis://u:${PASSWORD}@127.0.0.1:${redisPort}/2`],
    { encoding: 'utf8', timeout: 20000 });
  assert.equal(u.status, 2);
  assert.match(u.stderr, /password in the --redis URL is refused/);
  for (const r of replicas) {
    assert.ok(!r.stderr().includes(TOKEN), 'the token is never logged');
    assert.ok(!r.stderr().includes(PASSWORD), 'the Redis password is never logged');
  }
});

test('argusd --health answers for a live replica and fails for a dead port', async () => {
  const h = spawnSync(ARGUSD, ['--health', `127.0.0.1:${replicas[1].port}`, '--token-file', tokenFile], { encoding: 'utf8', timeout: 20000 });
  assert.equal(h.status, 0, h.stderr);
  const bare = spawnSync(ARGUSD, ['--health', `127.0.0.1:${replicas[1].port}`], { encoding: 'utf8', timeout: 20000 });
  assert.equal(bare.status, 0, bare.stderr);
  const wrong = path.join(dir, 'wrong-token');
  fs.writeFileSync(wrong, 'nope\n');
  const w = spawnSync(ARGUSD, ['--health', `127.0.0.1:${replicas[1].port}`, '--token-file', wrong], { encoding: 'utf8', timeout: 20000 });
  assert.equal(w.status, 1);
  const dead = spawnSync(ARGUSD, ['--health', `127.0.0.1:${await freePort()}`], { encoding: 'utf8', timeout: 20000 });
  assert.equal(dead.status, 1);
  assert.match(dead.stderr, /cannot connect/);
});

test('argus remote verify gives the verdicts and exit codes of argus verify on examples/', async () => {
  const files = fs.readdirSync(EXAMPLES).filter((f) => f.endsWith('.c')).sort();
  assert.ok(files.length >= 4);
  const server = `127.0.0.1:${replicas[2].port}`;
  for (const f of files) {
    const file = path.join(EXAMPLES, f);
    const local = spawnSync(ARGUS, ['verify', file, '--format', 'json', '--timeout', '60'], { encoding: 'utf8', timeout: 120000 });
    const remote = spawnSync(ARGUS, ['remote', 'verify', file, '--server', server, '--token-file', tokenFile, '--format', 'json', '--timeout', '60'],
      { encoding: 'utf8', timeout: 300000 });
    assert.equal(remote.status, local.status, `${f}: exit code (${remote.stderr})`);
    const l = JSON.parse(local.stdout);
    const r = JSON.parse(remote.stdout);
    assert.equal(r.verdict, l.verdict, `${f}: verdict`);
    assert.equal(r.verdict === 'false', l.verdict === 'false');
    if (l.verdict === 'false') assert.equal(r.counterexample.steps.at(-1).statement, l.counterexample.steps.at(-1).statement);
    // the text format prints through the same printer: the same VERDICT line
    const text = spawnSync(ARGUS, ['remote', 'verify', file, '--server', server, '--token-file', tokenFile, '--timeout', '60'],
      { encoding: 'utf8', timeout: 300000 });
    assert.match(text.stdout, new RegExp(`VERDICT: ${l.verdict}\\n`));
    assert.ok(!text.stderr.includes(TOKEN));
  }
  // wrong token: a clear error, exit 2, nothing printed on stdout
  const wrong = path.join(dir, 'wrong-token2');
  fs.writeFileSync(wrong, 'nope\n');
  const w = spawnSync(ARGUS, ['remote', 'verify', path.join(EXAMPLES, files[0]), '--server', server, '--token-file', wrong], { encoding: 'utf8', timeout: 60000 });
  assert.equal(w.status, 2);
  assert.match(w.stderr, /unauthorized/);
  assert.equal(w.stdout, '');
});
