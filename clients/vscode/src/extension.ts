// Argus for VS Code: a thin client over argusd (server/README.md). The language client
// starts `argusd --stdio` (or connects to a team server over TCP); this file adds what
// LSP alone does not show: the per-function status (tree view, gutter icons, status bar)
// from argus/status deltas, counterexample traces to step through with inline values,
// and conditions in hovers.
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  CloseAction, ErrorAction, LanguageClient, LanguageClientOptions, ServerOptions, State, StreamInfo,
} from 'vscode-languageclient/node';
import {
  ConditionInfo, Counterexample, FunctionStatus, StatusMessage, StatusStore, conditionText, diagnosticFunction,
  parseHostPort, resolveServerPath, serverConfig, Settings,
} from './model';
import { StatusTree, StatusNode } from './status-view';
import { TraceController } from './trace-view';

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
const store = new StatusStore();
const conditions = new Map<string, string>(); // uri#fn → condition sentence
let statusTree: StatusTree;
let traces: TraceController;
let statusBar: vscode.StatusBarItem;
let gutter: Map<string, vscode.TextEditorDecorationType>;
let restarts: number[] = [];
let stopping = false;
const heldChanges: Array<() => Promise<void>> = [];
const explicit = new Set<vscode.CancellationTokenSource>();

function cfg(): vscode.WorkspaceConfiguration { return vscode.workspace.getConfiguration('argus'); }

function settings(): Settings {
  const c = cfg();
  return {
    strategy: c.get<string>('strategy'), chain: c.get<string[]>('chain'), timeout: c.get<number>('timeout'),
    solver: c.get<string>('solver'), dataModel: c.get<string>('dataModel'), properties: c.get<string[]>('properties'),
  };
}

const C_SELECTOR = [{ scheme: 'file', language: 'c' }, { scheme: 'untitled', language: 'c' }];

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('Argus');
  context.subscriptions.push(output);
  const media = (f: string) => vscode.Uri.file(context.asAbsolutePath(path.join('media', f)));
  gutter = new Map(['queued', 'running', 'verified', 'violated', 'conditional', 'error'].map(s => [s,
    vscode.window.createTextEditorDecorationType({ gutterIconPath: media(`${s}.svg`), gutterIconSize: '80%' })]));
  for (const d of gutter.values()) context.subscriptions.push(d);

  statusTree = new StatusTree(store, conditions);
  const statusView = vscode.window.createTreeView('argus.status', { treeDataProvider: statusTree, showCollapseAll: true });
  context.subscriptions.push(statusView);
  traces = new TraceController(context, () => client);

  statusBar = vscode.window.createStatusBarItem('argus.progress', vscode.StatusBarAlignment.Left, 10);
  statusBar.name = 'Argus';
  statusBar.command = 'argus.statusBarClick';
  context.subscriptions.push(statusBar);
  updateStatusBar();

  const reg = (id: string, f: (...a: any[]) => unknown) => context.subscriptions.push(vscode.commands.registerCommand(id, f));
  reg('argus.restartServer', () => restart());
  reg('argus.showOutput', () => output.show(true));
  reg('argus.showStatus', () => vscode.commands.executeCommand('argus.status.focus'));
  reg('argus.showTrace', (uri?: string | vscode.Uri, fn?: string) => showTrace(uri, fn));
  reg('argus.showResult', (uri: string, fn: string) => showResult(uri, fn));
  reg('argus.showCondition', (uri?: string, fn?: string) => showCondition(uri, fn));
  reg('argus.verifyFile', () => verifyFile());
  reg('argus.verifyWorkspace', () => openWorkspaceFiles(true));
  reg('argus.verifyFunction', (uri?: string, fn?: string) => verifyFunction(uri, fn, undefined));
  reg('argus.verifyStronger', (uri?: string, fn?: string) => verifyStronger(uri, fn));
  reg('argus.cancel', () => cancelExplicit());
  reg('argus.statusBarClick', () => explicit.size ? cancelExplicit() : vscode.commands.executeCommand('argus.status.focus'));
  reg('argus.forgetToken', async () => {
    const hp = cfg().get<string>('server');
    if (hp) await context.secrets.delete(secretKey(hp));
    vscode.window.showInformationMessage('Argus: the team server token was forgotten; it is asked for at the next connection.');
  });
  reg('argus.revealFunction', (node: StatusNode | { uri: string; fn: FunctionStatus }) => revealFunction(node.uri, node.fn!));
  reg('argus.status.showTrace', (node: StatusNode) => node.fn && showTrace(node.uri, node.fn.name));
  reg('argus.status.showCondition', (node: StatusNode) => node.fn && showCondition(node.uri, node.fn.name));
  reg('argus.status.verifyStronger', (node: StatusNode) => node.fn && verifyStronger(node.uri, node.fn.name));

  context.subscriptions.push(
    vscode.languages.registerHoverProvider(C_SELECTOR, { provideHover: (doc, pos, tok) => hover(doc, pos, tok) }),
    vscode.languages.registerCodeActionsProvider(C_SELECTOR, { provideCodeActions: codeActions },
      { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] }),
    vscode.window.onDidChangeVisibleTextEditors(() => { refreshGutters(); sendVisibleRanges(); }),
    vscode.window.onDidChangeTextEditorVisibleRanges(e => scheduleVisibleRange(e.textEditor)),
    vscode.workspace.onDidCloseTextDocument(d => { store.remove(d.uri.toString()); statusTree.refresh(); updateStatusBar(); }),
    vscode.workspace.onDidSaveTextDocument(d => { if (cfg().get('verifyOn') === 'save') flushChanges(); void d; }),
    vscode.workspace.onDidChangeConfiguration(e => {
      if (e.affectsConfiguration('argus.serverPath') || e.affectsConfiguration('argus.server')) void restart();
      else if (e.affectsConfiguration('argus') && client?.state === State.Running) {
        if (cfg().get('verifyOn') === 'change') flushChanges();
        void client.sendNotification('workspace/didChangeConfiguration', { settings: { argus: serverConfig(settings()) } });
      }
    }),
  );
  // running functions: tick their elapsed time in the view
  const tick = setInterval(() => { if (Object.keys(store.counts()).includes('running')) statusTree.refresh(); }, 1000);
  context.subscriptions.push({ dispose: () => clearInterval(tick) });

  await start(context);
}

