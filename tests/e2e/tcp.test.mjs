// argusd --listen: token authentication, argus/verify, malformed input, loopback only.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { startTcp, connectTcp, rawTcp, waitFor, sleep, BUGGY, SLOW, ARGUSD } from './lib.mjs';

const TOKEN = 'e2e-secret-' + process.pid;
let server;
before(async () => {
  server = await startTcp({ token: TOKEN });
});
after(async () => {
  server.proc.kill('SIGTERM');
  const r = await Promise.race([server.exited, sleep(10000).then(() => null)]);
  if (!r) server.proc.kill('SIGKILL');
});

async function goodClient() {
  const c = await connectTcp(server.port);
  await c.conn.sendRequest('initialize', { processId: null, capabilities: {}, initializationOptions: { token: TOKEN } });
  return c;
}

test('requests before a good initialize, or with a wrong token, get Unauthorized and verify nothing', async () => {
  const bad = await connectTcp(server.port);
  await assert.rejects(bad.conn.sendRequest('argus/verify', { text: BUGGY, filename: 'a.c' }), (e) => e.code === -32010);
  await assert.rejects(
    bad.conn.sendRequest('initialize', { processId: null, capabilities: {}, initializationOptions: { token: 'wrong' } }),
    (e) => e.code === -32010,
  );
  await assert.rejects(bad.conn.sendRequest('argus/verify', { text: BUGGY, filename: 'a.c' }), (e) => e.code === -32010);
  await assert.rejects(bad.conn.sendRequest('initialize', { processId: null, capabilities: {} }), (e) => e.code === -32010);
  bad.conn.sendNotification('textDocument/didOpen', { textDocument: { uri: 'file:///x.c', languageId: 'c', version: 1, text: BUGGY } });
  await sleep(300);
  assert.equal(bad.rec.partial.length + bad.rec.diagnostics.size, 0);
  bad.conn.dispose();
  bad.socket.destroy();
  const good = await goodClient();
  const stats = await good.conn.sendRequest('argus/stats');
  assert.equal(stats.workerRuns, 0, 'nothing was verified for the unauthorized client');
  assert.equal(stats.parses, 0);
  good.conn.dispose();
  good.socket.destroy();
  assert.ok(!server.stderr().includes(TOKEN), 'the token is never logged');
});

test('an authorized client gets the CLI JSON and partial results', async () => {
  const c = await goodClient();
  const r = await c.conn.sendRequest('argus/verify', { text: BUGGY, filename: 'remote.c', flags: ['-DUNUSED=1'], timeout: 30 });
  assert.equal(r.verdict, 'false');
  assert.equal(r.counterexample.steps.at(-1).statement, 'reach_error()');
  assert.ok(c.rec.partial.length >= 1);
  // the same request again is served from the cache
  const r2 = await c.conn.sendRequest('argus/verify', { text: BUGGY, filename: 'remote.c', flags: ['-DUNUSED=1'], timeout: 30 });
  assert.deepEqual(r2.counterexample, r.counterexample);
  assert.ok(c.rec.partial.at(-1).cached);
  // remote clients cannot make the daemon read its files
  await assert.rejects(
    c.conn.sendRequest('argus/verify', { text: BUGGY, filename: 'r.c', flags: ['-include', '/etc/passwd'] }),
    (e) => e.code === -32602 && /not allowed/.test(e.message),
  );
  await assert.rejects(c.conn.sendRequest('argus/verify', { uri: 'file:///etc/passwd' }), (e) => e.code === -32602);
  // ... nor #include them from the text: system headers only, anything else is "not found"
  for (const inc of ['"/etc/passwd"', '"../../../../../etc/passwd"', '"/usr/include/../../etc/passwd"']) {
    await assert.rejects(
      c.conn.sendRequest('argus/verify', { text: `#include ${inc}\n` + BUGGY, filename: 'inc.c', timeout: 30 }),
      (e) => /file not found/.test(e.message) && !/root:/.test(e.message),
    );
  }
  const withHeaders = await c.conn.sendRequest('argus/verify', { text: '#include <stdlib.h>\n#include <string.h>\n' + BUGGY, filename: 'sys.c', timeout: 30 });
  assert.equal(withHeaders.verdict, 'false');
  c.conn.dispose();
  c.socket.destroy();
});

