// End-to-end test of the extension in a real VS Code (run by scripts/vscode-e2e.sh):
// code-server serves VS Code's workbench with the packaged extension installed in a
// fresh extensions directory; headless chromium (playwright-core, Debian's binary)
// opens a workspace holding a copy of examples/pointer_swap.c; the real argusd verifies
// it. Checked in the DOM: the squiggle of the violated call, "counterexample" in the
// status view, the trace's next-step command moving the cursor (status bar "Ln X"),
// the inline values of the current step, and, after fixing the bug with the keyboard
// and saving, "verified"; the condition of a loop verified up to a bound in the view
// and in a hover; a team server over TCP (token typed once into the prompt, kept in
// the secret storage across a restart). A screenshot of each state goes to $OUT.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');

const { ARGUSD, CHROMIUM, OUT, ROOT, CODE_SERVER, VSIX } = process.env;
for (const [k, v] of Object.entries({ ARGUSD, CHROMIUM, OUT, ROOT, CODE_SERVER, VSIX })) if (!v) throw new Error(`${k} is not set`);

const t0 = Date.now();
const secs = () => ((Date.now() - t0) / 1000).toFixed(1);
const log = (m) => console.log(`[${secs()} s] ${m}`);
const shots = [];

const ws = path.join(OUT, 'workspace');
const userData = path.join(OUT, 'user-data');
const extDir = path.join(OUT, 'extensions');
for (const d of [ws, path.join(userData, 'User'), extDir]) fs.mkdirSync(d, { recursive: true });
fs.copyFileSync(path.join(ROOT, 'examples', 'pointer_swap.c'), path.join(ws, 'pointer_swap.c'));
// a function the default strategy (auto) verifies only up to a bound: its invariant
// (2s = i(i+1)) is nonlinear, beyond k-induction's and predicate abstraction's reach
const loopSrc = [
  'extern unsigned __VERIFIER_nondet_uint(void);',
  'extern void reach_error(void);',
  '',
  'void count_up(unsigned n) {',
  '  unsigned i = 0, s = 0;',
  '  while (i < n) { i++; s += i; }',
  '  if (2 * s != i * (i + 1)) reach_error();',
  '}',
  '',
];
fs.writeFileSync(path.join(ws, 'loop_bound.c'), loopSrc.join('\n'));
const file = path.join(ws, 'pointer_swap.c');
const source = fs.readFileSync(file, 'utf8').split('\n');
const bugLine = source.findIndex(l => l.includes('a > b + 100')) + 1;
if (bugLine <= 0) throw new Error('examples/pointer_swap.c changed: no "a > b + 100" line');

fs.writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify({
  'security.workspace.trust.enabled': false,
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'editor.autoClosingBrackets': 'never',
  'editor.autoClosingQuotes': 'never',
  'editor.autoIndent': 'none',
  'editor.quickSuggestions': { other: false, comments: false, strings: false },
  'editor.suggestOnTriggerCharacters': false,
  'git.enabled': false,
  'git.openRepositoryInParentFolders': 'never',
  'editor.minimap.enabled': false,
  'files.autoSave': 'off',
  'argus.serverPath': ARGUSD,
  'argus.serverArgs': ['--workers', '2'],
  'argus.timeout': 10,
}, null, 2));

log(`installing ${path.basename(VSIX)} into a fresh extensions directory`);
execFileSync(CODE_SERVER, ['--extensions-dir', extDir, '--user-data-dir', userData, '--install-extension', VSIX], { stdio: 'pipe' });

const port = await new Promise((res, rej) => {
  const s = net.createServer();
  s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => res(p)); });
  s.on('error', rej);
});
const csLog = fs.openSync(path.join(OUT, 'code-server.log'), 'w');
const cs = spawn(CODE_SERVER, ['--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry',
  '--disable-update-check', '--disable-workspace-trust', '--user-data-dir', userData, '--extensions-dir', extDir, ws], {
  stdio: ['ignore', csLog, csLog], detached: true,
  // a fresh result store: every verdict in this test is computed by this argusd
  env: { ...process.env, ARGUS_STORE: path.join(OUT, 'results.sqlite') },
});
let browser;
let failed = false;
const cleanup = async () => {
  try { if (browser) await browser.close(); } catch { /* already gone */ }
  try { process.kill(-cs.pid, 'SIGTERM'); } catch { /* already gone */ }
  try { if (team) team.proc.kill('SIGTERM'); } catch { /* already gone */ }
};
process.on('SIGTERM', async () => { await cleanup(); process.exit(1); });