export async function deactivate(): Promise<void> {
  stopping = true;
  if (client) await client.stop().catch(() => undefined);
}

function secretKey(hostPort: string): string { return `argus.token.${hostPort}`; }

let extContext: vscode.ExtensionContext;

async function start(context: vscode.ExtensionContext = extContext): Promise<void> {
  extContext = context;
  const folders = (vscode.workspace.workspaceFolders ?? []).map(f => f.uri.fsPath);
  const team = cfg().get<string>('server', '');
  let serverOptions: ServerOptions;
  const initOptions: Record<string, unknown> = serverConfig(settings());
  if (team) {
    const hp = parseHostPort(team);
    if (!hp) {
      vscode.window.showErrorMessage(`Argus: argus.server must be "host:port", not "${team}".`);
      return;
    }
    let token = await context.secrets.get(secretKey(team));
    if (!token) {
      token = await vscode.window.showInputBox({ title: `Argus team server ${team}`, prompt: 'Token of the team server (kept in VS Code\'s secret storage)', password: true, ignoreFocusOut: true });
      if (!token) { vscode.window.showWarningMessage('Argus: no token given; not connected to the team server.'); return; }
      await context.secrets.store(secretKey(team), token);
    }
    initOptions.token = token;
    serverOptions = () => new Promise<StreamInfo>((resolve, reject) => {
      const sock = net.connect(hp.port, hp.host, () => resolve({ reader: sock, writer: sock }));
      sock.once('error', reject);
    });
    output.appendLine(`argus: connecting to team server ${team}`);
  } else {
    const command = resolveServerPath(cfg().get<string>('serverPath'), folders, p => { try { fs.accessSync(p, fs.constants.X_OK); return true; } catch { return false; } });
    const args = ['--stdio', ...cfg().get<string[]>('serverArgs', [])];
    output.appendLine(`argus: starting ${command} ${args.join(' ')}`);
    serverOptions = { command, args, options: { cwd: folders[0] } };
  }

  const clientOptions: LanguageClientOptions = {
    documentSelector: C_SELECTOR,
    outputChannel: output,
    initializationOptions: initOptions,
    errorHandler: {
      error: () => ({ action: ErrorAction.Continue }),
      closed: () => {
        if (stopping) return { action: CloseAction.DoNotRestart, handled: true };
        const now = Date.now();
        restarts = restarts.filter(t => now - t < 180_000);
        store.clear(); statusTree.refresh(); refreshGutters(); updateStatusBar();
        if (restarts.length >= 5) {
          vscode.window.showErrorMessage('Argus: argusd exited 5 times in 3 minutes; not restarting it. See "Argus: Show Output Log".', 'Restart', 'Show Log')
            .then(a => a === 'Restart' ? restart() : a === 'Show Log' ? output.show(true) : undefined);
          return { action: CloseAction.DoNotRestart, handled: true };
        }
        restarts.push(now);
        vscode.window.showWarningMessage('Argus: argusd exited; restarting it.');
        return { action: CloseAction.Restart, handled: true };
      },
    },
    initializationFailedHandler: e => {
      const msg = e instanceof Error ? e.message : String(e);
      output.appendLine(`argus: initialize failed: ${msg}`);
      if (team && /unauthori[sz]ed/i.test(msg)) {
        void context.secrets.delete(secretKey(team));
        vscode.window.showErrorMessage('Argus: the team server refused the token; it will be asked for again at the next start.', 'Restart')
          .then(a => a === 'Restart' ? restart() : undefined);
      } else {
        vscode.window.showErrorMessage(`Argus: cannot start argusd: ${msg}`, 'Show Log').then(a => a ? output.show(true) : undefined);
      }
      return false;
    },
    middleware: {
      didChange: (event, next) => {
        const mode = cfg().get<string>('verifyOn', 'change');
        if (mode === 'change') return next(event);
        heldChanges.push(() => next(event));
        return Promise.resolve();
      },
    },
  };

  client = new LanguageClient('argus', 'Argus (argusd)', serverOptions, clientOptions);
  client.onDidChangeState(e => {
    if (e.newState === State.Running) {
      store.clear(); statusTree.refresh();
      sendVisibleRanges();
    }
    updateStatusBar();
  });
  client.onNotification('argus/status', (msg: StatusMessage) => onStatus(msg));
  try {
    await client.start();
  } catch (e) {
    output.appendLine(`argus: ${e instanceof Error ? e.message : String(e)}`);
    updateStatusBar();
    return;
  }
  sendVisibleRanges();
  if (cfg().get<boolean>('verifyWorkspace', true)) void openWorkspaceFiles(false);
}

