// argusd with files of many functions and clients that do not read (issue 28):
// argus/status deltas, argus/statusTable, backpressure, fairness between clients.
// Bounded: a few hundred one-line functions; the full-size figures come from
// tests/e2e/bench/scale.mjs (`make bench-server`).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startTcp, connectTcp, waitFor, sleep } from './lib.mjs';

const TOKEN = 'e2e-scale-' + process.pid;
let server;
before(async () => {
  server = await startTcp({ token: TOKEN, extra: ['--client-stall-s', '3'] });
});
after(async () => {
  server.proc.kill('SIGTERM');
  const r = await Promise.race([server.exited, sleep(10000).then(() => null)]);
  if (!r) server.proc.kill('SIGKILL');
});

function manyFunctions(n) {
  let s = '';
  for (let i = 0; i < n; i++) s += `int f${i}(int x) { return x + ${i}; }\n`;
  return s;
}

async function goodClient() {
  const c = await connectTcp(server.port);
  await c.conn.sendRequest('initialize', { processId: null, capabilities: {}, initializationOptions: { token: TOKEN } });
  return c;
}

test('argus/status lists every function once, then only the ones that changed', async () => {
  const n = 200;
  const c = await goodClient();
  const uri = 'file:///scale/many.c';
  c.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'c', version: 1, text: manyFunctions(n) } });
  await waitFor(() => {
    const s = c.rec.status.get(uri);
    return s && s.functions.length === n && s.functions.every((f) => f.final);
  }, 240000, 'every function final');
  const log = c.rec.statusLog.filter((e) => e.p.uri === uri).map((e) => e.delta);
  assert.equal(log[0].full, true);
  assert.equal(log[0].functions.length, n);
  for (const d of log.slice(1)) {
    assert.equal(d.full, false);
    assert.ok(d.functions.length > 0 && d.functions.length <= n);
  }
  // Each function changes state at least twice (running, verified): coalescing sends
  // far fewer messages than changes, and no more entries than a few per function.
  assert.ok(log.length < n, `${log.length} status messages for ${n} functions`);
  const entries = log.reduce((a, d) => a + d.functions.length, 0);
  assert.ok(entries <= 4 * n, `${entries} function entries sent`);
  // The full table on request equals the merged deltas.
  const table = await c.conn.sendRequest('argus/statusTable', { uri });
  assert.equal(table.full, true);
  assert.equal(table.functions.length, n);
  const merged = c.rec.status.get(uri);
  for (const f of table.functions) {
    const m = merged.functions.find((g) => g.name === f.name);
    assert.equal(m.state, f.state, f.name);
    assert.equal(f.state, 'verified', f.name);
  }
  await assert.rejects(c.conn.sendRequest('argus/statusTable', { uri: 'file:///not/open.c' }), (e) => e.code === -32602);
  c.conn.dispose();
  c.socket.destroy();
});

test('a client that stops reading is disconnected with a log line; another client is answered meanwhile', async () => {
  const socket = net.createConnection({ host: '127.0.0.1', port: server.port });
  await new Promise((r) => socket.once('connect', r));
  socket.pause();  // never reads
  const frame = (m) => {
    const b = Buffer.from(JSON.stringify(m));
    return Buffer.concat([Buffer.from(`Content-Length: ${b.length}\r\n\r\n`), b]);
  };
  socket.write(frame({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { processId: null, capabilities: {}, initializationOptions: { token: TOKEN } } }));
  // 4,000 functions: the first argus/status alone exceeds what the kernel buffers hold.
  socket.write(frame({ jsonrpc: '2.0', method: 'textDocument/didOpen', params: { textDocument: { uri: 'file:///scale/noread.c', languageId: 'c', version: 1, text: manyFunctions(4000) } } }));
  await sleep(1000);
  const other = await goodClient();
  const t0 = Date.now();
  const r = await other.conn.sendRequest('argus/verify', {
    text: 'extern void reach_error(void);\nint g(int x) {\n  if (x > 3 && x < 2) reach_error();\n  return x;\n}\n',
    filename: 'small.c',
    function: 'g',
    timeout: 10,
  });
  assert.equal(r.verdict, 'true');
  assert.ok(Date.now() - t0 < 15000, `answered in ${Date.now() - t0} ms`);
  await waitFor(() => /disconnecting client session \d+ \(127\.0\.0\.1:\d+\): it has not read a message for 3 s/.test(server.stderr()), 60000, 'the log line');
  // Its document is closed and its jobs withdrawn: the daemon goes idle.
  await waitFor(async () => {
    const s = await other.conn.sendRequest('argus/stats');
    return s.queued === 0;
  }, 30000, 'queue drained');
  other.conn.dispose();
  other.socket.destroy();
  socket.destroy();
});
