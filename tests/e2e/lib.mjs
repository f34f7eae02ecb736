// Helpers for the argusd end-to-end tests: real daemons (build/argusd), real LSP
// client libraries (vscode-languageserver-protocol / vscode-jsonrpc), loopback only.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ARGUSD = process.env.ARGUSD ?? path.resolve(here, '../../build/argusd');

const tempDirs = [];
process.on('exit', () => {
  for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true });
});

// A fresh directory, removed when the test process exits.
export function tempDir() {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'argusd-e2e-'));
  tempDirs.push(d);
  return d;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Polls `pred` every 20 ms; rejects after `ms` with `what`.
export async function waitFor(pred, ms, what = 'condition') {
  const end = Date.now() + ms;
  for (;;) {
    const v = await pred();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(20);
  }
}

// Records what the server pushes: diagnostics and argus/status per URI, progress.
function attachRecorders(conn) {
  const rec = { diagnostics: new Map(), status: new Map(), progress: [], partial: [], diagLog: [], statusLog: [], lensRefresh: 0 };
  conn.onRequest('workspace/codeLens/refresh', () => {
    rec.lensRefresh++;
    return null;
  });
  conn.onNotification('textDocument/publishDiagnostics', (p) => {
    rec.diagnostics.set(p.uri, p);
    rec.diagLog.push({ t: Date.now(), p });
  });
  // argus/status carries every function when `full`, else only those that changed:
  // rec.status keeps the merged table per URI (statusLog: the merged table after each).
  conn.onNotification('argus/status', (p) => {
    rec.statusBytes = (rec.statusBytes ?? 0) + JSON.stringify(p).length;
    const prev = rec.status.get(p.uri);
    let merged = p;
    if (!p.full && prev) {
      const fns = prev.functions.map((f) => p.functions.find((g) => g.name === f.name) ?? f);
      for (const g of p.functions) if (!fns.some((f) => f.name === g.name)) fns.push(g);
      merged = { ...p, functions: fns };
    }
    rec.status.set(p.uri, merged);
    rec.statusLog.push({ t: Date.now(), p: merged, delta: p });
  });
  conn.onNotification('argus/partialResult', (p) => rec.partial.push(p));
  conn.onRequest('window/workDoneProgress/create', () => null);
  conn.onNotification('$/progress', (p) => rec.progress.push(p));
  conn.onNotification('window/logMessage', () => {});
  conn.onNotification('window/showMessage', () => {});
  return rec;
}

const quietLogger = { error: () => {}, warn: () => {}, info: () => {}, log: () => {} };

// Starts `argusd --stdio` and connects a client. Options: store (path or null), workers.
export function startStdio({ store = null, workers = 2, debounceMs = 100, extra = [] } = {}) {
  const args = ['--stdio', '--workers', String(workers), ...extra];
  if (debounceMs !== null) args.push('--debounce-ms', String(debounceMs));
  if (store) args.push('--store', store);
  else args.push('--no-store');
  const proc = spawn(ARGUSD, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  const conn = createProtocolConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin), quietLogger);
  const rec = attachRecorders(conn);
  conn.listen();
  const exited = new Promise((r) => proc.on('exit', (code, sig) => r({ code, sig })));
  return { proc, conn, rec, exited, stderr: () => stderr };
}

export async function initialize(conn, initializationOptions = undefined) {
  const r = await conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: null,
    capabilities: { window: { workDoneProgress: true }, workspace: { codeLens: { refreshSupport: true } } },
    initializationOptions,
  });
  conn.sendNotification('initialized', {});
  return r;
}

export async function stop(d) {
  try {
    await Promise.race([d.conn.sendRequest('shutdown'), sleep(2000)]);
  } catch {}
  try {
    d.conn.sendNotification('exit');
  } catch {}
  const r = await Promise.race([d.exited, sleep(5000).then(() => null)]);
  if (!r) d.proc.kill('SIGKILL');
  d.conn.dispose();
}