// The workspace's C files are opened as documents (not shown), so argusd verifies every
// function of the workspace, not only those of the files in editors. At most
// argus.maxWorkspaceFiles files; build trees and node_modules are skipped.
async function openWorkspaceFiles(explicitly: boolean): Promise<void> {
  const max = cfg().get<number>('maxWorkspaceFiles', 50);
  const files = await vscode.workspace.findFiles('**/*.c', '{**/build/**,**/build-*/**,**/node_modules/**,**/.git/**}', max + 1);
  if (files.length > max) {
    output.appendLine(`argus: the workspace has more than ${max} C files; only ${max} are opened (argus.maxWorkspaceFiles)`);
    if (explicitly) vscode.window.showInformationMessage(`Argus: verifying the first ${max} C files of the workspace (argus.maxWorkspaceFiles).`);
  }
  for (const f of files.slice(0, max).sort((a, b) => a.fsPath.localeCompare(b.fsPath))) {
    try { await vscode.workspace.openTextDocument(f); } catch (e) { output.appendLine(`argus: cannot open ${f.fsPath}: ${e}`); }
  }
}

async function restart(): Promise<void> {
  stopping = true;
  const old = client;
  client = undefined;
  if (old) await old.stop().catch(() => undefined);
  stopping = false;
  restarts = [];
  store.clear(); statusTree.refresh(); refreshGutters(); updateStatusBar();
  await start();
}