async function waitPort() {
  for (let i = 0; i < 300; i++) {
    const ok = await new Promise(r => { const s = net.connect(port, '127.0.0.1', () => { s.end(); r(true); }); s.on('error', () => r(false)); });
    if (ok) return;
    await new Promise(r => setTimeout(r, 100));
  }
  throw new Error(`code-server did not listen on ${port} within 30 s (see ${OUT}/code-server.log)`);
}


// ---- a team server (argusd --listen) and a JSON-RPC client to ask it for argus/stats ----
let team;
async function startTeamServer() {
  const token = `e2e-${process.pid}-${Date.now()}`;
  const tokenFile = path.join(OUT, 'team-token');
  fs.writeFileSync(tokenFile, token, { mode: 0o600 });
  const proc = spawn(ARGUSD, ['--listen', '127.0.0.1:0', '--token-file', tokenFile, '--no-store', '--workers', '1'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const teamLog = fs.createWriteStream(path.join(OUT, 'team-server.log'));
  const port = await new Promise((res, rej) => {
    let buf = '';
    const t = setTimeout(() => rej(new Error('the team server did not say where it listens within 10 s')), 10_000);
    proc.stderr.on('data', d => {
      teamLog.write(d);
      buf += d;
      const m = /listening on [^\s:]+:(\d+)/.exec(buf);
      if (m) { clearTimeout(t); res(Number(m[1])); }
    });
    proc.on('exit', c => rej(new Error(`the team server exited (${c})`)));
  });
  team = { proc, port, token };
  return team;
}

function rpc(port, token, method) {
  return new Promise((res, rej) => {
    const sock = net.connect(port, '127.0.0.1');
    const send = (m) => { const b = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...m })); sock.write(`Content-Length: ${b.length}\r\n\r\n`); sock.write(b); };
    let buf = Buffer.alloc(0);
    const t = setTimeout(() => { sock.destroy(); rej(new Error(`${method}: no answer within 10 s`)); }, 10_000);
    sock.on('error', rej);
    sock.on('data', d => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        const h = buf.indexOf('\r\n\r\n');
        if (h < 0) return;
        const len = Number(/Content-Length: (\d+)/i.exec(buf.subarray(0, h).toString())[1]);
        if (buf.length < h + 4 + len) return;
        const msg = JSON.parse(buf.subarray(h + 4, h + 4 + len).toString());
        buf = buf.subarray(h + 4 + len);
        if (msg.id === 1) {
          if (msg.error) { clearTimeout(t); sock.destroy(); return rej(new Error(`initialize: ${msg.error.message}`)); }
          send({ method: 'initialized', params: {} });
          send({ id: 2, method, params: {} });
        } else if (msg.id === 2) { clearTimeout(t); sock.destroy(); res(msg.result); }
      }
    });
    send({ id: 1, method: 'initialize', params: { processId: null, rootUri: null, capabilities: {}, initializationOptions: { token } } });
  });
}

let page;
async function shot(name, what) {
  const p = path.join(OUT, name);
  await page.screenshot({ path: p });
  shots.push(`${p}: ${what}`);
  log(`screenshot ${p}`);
}

async function command(title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input.input');
  await input.waitFor({ state: 'visible', timeout: 10_000 });
  await input.fill(`>${title}`);
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first();
  await row.waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
  await input.waitFor({ state: 'hidden', timeout: 10_000 });
}

// Quick Open (Ctrl+P) by the keyboard; the file search can lag behind a cold start,
// so the query is typed again (up to 4 times) until the file is listed.
async function openFile(name) {
  const qi = page.locator('.quick-input-widget input.input');
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('Control+P');
    await qi.waitFor({ state: 'visible', timeout: 10_000 });
    await qi.fill(name);
    try {
      await page.locator('.quick-input-widget .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 10_000 });
      break;
    } catch (e) {
      if (attempt >= 4) throw e;
      log(`Quick Open does not list ${name} yet (attempt ${attempt})`);
      await page.keyboard.press('Escape');
      await page.waitForTimeout(1000);
    }
  }
  await page.keyboard.press('Enter');
  await qi.waitFor({ state: 'hidden', timeout: 10_000 });
  await page.locator('.tab.active', { hasText: name }).waitFor({ timeout: 20_000 });
  await page.waitForSelector('.monaco-editor .view-lines', { timeout: 20_000 });
}

