// The "Verification Status" tree: file → functions, each with its state.
import * as vscode from 'vscode';
import { FunctionStatus, StatusStore, baseName, describe, stateLabel } from './model';

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
  private emitter = new vscode.EventEmitter<StatusNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private pendingRefresh: NodeJS.Timeout | undefined;

  constructor(private store: StatusStore, private conditions: Map<string, string>) {}

  // coalesced: status deltas can arrive several times a second
  refresh(): void {
    if (this.pendingRefresh) return;
    this.pendingRefresh = setTimeout(() => { this.pendingRefresh = undefined; this.emitter.fire(undefined); }, 100);
  }

  getChildren(node?: StatusNode): StatusNode[] {
    if (!node) return this.store.uris().map(uri => ({ uri }));
    if (node.fn) return [];
    return this.store.functions(node.uri).map(fn => ({ uri: node.uri, fn }));
  }

  getTreeItem(node: StatusNode): vscode.TreeItem {
    if (!node.fn) {
      const uri = vscode.Uri.parse(node.uri);
      const item = new vscode.TreeItem(baseName(uri.path), vscode.TreeItemCollapsibleState.Expanded);
      const d = this.store.get(node.uri);
      const c = this.store.counts(node.uri);
      const parts = Object.entries(c).map(([s, n]) => `${n} ${stateLabel(s)}`);
      item.description = d?.parseError ? 'cannot parse' : parts.join(', ');
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