function onStatus(msg: StatusMessage): void {
  if (!store.apply(msg)) return;
  // conditions of functions that are no longer conditional are stale
  for (const f of msg.functions ?? []) if (f.state !== 'conditional') conditions.delete(`${msg.uri}#${f.name}`);
  for (const f of msg.functions ?? []) if (f.state === 'conditional') void fetchCondition(msg.uri, f.name);
  statusTree.refresh();
  refreshGutters(msg.uri);
  updateStatusBar();
  traces.onStatus(msg);
}

async function fetchCondition(uri: string, fn: string): Promise<ConditionInfo | undefined> {
  if (!client) return undefined;
  try {
    const c = await client.sendRequest<ConditionInfo | null>('argus/condition', { uri, function: fn });
    const t = conditionText(c);
    if (t) { conditions.set(`${uri}#${fn}`, t); statusTree.refresh(); }
    return c ?? undefined;
  } catch { return undefined; }
}

function refreshGutters(uri?: string): void {
  for (const ed of vscode.window.visibleTextEditors) {
    const u = ed.document.uri.toString();
    if (uri && u !== uri) continue;
    const byState = new Map<string, vscode.Range[]>();
    for (const f of store.functions(u)) {
      const l = f.range.start.line;
      (byState.get(f.state) ?? byState.set(f.state, []).get(f.state)!).push(new vscode.Range(l, 0, l, 0));
    }
    for (const [s, d] of gutter) ed.setDecorations(d, byState.get(s) ?? []);
  }
}

function updateStatusBar(): void {
  if (!client || client.state !== State.Running) {
    statusBar.text = client?.state === State.Starting ? '$(sync~spin) Argus: starting' : '$(debug-disconnect) Argus: stopped';
    statusBar.tooltip = 'argusd is not running — click to show the status view; "Argus: Restart Server" restarts it';
    statusBar.show();
    return;
  }
  const pending = store.totalPending();
  const c = store.counts();
  const parts = [`${c.verified ?? 0} verified`, `${c.violated ?? 0} counterexample`];
  if (c.conditional) parts.push(`${c.conditional} conditional`);
  if (c.error) parts.push(`${c.error} error`);
  if (pending > 0 || explicit.size > 0) {
    statusBar.text = `$(sync~spin) Argus: ${pending} pending`;
    statusBar.tooltip = `Argus is verifying (${parts.join(', ')}). ${explicit.size ? 'Click to cancel the explicit verification requests.' : 'Click to show the status view.'}`;
  } else {
    statusBar.text = `${c.violated ? '$(error)' : '$(pass)'} Argus: ${parts.join(', ')}`;
    statusBar.tooltip = 'Argus verification status — click to show the status view';
  }
  statusBar.show();
}

// ---- visible ranges → argus/visibleRange (debounced) ----
const visibleTimers = new Map<string, NodeJS.Timeout>();
function scheduleVisibleRange(ed: vscode.TextEditor): void {
  const u = ed.document.uri.toString();
  clearTimeout(visibleTimers.get(u));
  visibleTimers.set(u, setTimeout(() => { visibleTimers.delete(u); sendVisibleRange(ed); }, 250));
}
function sendVisibleRange(ed: vscode.TextEditor): void {
  if (!client || client.state !== State.Running || ed.document.languageId !== 'c' || !ed.visibleRanges.length) return;
  const first = ed.visibleRanges[0].start.line, last = ed.visibleRanges[ed.visibleRanges.length - 1].end.line;
  void client.sendNotification('argus/visibleRange', { uri: ed.document.uri.toString(), range: { start: { line: first, character: 0 }, end: { line: last, character: 0 } } });
}
function sendVisibleRanges(): void { for (const ed of vscode.window.visibleTextEditors) sendVisibleRange(ed); }

function flushChanges(): void {
  const held = heldChanges.splice(0);
  void (async () => { for (const f of held) await f(); })();
}

