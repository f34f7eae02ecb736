// The "Verification Status" tree: file → functions, each with its state.
import * as vscode from 'vscode';
import { FunctionStatus, StatusStore, TreeDiffer, TreeSnapshot, baseName, describe, stateLabel } from './model';

export interface StatusNode { uri: string; fn?: FunctionStatus }

const ICONS: Record<string, [string, string]> = {
  queued: ['circle-outline', 'disabledForeground'],
  running: ['sync~spin', 'charts.blue'],
  verified: ['pass-filled', 'testing.iconPassed'],
  violated: ['error', 'testing.iconFailed'],
  conditional: ['pass', 'charts.yellow'],
  error: ['warning', 'problemsWarningIcon.foreground'],
};

export class StatusTree implements vscode.TreeDataProvider<StatusNode> {
  private emitter = new vscode.EventEmitter<StatusNode | StatusNode[] | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private pendingRefresh: NodeJS.Timeout | undefined;
  // one node object per file and per function: VS Code redraws a single node only when
  // the event names the object it was given
  private fileNodes = new Map<string, StatusNode>();
  private fnNodes = new Map<string, StatusNode>();
  private differ = new TreeDiffer();

  constructor(private store: StatusStore, private conditions: Map<string, string>) {}

  // coalesced: status deltas can arrive several times a second; only rows whose text
  // changed are redrawn (see TreeDiffer)
  refresh(): void {
    if (this.pendingRefresh) return;
    this.pendingRefresh = setTimeout(() => { this.pendingRefresh = undefined; this.flush(); }, 100);
  }

  private flush(): void {
    const snap: TreeSnapshot = { files: [] };
    const liveFiles = new Set<string>();
    const liveFns = new Set<string>();
    for (const uri of this.store.uris()) {
      liveFiles.add(uri);
      const children = this.store.functions(uri).map(fn => {
        const key = `${uri}#${fn.name}`;
        liveFns.add(key);
        this.fnNode(uri, fn);
        return { key, sig: this.fnSignature(uri, fn) };
      });
      snap.files.push({ uri, sig: this.fileDescription(uri), children });
    }
    for (const k of [...this.fileNodes.keys()]) if (!liveFiles.has(k)) this.fileNodes.delete(k);
    for (const k of [...this.fnNodes.keys()]) if (!liveFns.has(k)) this.fnNodes.delete(k);
    const ch = this.differ.diff(snap);
    if (ch.all) { this.emitter.fire(undefined); return; }
    const nodes = [...ch.files.map(u => this.fileNode(u)), ...ch.functions.map(k => this.fnNodes.get(k)!).filter(n => n)];
    if (nodes.length) this.emitter.fire(nodes);
  }

  private fileNode(uri: string): StatusNode {
    let n = this.fileNodes.get(uri);
    if (!n) { n = { uri }; this.fileNodes.set(uri, n); }
    return n;
  }

  private fnNode(uri: string, fn: FunctionStatus): StatusNode {
    const key = `${uri}#${fn.name}`;
    let n = this.fnNodes.get(key);
    if (!n) { n = { uri, fn }; this.fnNodes.set(key, n); }
    n.fn = fn;
    return n;
  }

  private fileDescription(uri: string): string {
    const d = this.store.get(uri);
    const c = this.store.counts(uri);
    return d?.parseError ? 'cannot parse' : Object.entries(c).map(([s, n]) => `${n} ${stateLabel(s)}`).join(', ');
  }

  // everything a function's row shows
  private fnSignature(uri: string, f: FunctionStatus): string {
    const cond = this.conditions.get(`${uri}#${f.name}`);
    return [f.state, describe(f, this.store.elapsed(uri, f.name), cond), cond ?? '', f.algorithm ?? '', f.stage ?? 0,
      f.final ? 1 : 0, f.verifications ?? 0, f.cacheHits ?? 0].join('\u0000');
  }

  getChildren(node?: StatusNode): StatusNode[] {
    if (!node) return this.store.uris().map(uri => this.fileNode(uri));
    if (node.fn) return [];
    return this.store.functions(node.uri).map(fn => this.fnNode(node.uri, fn));
  }

  getTreeItem(node: StatusNode): vscode.TreeItem {
    if (!node.fn) {
      const uri = vscode.Uri.parse(node.uri);
      const item = new vscode.TreeItem(baseName(uri.path), vscode.TreeItemCollapsibleState.Expanded);
      item.description = this.fileDescription(node.uri);
      item.resourceUri = uri;
      item.id = node.uri;
      item.contextValue = 'argusFile';
      item.tooltip = vscode.workspace.asRelativePath(uri);
      return item;
    }
    const f = node.fn;
    const item = new vscode.TreeItem(f.name, vscode.TreeItemCollapsibleState.None);
    const cond = this.conditions.get(`${node.uri}#${f.name}`);
    item.description = describe(f, this.store.elapsed(node.uri, f.name), cond);
    item.id = `${node.uri}#${f.name}`;
    const [icon, color] = ICONS[f.state] ?? ['question', 'foreground'];
    item.iconPath = new vscode.ThemeIcon(icon, new vscode.ThemeColor(color));
    item.contextValue = `argusFunction.${f.state}`;
    item.tooltip = new vscode.MarkdownString(`**${f.name}** — ${stateLabel(f.state)}${cond ? `: ${cond}` : ''}\n\n` +
      `algorithm: ${f.algorithm ?? '-'}, stage ${f.stage ?? 0}${f.final ? ' (final)' : ''}\n\n` +
      `worker runs: ${f.verifications ?? 0}, cache hits: ${f.cacheHits ?? 0}`);
    item.command = f.state === 'violated'
      ? { title: 'Show trace', command: 'argus.showTrace', arguments: [node.uri, f.name] }
      : { title: 'Go to function', command: 'argus.revealFunction', arguments: [node] };
    return item;
  }
}