// Starts `argusd --listen 127.0.0.1:0` and returns {proc, port, exited}.
export async function startTcp({ token, store = null, workers = 2, extra = [] } = {}) {
  const dir = tempDir();
  const tokenFile = path.join(dir, 'token');
  fs.writeFileSync(tokenFile, token + '\n', { mode: 0o600 });
  const args = ['--listen', '127.0.0.1:0', '--token-file', tokenFile, '--workers', String(workers), ...extra];
  if (store) args.push('--store', store);
  else args.push('--no-store');
  const proc = spawn(ARGUSD, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((r) => proc.on('exit', (code, sig) => r({ code, sig })));
  const port = await waitFor(() => {
    const m = /listening on 127\.0\.0\.1:(\d+)/.exec(stderr);
    return m ? Number(m[1]) : null;
  }, 10000, 'argusd to listen');
  return { proc, port, exited, stderr: () => stderr };
}

export async function connectTcp(port) {
  const socket = net.createConnection({ host: '127.0.0.1', port });
  await new Promise((res, rej) => {
    socket.once('connect', res);
    socket.once('error', rej);
  });
  const conn = createProtocolConnection(new StreamMessageReader(socket), new StreamMessageWriter(socket), quietLogger);
  const rec = attachRecorders(conn);
  conn.listen();
  return { socket, conn, rec };
}

// A raw framed-bytes client (for malformed input): write(bytes), next() → parsed body.
export async function rawTcp(port) {
  const socket = net.createConnection({ host: '127.0.0.1', port });
  await new Promise((res, rej) => {
    socket.once('connect', res);
    socket.once('error', rej);
  });
  return rawClient(socket, socket);
}

export function rawClient(readable, writable) {
  let buf = Buffer.alloc(0);
  const queue = [];
  const waiters = [];
  readable.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    for (;;) {
      const h = buf.indexOf('\r\n\r\n');
      if (h < 0) break;
      const m = /Content-Length: *(\d+)/i.exec(buf.subarray(0, h).toString());
      const n = Number(m[1]);
      if (buf.length < h + 4 + n) break;
      const body = JSON.parse(buf.subarray(h + 4, h + 4 + n).toString());
      buf = buf.subarray(h + 4 + n);
      if (waiters.length) waiters.shift()(body);
      else queue.push(body);
    }
  });
  return {
    write: (bytes) => writable.write(bytes),
    send: (msg) => {
      const b = Buffer.from(JSON.stringify(msg));
      writable.write(`Content-Length: ${b.length}\r\n\r\n`);
      writable.write(b);
    },
    next: (ms = 10000) =>
      queue.length
        ? Promise.resolve(queue.shift())
        : new Promise((res, rej) => {
            const t = setTimeout(() => rej(new Error('no message within ' + ms + ' ms')), ms);
            waiters.push((b) => {
              clearTimeout(t);
              res(b);
            });
          }),
    // Next message that is a response (skips notifications and server requests).
    async response(ms = 10000) {
      for (;;) {
        const m = await this.next(ms);
        if (!('method' in m)) return m;
      }
    },
  };
}

export function fileUri(p) {
  return 'file://' + p;
}

// Function status from the latest argus/status of `uri`.
export function fnStatus(rec, uri, name) {
  const s = rec.status.get(uri);
  return s?.functions.find((f) => f.name === name);
}

export function settled(rec, uri, version) {
  const s = rec.status.get(uri);
  return s && s.version === version && s.pending === 0 && s.functions.length > 0;
}

export function errors(rec, uri) {
  return (rec.diagnostics.get(uri)?.diagnostics ?? []).filter((d) => d.severity === 1);
}

// Programs used by several tests.
export const BUGGY = `extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int helper(int x) { return x * 2; }
int check(int y) {
  int z = helper(y);
  if (z == 14) reach_error();
  return z;
}
int main(void) {
  return check(__VERIFIER_nondet_int()) > 0;
}
`;

// The deep stage runs until its timeout: the error needs 2^28 loop iterations.
export const SLOW = `extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int main(void) {
  unsigned x = 0;
  while (__VERIFIER_nondet_int()) { x++; }
  if (x == 0xFFFFFFF) reach_error();
  return 0;
}
`;

export function replaceOnce(text, from, to) {
  const i = text.indexOf(from);
  if (i < 0) throw new Error('not found: ' + from);
  return text.slice(0, i) + to + text.slice(i + from.length);
}

// LSP position of the first occurrence of `needle`.
export function positionOf(text, needle) {
  const i = text.indexOf(needle);
  if (i < 0) throw new Error('not found: ' + needle);
  const before = text.slice(0, i).split('\n');
  return { line: before.length - 1, character: before[before.length - 1].length };
}

// A free TCP port on loopback (redis-server has no --port 0).
export async function freePort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const port = s.address().port;
  await new Promise((r) => s.close(r));
  return port;
}

// Starts a real redis-server (Debian package) on 127.0.0.1:port with a password and AOF
// (data in dir); resolves when it accepts connections. stop(): SIGTERM (AOF written).
export async function startRedis({ dir, port, password }) {
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir,
    '--requirepass', password, '--appendonly', 'yes', '--appendfsync', 'always', '--save', '',
    '--protected-mode', 'yes'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (out += d));
  proc.on('error', (e) => (out += String(e)));
  const exited = new Promise((r) => proc.on('exit', (code, sig) => r({ code, sig })));
  await waitFor(() => /Ready to accept connections/.test(out) || proc.exitCode !== null || /ENOENT/.test(out), 10000, 'redis-server');
  if (proc.exitCode !== null || !/Ready to accept/.test(out)) throw new Error('redis-server did not start: ' + out);
  return {
    proc, exited, out: () => out,
    stop: async () => {
      proc.kill('SIGTERM');
      await Promise.race([exited, sleep(10000)]);
    },
  };
}