// ---- commands ----
function pick(uri?: string | vscode.Uri, fn?: string): { uri: string; fn: string } | undefined {
  const u = uri ? uri.toString() : vscode.window.activeTextEditor?.document.uri.toString();
  if (!u) return undefined;
  if (fn) return { uri: u, fn };
  const ed = vscode.window.activeTextEditor;
  const at = ed && ed.document.uri.toString() === u ? store.functionAt(u, ed.selection.active.line) : undefined;
  if (at) return { uri: u, fn: at.name };
  const violated = store.functions(u).find(f => f.state === 'violated');
  return violated ? { uri: u, fn: violated.name } : undefined;
}

async function showTrace(uri?: string | vscode.Uri, fn?: string): Promise<void> {
  const p = pick(uri, fn);
  if (!p || !client) { vscode.window.showInformationMessage('Argus: no function with a counterexample here.'); return; }
  const cex = await client.sendRequest<Counterexample | null>('argus/counterexample', { uri: p.uri, function: p.fn });
  if (!cex || !cex.steps || cex.steps.length === 0) {
    vscode.window.showInformationMessage(`Argus: '${p.fn}' has no counterexample.`);
    return;
  }
  await traces.show(p.uri, p.fn, cex);
}

async function showResult(uri: string, fn: string): Promise<void> {
  const f = store.get(uri)?.functions.get(fn);
  if (f?.state === 'violated') return showTrace(uri, fn);
  if (f?.state === 'conditional') return showCondition(uri, fn);
  await vscode.commands.executeCommand('argus.status.focus');
}

async function showCondition(uri?: string, fn?: string): Promise<void> {
  const p = pick(uri, fn);
  if (!p) return;
  const c = await fetchCondition(p.uri, p.fn);
  const t = conditionText(c) ?? 'no condition (nothing was left out)';
  const a = await vscode.window.showInformationMessage(`Argus: '${p.fn}' ${t}`, 'Verify with a stronger strategy');
  if (a) await verifyStronger(p.uri, p.fn);
}

async function verifyFile(): Promise<void> {
  flushChanges();
  const ed = vscode.window.activeTextEditor;
  if (!ed || !client) return;
  for (const f of store.functions(ed.document.uri.toString())) void verifyFunction(ed.document.uri.toString(), f.name, undefined, true);
}

async function verifyStronger(uri?: string, fn?: string): Promise<void> {
  const p = pick(uri, fn);
  if (!p) return;
  const choice = await vscode.window.showQuickPick([
    { label: 'kind', description: 'k-induction with invariants (proofs of unbounded loops)' },
    { label: 'pred', description: 'predicate abstraction (CEGAR)' },
    { label: 'kiki', description: 'k-induction + interpolation portfolio' },
    { label: 'ibmc', description: 'incremental BMC with a 4× longer timeout' },
  ], { title: `Continue verifying '${p.fn}' with` });
  if (!choice) return;
  const t = cfg().get<number>('timeout', 30);
  await verifyFunction(p.uri, p.fn, { algorithm: choice.label, timeout: choice.label === 'ibmc' ? t * 4 : t * 2 });
}

async function verifyFunction(uri?: string, fn?: string, extra?: { algorithm: string; timeout: number }, quiet = false): Promise<void> {
  flushChanges();
  const p = pick(uri, fn);
  if (!p || !client) { vscode.window.showInformationMessage('Argus: put the cursor in a function to verify it.'); return; }
  const cts = new vscode.CancellationTokenSource();
  explicit.add(cts); updateStatusBar();
  try {
    const s = serverConfig(settings());
    const params: Record<string, unknown> = { uri: p.uri, function: p.fn, timeout: extra?.timeout ?? s.timeout ?? 30, algorithm: extra?.algorithm ?? (s.algorithm as string) ?? 'auto' };
    if (s.solver) params.solver = s.solver;
    const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Argus: verifying '${p.fn}'${extra ? ` with ${extra.algorithm}` : ''}`, cancellable: true },
      (_prog, tok) => { tok.onCancellationRequested(() => cts.cancel()); return client!.sendRequest<any>('argus/verify', params, cts.token); });
    const verdict = r?.verdict;
    const what = verdict === 'true' ? 'verified' : verdict === 'false' ? 'counterexample' : `unknown: ${conditionText(r?.condition) ?? r?.reason ?? ''}`;
    if (verdict === 'false' && r.counterexample?.steps?.length) {
      await traces.show(p.uri, p.fn, r.counterexample);
    }
    if (!quiet || verdict !== 'true') vscode.window.showInformationMessage(`Argus: '${p.fn}' ${what} (${r?.algorithm ?? ''})`);
  } catch (e) {
    if (!cts.token.isCancellationRequested) vscode.window.showErrorMessage(`Argus: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    explicit.delete(cts); cts.dispose(); updateStatusBar();
  }
}