async function gotoLine(n) {
  await page.keyboard.press('Control+G');
  await page.locator('.quick-input-widget input.input').waitFor({ state: 'visible', timeout: 10_000 });
  await page.keyboard.type(String(n));
  await page.keyboard.press('Enter');
  await page.waitForTimeout(300);
  const at = await cursorLine();
  if (at.line !== n) throw new Error(`Go to Line: cursor at Ln ${at.line}, expected ${n}`);
}

const cursorLine = async () => {
  const t = await page.locator('#status\\.editor\\.selection').first().innerText();
  const m = /Ln (\d+), Col (\d+)/.exec(t);
  if (!m) throw new Error(`status bar selection item reads "${t}"`);
  return { line: Number(m[1]), col: Number(m[2]) };
};

// The status view's row of a function: "main" with its description.
const statusRow = (fn) => page.locator('[id="workbench.view.extension.argus"] .monaco-list-row', { has: page.locator('.label-name', { hasText: new RegExp(`^${fn}$`) }) }).first();

async function waitRowText(fn, re, timeout) {
  const deadline = Date.now() + timeout;
  let last = '';
  while (Date.now() < deadline) {
    const row = statusRow(fn);
    if (await row.count()) {
      const desc = await row.locator('.label-description').first().innerText().catch(() => '');
      last = `${fn} — ${desc.replace(/\s+/g, ' ')}`;
      if (re.test(last)) return last;
    }
    await page.waitForTimeout(250);
  }
  throw new Error(`status view: '${fn}' never matched ${re} within ${timeout / 1000} s (last: "${last}")`);
}

