// argus/verify over stdio: partial results, cancellation, worker crashes, bad input.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { CancellationTokenSource } from 'vscode-jsonrpc';
import { startStdio, initialize, stop, waitFor, sleep, BUGGY, SLOW, rawClient } from './lib.mjs';

let d;
before(async () => {
  d = startStdio();
  await initialize(d.conn);
});
after(async () => stop(d));

test('argus/verify returns the CLI JSON and streams argus/partialResult', async () => {
  const r = await d.conn.sendRequest('argus/verify', { text: BUGGY, filename: 'buggy.c' });
  assert.equal(r.verdict, 'false');
  assert.equal(r.counterexample.entry, 'main');
  assert.ok(r.counterexample.steps.length > 0);
  assert.equal(r.counterexample.steps[0].file, 'buggy.c');
  assert.ok('stats' in r && 'condition' in r);
  assert.ok(d.rec.partial.some((p) => p.final && p.result.verdict === 'false'));
});

test('$/cancelRequest of argus/verify answers RequestCancelled and frees the worker', async () => {
  const cts = new CancellationTokenSource();
  const t0 = Date.now();
  const p = d.conn.sendRequest('argus/verify', { text: SLOW, filename: 'slow.c', algorithm: 'ibmc', timeout: 120 }, cts.token);
  await waitFor(async () => (await d.conn.sendRequest('argus/stats')).running === 1, 20000, 'job running');
  cts.cancel();
  await assert.rejects(p, (e) => e.code === -32800);
  assert.ok(Date.now() - t0 < 20000);
  await waitFor(async () => (await d.conn.sendRequest('argus/stats')).running === 0, 5000, 'job gone');
  const r = await d.conn.sendRequest('argus/verify', { text: BUGGY, filename: 'again.c', algorithm: 'bmc', timeout: 20 });
  assert.equal(r.verdict, 'false');
});

test('killing a worker mid-job: the next request is answered, the job is re-run', async () => {
  const cts = new CancellationTokenSource();
  const slow = d.conn.sendRequest('argus/verify', { text: SLOW, filename: 'slow2.c', algorithm: 'ibmc', timeout: 120 }, cts.token);
  slow.catch(() => {});
  await waitFor(async () => (await d.conn.sendRequest('argus/stats')).running === 1, 20000, 'job running');
  const before = await d.conn.sendRequest('argus/stats');
  const { pids, workers } = await d.conn.sendRequest('argus/workers');
  const busy = workers.filter((w) => w.file === 'slow2.c').map((w) => w.pid);
  assert.equal(busy.length, 1);
  for (const pid of pids) if (pid > 0) process.kill(pid, 'SIGKILL');  // busy and idle workers
  const t0 = Date.now();
  const r = await d.conn.sendRequest('argus/verify', { text: BUGGY.replace('14', '16'), filename: 'next.c', algorithm: 'bmc', timeout: 20 });
  assert.equal(r.verdict, 'false');
  assert.ok(Date.now() - t0 < 30000);
  const after = await d.conn.sendRequest('argus/stats');
  assert.ok(after.workerRestarts > before.workerRestarts);
  assert.equal(after.running, 1, 'the killed job was re-queued and runs again');
  const { workers: fresh } = await d.conn.sendRequest('argus/workers');
  const slowNow = fresh.find((w) => w.file === 'slow2.c');
  assert.ok(slowNow && !pids.includes(slowNow.pid), `the re-run uses a fresh worker: ${JSON.stringify(fresh)}`);
  assert.ok(fresh.every((w) => w.pid > 0));
  cts.cancel();
  await assert.rejects(slow, (e) => e.code === -32800);
});

test('bad params get InvalidParams and the daemon keeps serving', async () => {
  await assert.rejects(d.conn.sendRequest('argus/verify', { filename: 'x.c' }), (e) => e.code === -32602);
  await assert.rejects(d.conn.sendRequest('argus/verify', { text: 'int main(){}', algorithm: 'nope' }), (e) => e.code === -32602);
  await assert.rejects(d.conn.sendRequest('argus/verify', { text: 'int main(void) { return y; }', filename: 'bad.c' }), (e) => e.code === -32803 && /parse/.test(e.message));
  await assert.rejects(d.conn.sendRequest('argus/nope', {}), (e) => e.code === -32601);
  const r = await d.conn.sendRequest('argus/verify', { text: BUGGY, filename: 'ok.c', algorithm: 'bmc' });
  assert.equal(r.verdict, 'false');
});

test('malformed bytes on stdio (bad JSON, bad header) get errors; the daemon keeps serving', async () => {
  const raw = startStdio();  // a second daemon driven with raw bytes
  const c = rawClient(raw.proc.stdout, raw.proc.stdin);
  raw.conn.dispose();  // the raw client owns the streams
  try {
    c.write('Content-Length: 9\r\n\r\n{"bad":,}');
    let m = await c.next();
    assert.equal(m.error.code, -32700);
    assert.equal(m.id, null);
    c.write('Bogus header line\r\n\r\n');
    m = await c.next();
    assert.equal(m.error.code, -32700);
    c.send({ jsonrpc: '2.0', id: 'x', params: {} });  // no method
    m = await c.next();
    assert.equal(m.error.code, -32600);
    c.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { processId: null, capabilities: {} } });
    m = await c.response();
    assert.equal(m.id, 1);
    assert.ok(m.result.capabilities);
    c.send({ jsonrpc: '2.0', id: 2, method: 'argus/verify', params: { text: BUGGY, filename: 'r.c', algorithm: 'bmc' } });
    m = await c.response(60000);
    assert.equal(m.id, 2);
    assert.equal(m.result.verdict, 'false');
  } finally {
    raw.proc.kill('SIGKILL');
    await raw.exited;
  }
});