function cancelExplicit(): void {
  for (const c of explicit) c.cancel();
  vscode.window.setStatusBarMessage('Argus: cancelled', 3000);
}

function revealFunction(uri: string, f: FunctionStatus): void {
  const r = new vscode.Range(f.range.start.line, f.range.start.character, f.range.start.line, f.range.start.character);
  void vscode.window.showTextDocument(vscode.Uri.parse(uri), { selection: r, preserveFocus: false });
}

// ---- hover: the state, and for a conditional function its condition ----
async function hover(doc: vscode.TextDocument, pos: vscode.Position, _tok: vscode.CancellationToken): Promise<vscode.Hover | undefined> {
  const uri = doc.uri.toString();
  const f = store.functionAt(uri, pos.line);
  if (!f) return undefined;
  // the whole body for a conditional function, else only its first line
  if (f.state !== 'conditional' && pos.line !== f.range.start.line) return undefined;
  const md = new vscode.MarkdownString(undefined, true);
  md.isTrusted = { enabledCommands: ['argus.showTrace', 'argus.verifyStronger'] };
  const args = encodeURIComponent(JSON.stringify([uri, f.name]));
  if (f.state === 'conditional') {
    const c = await fetchCondition(uri, f.name);
    const t = conditionText(c) ?? conditions.get(`${uri}#${f.name}`) ?? 'verified under a condition';
    md.appendMarkdown(`**Argus** — \`${f.name}\`: ${t}`);
    if (c?.excluded?.length) md.appendMarkdown(`\n\nNot verified: ${c.excluded.join('; ')}`);
    if (c?.reason) md.appendMarkdown(`\n\nReason: ${c.reason}`);
    md.appendMarkdown(`\n\n[Verify with a stronger strategy](command:argus.verifyStronger?${args})`);
  } else if (f.state === 'violated') {
    md.appendMarkdown(`**Argus** — \`${f.name}\`: counterexample. [Show the trace](command:argus.showTrace?${args})`);
  } else {
    md.appendMarkdown(`**Argus** — \`${f.name}\`: ${f.state === 'running' ? `running ${f.algorithm ?? ''}` : f.state}`);
  }
  return new vscode.Hover(md, doc.lineAt(pos.line).range);
}

function codeActions(doc: vscode.TextDocument, _r: vscode.Range, ctx: vscode.CodeActionContext): vscode.CodeAction[] {
  const out: vscode.CodeAction[] = [];
  for (const d of ctx.diagnostics) {
    if (d.source !== 'argus') continue;
    const fn = diagnosticFunction((d as any).data, d.message);
    if (!fn) continue;
    const state = store.get(doc.uri.toString())?.functions.get(fn)?.state;
    if (state === 'violated' || /counterexample/.test(d.message)) {
      const a = new vscode.CodeAction(`Argus: show the counterexample trace of '${fn}'`, vscode.CodeActionKind.QuickFix);
      a.command = { title: a.title, command: 'argus.showTrace', arguments: [doc.uri.toString(), fn] };
      a.diagnostics = [d];
      out.push(a);
    } else if (state === 'conditional') {
      const a = new vscode.CodeAction(`Argus: verify '${fn}' with a stronger strategy`, vscode.CodeActionKind.QuickFix);
      a.command = { title: a.title, command: 'argus.verifyStronger', arguments: [doc.uri.toString(), fn] };
      a.diagnostics = [d];
      out.push(a);
    }
  }
  return out;
}