try {
  await waitPort();
  log(`code-server listening on 127.0.0.1:${port}`);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);
  await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
  log('workbench loaded');

  // open the file with Quick Open, by the keyboard
  await page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: 30_000 });
  await openFile('pointer_swap.c');
  const opened = Date.now();
  log('pointer_swap.c open');

  // 1. the squiggle of the violated call, and "counterexample" in the status view
  await page.waitForSelector('.monaco-editor .squiggly-error', { timeout: 60_000 });
  log(`squiggle after ${((Date.now() - opened) / 1000).toFixed(1)} s`);
  await command('Argus: Show Verification Status');
  const mainRow = await waitRowText('main', /counterexample/, 30_000);
  const swapRow = await waitRowText('swap', /verified/, 30_000);
  // loop_bound.c is in no editor: listed because the workspace's C files are verified too
  const bgRow = await waitRowText('count_up', /queued|running|verified/, 15_000);
  log(`status view: "${mainRow}" / "${swapRow}" / "${bgRow}" (loop_bound.c not open in an editor)`);
  await shot('1-counterexample.png', `squiggle under the reachable reach_error() (line ${bugLine}) and the Argus view: main — counterexample, swap — verified`);

  // 2. the trace: a click on main in the status view opens it at step 1
  await statusRow('main').click();
  const traceRows = page.locator('[id="workbench.view.extension.argus"] .monaco-list-row', { hasText: /^\d+\. pointer_swap\.c:\d+/ });
  await traceRows.first().waitFor({ timeout: 15_000 });
  const titleText = await page.locator('[id="workbench.view.extension.argus"] .pane-header', { hasText: /steps/i }).first().innerText();
  const nSteps = Number((/(\d+) steps/i.exec(titleText) ?? [])[1]);
  if (!(nSteps > 1)) throw new Error(`trace view title "${titleText}" names no step count`);
  await page.waitForFunction(() => /Ln \d+/.test(document.querySelector('#status\\.editor\\.selection')?.textContent ?? ''));
  const first = await cursorLine();
  const firstStep = (await traceRows.first().innerText()).replace(/\s+/g, ' ');
  log(`trace open: ${nSteps} steps; step 1 "${firstStep}", cursor Ln ${first.line}, Col ${first.col}`);
  const m1 = /pointer_swap\.c:(\d+)/.exec(firstStep);
  if (!m1 || Number(m1[1]) !== first.line) throw new Error(`the cursor (Ln ${first.line}) is not at step 1's line (${firstStep})`);

  // next step (F10, the extension's keybinding while a trace is open) until the line changes
  const seen = [first];
  let moved;
  for (let i = 1; i < nSteps && !moved; i++) {
    await page.keyboard.press('F10');
    // a step may stay at the same position; otherwise give the extension host up to 1.5 s
    let c = await cursorLine();
    for (const until = Date.now() + 1_500; c.line === first.line && c.col === first.col && Date.now() < until; ) {
      await page.waitForTimeout(100);
      c = await cursorLine();
    }
    seen.push(c);
    if (c.line !== first.line || c.col !== first.col) moved = c;
  }
  if (!moved) throw new Error(`F10 (Argus: Next Trace Step) never moved the cursor: ${JSON.stringify(seen)}`);
  log(`F10 moved the cursor: Ln ${first.line}, Col ${first.col} → Ln ${moved.line}, Col ${moved.col}`);
  // the inline values of the current step: an "after" decoration ("step k/n: a = ...");
  // the extension host sets it after it moved the cursor, and the workbench renders it a
  // frame later: poll (up to 5 s; one read right after the move found none under load)
  const readInline = () => page.evaluate(() => {
    for (const el of document.querySelectorAll('.monaco-editor .view-lines span')) {
      const c = getComputedStyle(el, '::after').content;
      if (c && c.includes('step ')) return c;
    }
    return null;
  });
  let inline = await readInline();
  for (const until = Date.now() + 5_000; !inline && Date.now() < until; ) {
    await page.waitForTimeout(100);
    inline = await readInline();
  }
  if (!inline || !/step \d+\/\d+/.test(inline)) throw new Error(`no inline values decoration after the current line (got ${inline})`);
  log(`inline decoration: ${inline}`);
  // previous step goes back
  await page.keyboard.press('Shift+F10');
  // the cursor moves when the extension host has handled the key: poll (up to 5 s) rather
  // than read it once after a fixed wait (a loaded machine took longer than 400 ms)
  const want = seen[seen.length - 2];
  let back = await cursorLine();
  for (const until = Date.now() + 5_000; (back.line !== want.line || back.col !== want.col) && Date.now() < until; ) {
    await page.waitForTimeout(100);
    back = await cursorLine();
  }
  if (back.line !== want.line || back.col !== want.col)
    throw new Error(`Shift+F10 went to Ln ${back.line}, Col ${back.col}, not back to ${JSON.stringify(seen[seen.length - 2])}`);
  await page.keyboard.press('F10');
  await page.waitForTimeout(400);
  await shot('2-trace-step.png', `counterexample trace view (${nSteps} steps), cursor moved by F10 to Ln ${moved.line}, inline values ${inline}`);

  // 3. fix the bug with the keyboard: go to the line, replace it, save
  await gotoLine(bugLine);
  await page.keyboard.press('End');
  await page.keyboard.press('Shift+Home');
  await page.keyboard.press('Shift+Home'); // both presses: from the first non-blank to the line start
  await page.keyboard.type('  if (b != a0 && a > b + 100) reach_error();  // fixed: b == a0 after the swap');
  await page.keyboard.press('Control+S');
  const fixedAt = Date.now();
  await waitRowText('main', /\bverified\b/, 60_000);
  await page.waitForFunction(() => document.querySelectorAll('.monaco-editor .squiggly-error').length === 0, null, { timeout: 30_000 });
  // the server verifies the edited buffer (didChange) before code-server's write of the
  // save reaches the disk: poll the file (up to 10 s) rather than read it once
  let saved = fs.readFileSync(file, 'utf8');
  for (const until = Date.now() + 10_000; !saved.includes('// fixed') && Date.now() < until; ) {
    await page.waitForTimeout(200);
    saved = fs.readFileSync(file, 'utf8');
  }
  if (!saved.includes('// fixed')) throw new Error('the edit was not saved to disk');
  log(`fixed and saved: main verified and no squiggle after ${((Date.now() - fixedAt) / 1000).toFixed(1)} s`);
  await shot('3-verified.png', 'after the keyboard fix and save: main — verified in the Argus view, no squiggle');

  // 4. a function verified only up to a bound: the condition in the view and in a hover
  await openFile('loop_bound.c');
  const condRow = await waitRowText('count_up', /verified for loops unrolled ≤ \d+ times/, 60_000);
  log(`status view: "${condRow}"`);
  await gotoLine(4);
  await command('Show or Focus Hover');
  const hoverBox = page.locator('.monaco-hover', { hasText: 'Argus' }).first();
  await hoverBox.waitFor({ state: 'visible', timeout: 15_000 });
  const hoverText = (await hoverBox.innerText()).replace(/\s+/g, ' ');
  if (!/count_up.*verified for loops unrolled ≤ \d+ times/.test(hoverText)) throw new Error(`hover reads "${hoverText}"`);
  log(`hover: "${hoverText}"`);
  await shot('4-condition-hover.png', `loop_bound.c: count_up verified under a condition; hover "${hoverText}"`);

  // 5. team server over TCP: argus.server = host:port, the token asked for once (kept in
  // the secret storage), the open files verified by that server
  await page.keyboard.press('Escape'); // close the hover
  const t = await startTeamServer();
  const before = await rpc(t.port, t.token, 'argus/stats');
  fs.mkdirSync(path.join(ws, '.vscode'), { recursive: true });
  fs.writeFileSync(path.join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'argus.server': `127.0.0.1:${t.port}` }));
  const tokenBox = page.locator('.quick-input-widget', { hasText: 'Argus team server' });
  await tokenBox.waitFor({ state: 'visible', timeout: 30_000 });
  await tokenBox.locator('input[type="password"]').waitFor({ timeout: 5_000 });
  await page.keyboard.type(t.token);
  await page.keyboard.press('Enter');
  log(`token typed into the prompt of the team server 127.0.0.1:${t.port}`);
  // The status view still shows the local daemon's results until the team server's
  // arrive, so the row alone proves nothing: first wait until the team server has
  // finished an analysis (it counts them when they end; count_up runs to its timeout).
  let after = before;
  for (const until = Date.now() + 60_000; !(after.analyses > before.analyses); ) {
    if (Date.now() > until) throw new Error(`the team server finished no analysis within 60 s: ${JSON.stringify(before)} → ${JSON.stringify(after)}`);
    await page.waitForTimeout(500);
    after = await rpc(t.port, t.token, 'argus/stats');
  }
  await waitRowText('count_up', /verified for loops unrolled ≤ \d+ times/, 60_000);
  // let the first connection's work drain, so that what the restart brings is counted alone
  for (const until = Date.now() + 60_000; after.queued > 0 || after.running > 0; ) {
    if (Date.now() > until) throw new Error(`the team server's work did not drain within 60 s: ${JSON.stringify(after)}`);
    await page.waitForTimeout(500);
    after = await rpc(t.port, t.token, 'argus/stats');
  }
  log(`team server verified the open files: analyses ${before.analyses} → ${after.analyses}, worker runs ${before.workerRuns} → ${after.workerRuns}`);
  await shot('5-team-server.png', `connected to the team server 127.0.0.1:${t.port} (token from the prompt); its results in the status view`);
  // restart: the token comes from the secret storage, no second prompt
  await command('Argus: Restart Server');
  const analysesBefore = after.analyses;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (await tokenBox.isVisible()) throw new Error('the token was asked for a second time after a restart');
    const st = await rpc(t.port, t.token, 'argus/stats');
    if (st.analyses > analysesBefore || (st.memoryHits + st.tuCacheHits) > (after.memoryHits + after.tuCacheHits)) break;
    if (Date.now() > deadline) throw new Error('after the restart the extension did not reconnect to the team server within 30 s');
    await page.waitForTimeout(500);
  }
  await waitRowText('count_up', /verified for loops unrolled ≤ \d+ times/, 30_000);
  log('restart: reconnected with the stored token, no second prompt');
} catch (e) {
  failed = true;
  console.error(`vscode-e2e FAILED at ${secs()} s: ${e instanceof Error ? e.message : e}`);
  if (page) { try { await page.screenshot({ path: path.join(OUT, 'failure.png') }); console.error(`screenshot: ${OUT}/failure.png`); } catch { /* */ } }
  try { console.error('--- code-server.log (end) ---\n' + fs.readFileSync(path.join(OUT, 'code-server.log'), 'utf8').split('\n').slice(-25).join('\n')); } catch { /* */ }
} finally {
  await cleanup();
}
if (!failed) {
  console.log(`vscode-e2e passed in ${secs()} s; screenshots:\n  ${shots.join('\n  ')}`);
}
process.exit(failed ? 1 : 0);