test('malformed input over TCP gets errors and the session keeps working', async () => {
  const c = await rawTcp(server.port);
  c.write('Content-Length: 3\r\n\r\n{{{');
  let m = await c.next();
  assert.equal(m.error.code, -32700);
  c.write('NoColonHere\r\n\r\n');
  m = await c.next();
  assert.equal(m.error.code, -32700);
  c.send({ jsonrpc: '2.0', id: 7, method: 'initialize', params: { processId: null, capabilities: {}, initializationOptions: { token: TOKEN } } });
  m = await c.response();
  assert.equal(m.id, 7);
  assert.ok(m.result);
  c.send({ jsonrpc: '2.0', id: 8, method: 'argus/verify', params: { text: BUGGY, filename: 'raw.c', algorithm: 'bmc' } });
  m = await c.response(60000);
  assert.equal(m.result.verdict, 'false');
});

test('non-loopback addresses are refused', () => {
  const r = spawnSync(ARGUSD, ['--listen', '0.0.0.0:0', '--token-file', '/dev/null'], { encoding: 'utf8', timeout: 10000 });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /loopback/);
});

test("a worker killed under one client's job does not affect another client's job", async () => {
  const a = await goodClient();
  const b = await goodClient();
  const aJob = a.conn.sendRequest('argus/verify', { text: SLOW, filename: 'a_slow.c', algorithm: 'ibmc', timeout: 120 });
  aJob.catch(() => {});
  const t0 = Date.now();
  const bJob = b.conn.sendRequest('argus/verify', { text: SLOW, filename: 'b_slow.c', algorithm: 'ibmc', timeout: 4 });
  const running = await waitFor(async () => {
    const { workers } = await a.conn.sendRequest('argus/workers');
    const wa = workers.find((w) => w.file === 'a_slow.c');
    const wb = workers.find((w) => w.file === 'b_slow.c');
    return wa && wb ? { wa, wb } : null;
  }, 20000, 'both jobs running');
  process.kill(running.wa.pid, 'SIGKILL');
  const rb = await bJob;  // B's job ends normally: its stage timeout, not a crash
  assert.equal(rb.verdict, 'unknown');
  assert.match(rb.reason, /time/i);
  assert.ok(Date.now() - t0 < 30000);
  const { workers } = await b.conn.sendRequest('argus/workers');
  assert.ok(workers.some((w) => w.pid === running.wb.pid), 'B\'s worker was never restarted');
  assert.ok(!workers.some((w) => w.pid === running.wa.pid), 'A\'s worker was replaced');
  a.conn.dispose();  // disconnecting withdraws A's (re-queued) job
  a.socket.destroy();
  b.conn.dispose();
  b.socket.destroy();
  await waitFor(async () => {
    const c = await goodClient();
    const st = await c.conn.sendRequest('argus/stats');
    c.conn.dispose();
    c.socket.destroy();
    return st.running === 0 && st.queued === 0;
  }, 10000, 'jobs of the disconnected client withdrawn');
});

test('argus remote verify --property: the properties reach the server; without it, reachability as argus verify', async () => {
  const path = await import('node:path');
  const fs = await import('node:fs');
  const os = await import('node:os');
  const argus = path.join(path.dirname(ARGUSD), 'argus');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'argus-remote-prop-'));
  const tokenFile = path.join(dir, 'token');
  fs.writeFileSync(tokenFile, TOKEN + '\n', { mode: 0o600 });
  const file = path.join(dir, 'dfree.c');
  fs.writeFileSync(file, 'void *malloc(unsigned long); void free(void *);\n' +
    'int main(void) { int *p = malloc(4); free(p); free(p); return 0; }\n');
  const run = (...extra) => spawnSync(argus, ['remote', 'verify', file, '--server', `127.0.0.1:${server.port}`, '--token-file', tokenFile,
    '--algorithm', 'bmc', '--timeout', '30', '--data-model', 'ILP32', ...extra], { encoding: 'utf8' });
  const mem = run('--property', 'valid-memsafety');
  assert.equal(mem.status, 0, mem.stderr);
  assert.match(mem.stdout, /^VERDICT: false\(valid-free\)$/m, mem.stdout);
  const reach = run();
  assert.equal(reach.status, 0, reach.stderr);
  assert.match(reach.stdout, /^VERDICT: true$/m, reach.stdout);
  const bad = run('--property', 'valid-nothing');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /unknown property 'valid-nothing'/);
  fs.rmSync(dir, { recursive: true, force: true });
});
