// argusd at the size of real code (issue 28): one TCP client opens a generated file of
// N one-line functions (`int fN(int x) { return x + N; }`, default N = 6636, ~250 KB)
// and a second client asks one 5-line argus/verify 10 s later. Prints figures as JSON:
// - time from didOpen until every function is final (merged argus/status deltas);
// - peak resident memory of daemon + workers (/proc, sampled every 200 ms), and 5 s
//   after didClose (against the idle figure before didOpen);
// - bytes the first client received (all notifications, raw socket bytes);
// - the second client's latency.
// Mode `noread`: the first client sends initialize + didOpen and never reads its
// socket; the daemon must disconnect it (log line) within its limits, stay within
// its memory budget, and still answer the second client.
// Usage: ARGUSD=build/argusd node tests/e2e/bench/scale.mjs [read|noread] [N] [limitS]
// Extra daemon options: ARGUSD_ARGS="--client-stall-s 5" (space-separated).
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { startTcp, connectTcp, sleep, tempDir, fileUri } from '../lib.mjs';
import { childrenOf, rssKb, treeRssKb, treePssKb } from './proc.mjs';

const MODE = process.argv[2] ?? 'read';
const N = Number(process.argv[3] ?? 6636);
const LIMIT_S = Number(process.argv[4] ?? 60);
const TOKEN = 'scale-' + process.pid;

export function manyFunctions(n) {
  let s = '';
  for (let i = 0; i < n; i++) s += `int f${i}(int x) { return x + ${i}; }\n`;
  return s + 'int main(void) { return f0(1) - 1; }\n';
}


const extra = (process.env.ARGUSD_ARGS ?? '').split(' ').filter(Boolean);
const server = await startTcp({ token: TOKEN, workers: 2, extra });
const pid = server.proc.pid;
await sleep(1500);  // workers started
const idleKb = treeRssKb(pid);
let peakKb = idleKb;
let peakPssKb = treePssKb(pid);
const sampler = setInterval(() => {
  peakKb = Math.max(peakKb, treeRssKb(pid));
  peakPssKb = Math.max(peakPssKb, treePssKb(pid));
}, 200);

const dir = tempDir();
const file = path.join(dir, 'many.c');
const text = manyFunctions(N);
fs.writeFileSync(file, text);
const uri = fileUri(file);
const didOpen = { textDocument: { uri, languageId: 'c', version: 1, text } };

const result = { mode: MODE, functions: N + 1, file_kb: Math.round(text.length / 1024), idle_mb: Math.round(idleKb / 1024) };
let received = 0;
let a;
const t0 = Date.now();
if (MODE === 'noread') {
  const socket = net.createConnection({ host: '127.0.0.1', port: server.port });
  await new Promise((r) => socket.once('connect', r));
  socket.pause();  // never reads: the daemon's writes back up
  const frame = (m) => {
    const b = Buffer.from(JSON.stringify(m));
    return Buffer.concat([Buffer.from(`Content-Length: ${b.length}\r\n\r\n`), b]);
  };
  socket.write(frame({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { processId: null, capabilities: {}, initializationOptions: { token: TOKEN } } }));
  socket.write(frame({ jsonrpc: '2.0', method: 'initialized', params: {} }));
  socket.write(frame({ jsonrpc: '2.0', method: 'textDocument/didOpen', params: didOpen }));
  a = { socket };
} else {
  a = await connectTcp(server.port);
  a.socket.on('data', (d) => (received += d.length));
  await a.conn.sendRequest('initialize', { processId: null, capabilities: {}, initializationOptions: { token: TOKEN } });
  a.conn.sendNotification('initialized', {});
  a.conn.sendNotification('textDocument/didOpen', didOpen);
}

// The second client, 10 s later: one 5-line argus/verify.
const second = (async () => {
  await sleep(10000);
  const b = await connectTcp(server.port);
  await b.conn.sendRequest('initialize', { processId: null, capabilities: {}, initializationOptions: { token: TOKEN } });
  const ts = Date.now();
  const r = await b.conn.sendRequest('argus/verify', {
    text: 'extern void reach_error(void);\nint g(int x) {\n  if (x > 3 && x < 2) reach_error();\n  return x;\n}\n',
    filename: 'small.c',
    function: 'g',
    timeout: 10,
  });
  result.second_client_ms = Date.now() - ts;
  result.second_client_verdict = r.verdict;
  b.conn.dispose();
  b.socket.destroy();
})();

if (MODE === 'noread') {
  const deadline = t0 + LIMIT_S * 1000;
  while (Date.now() < deadline && !/disconnecting client/.test(server.stderr())) await sleep(200);
  result.disconnected_after_s = /disconnecting client/.test(server.stderr()) ? (Date.now() - t0) / 1000 : null;
  result.log_line = (/argusd: disconnecting client[^\n]*/.exec(server.stderr()) ?? [null])[0];
  await second;
  while (Date.now() < deadline) await sleep(200);  // memory over the whole window
  a.socket.destroy();
} else {
  const deadline = t0 + LIMIT_S * 1000;
  let final = null;
  while (Date.now() < deadline) {
    const s = a.rec.status.get(uri);
    if (s && s.version === 1 && s.functions.length === N + 1 && s.functions.every((f) => f.final)) {
      final = Date.now();
      break;
    }
    await sleep(100);
  }
  const s = a.rec.status.get(uri);
  result.final_functions = s ? s.functions.filter((f) => f.final).length : 0;
  result.all_final_s = final ? (final - t0) / 1000 : null;
  const counts = {};
  for (const f of s?.functions ?? []) counts[f.state] = (counts[f.state] ?? 0) + 1;
  result.states = counts;
  await second;
  result.received_mb = +(received / 1048576).toFixed(2);
  const log = a.rec.statusLog.filter((e) => e.p.uri === uri);
  result.status_messages = log.length;
  result.first_status_s = log.length ? (log[0].t - t0) / 1000 : null;
  a.conn.sendNotification('textDocument/didClose', { textDocument: { uri } });
  await sleep(5000);
  result.after_close_mb = Math.round(treeRssKb(pid) / 1024);
  result.after_close_pss_mb = Math.round(treePssKb(pid) / 1024);
  result.after_close_by_process_mb = [pid, ...childrenOf(pid)].map((p) => Math.round(rssKb(p) / 1024));
  a.conn.dispose();
  a.socket.destroy();
}
clearInterval(sampler);
result.peak_mb = Math.round(peakKb / 1024);
result.peak_pss_mb = Math.round(peakPssKb / 1024);
server.proc.kill('SIGTERM');
await server.exited;
console.log(JSON.stringify(result, null, 1));
