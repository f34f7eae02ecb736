// The "Counterexample Trace" view: the steps of one function's error path; selecting a
// step (or argus.trace.next / argus.trace.previous) moves the editor there and shows
// the values known at that step after the line, as a debugger does.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { Counterexample, StatusMessage, Trace, formatValues, stepPath } from './model';

interface StepNode { index: number }

export class TraceController implements vscode.TreeDataProvider<StepNode> {
  private emitter = new vscode.EventEmitter<StepNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private trace: Trace | undefined;
  private view: vscode.TreeView<StepNode>;
  private lineDeco: vscode.TextEditorDecorationType;
  private valuesDeco: vscode.TextEditorDecorationType;
  private visitedDeco: vscode.TextEditorDecorationType;

  constructor(context: vscode.ExtensionContext, private client: () => LanguageClient | undefined) {
    this.view = vscode.window.createTreeView('argus.trace', { treeDataProvider: this });
    this.lineDeco = vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      backgroundColor: new vscode.ThemeColor('editor.stackFrameHighlightBackground'),
      overviewRulerColor: new vscode.ThemeColor('debugIcon.stepOverForeground'),
      overviewRulerLane: vscode.OverviewRulerLane.Full,
    });
    this.valuesDeco = vscode.window.createTextEditorDecorationType({
      after: { margin: '0 0 0 2em', color: new vscode.ThemeColor('editorCodeLens.foreground'), fontStyle: 'italic' },
      rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
    });
    this.visitedDeco = vscode.window.createTextEditorDecorationType({
      after: { margin: '0 0 0 2em', color: new vscode.ThemeColor('disabledForeground'), fontStyle: 'italic' },
    });
    const reg = (id: string, f: (...a: any[]) => unknown) => context.subscriptions.push(vscode.commands.registerCommand(id, f));
    reg('argus.trace.next', () => this.step(+1));
    reg('argus.trace.previous', () => this.step(-1));
    reg('argus.trace.goto', (i: number) => this.goto(i));
    reg('argus.trace.close', () => this.close());
    context.subscriptions.push(this.view, this.lineDeco, this.valuesDeco, this.visitedDeco,
      this.view.onDidChangeSelection(e => { if (e.selection[0] && e.selection[0].index !== this.trace?.index) void this.goto(e.selection[0].index); }),
      vscode.window.onDidChangeVisibleTextEditors(() => this.decorate()));
    void vscode.commands.executeCommand('setContext', 'argus.traceActive', false);
  }

  getChildren(node?: StepNode): StepNode[] {
    if (node || !this.trace) return [];
    return this.trace.steps.map((_, index) => ({ index }));
  }

  getTreeItem(node: StepNode): vscode.TreeItem {
    const t = this.trace!;
    const s = t.steps[node.index];
    const item = new vscode.TreeItem(t.label(node.index), vscode.TreeItemCollapsibleState.None);
    item.description = formatValues(s.values) + (s.nondet ? ' (nondet)' : '');
    item.id = `step-${node.index}`;
    item.iconPath = new vscode.ThemeIcon(node.index === t.index ? 'debug-stackframe' : node.index === t.length - 1 ? 'error' : 'debug-breakpoint-unverified');
    item.tooltip = `${s.file}:${s.line}:${s.column}${s.function ? ` in ${s.function}` : ''}\n${s.statement}\n${formatValues(s.values)}`;
    item.command = { title: 'Go to step', command: 'argus.trace.goto', arguments: [node.index] };
    return item;
  }

  getParent(): undefined { return undefined; }

  async show(uri: string, fn: string, cex: Counterexample): Promise<void> {
    this.trace = new Trace(uri, fn, cex);
    this.view.title = `Trace: ${fn} (${cex.steps.length} steps)`;
    this.view.message = cex.replayed ? `entry ${cex.entry ?? fn}, replayed by the concrete interpreter` : `entry ${cex.entry ?? fn}`;
    await vscode.commands.executeCommand('setContext', 'argus.traceActive', true);
    this.emitter.fire(undefined);
    await vscode.commands.executeCommand('argus.trace.focus');
    await this.goto(0);
  }

  close(): void {
    this.trace = undefined;
    this.view.title = 'Counterexample Trace';
    this.view.message = undefined;
    void vscode.commands.executeCommand('setContext', 'argus.traceActive', false);
    this.emitter.fire(undefined);
    this.decorate();
  }

  // A fixed function closes its trace.
  onStatus(msg: StatusMessage): void {
    const t = this.trace;
    if (!t || msg.uri !== t.uri) return;
    const f = msg.functions.find(x => x.name === t.fn);
    if (f && (f.state === 'verified' || f.state === 'conditional')) {
      this.close();
      vscode.window.setStatusBarMessage(`Argus: '${t.fn}' is ${f.state} now; its trace was closed`, 5000);
    }
  }

  private async step(delta: number): Promise<void> {
    if (!this.trace) { vscode.window.showInformationMessage('Argus: no counterexample trace is open (Argus: Show Counterexample Trace).'); return; }
    await this.goto(this.trace.index + delta);
  }

  private stepUri(i: number): vscode.Uri {
    const t = this.trace!;
    const doc = vscode.Uri.parse(t.uri);
    if (doc.scheme !== 'file') return doc;
    return vscode.Uri.file(stepPath(t.steps[i].file, doc.fsPath));
  }

  async goto(i: number): Promise<void> {
    const t = this.trace;
    if (!t) return;
    const s = t.select(i);
    if (!s) return;
    this.emitter.fire(undefined);
    const line = Math.max(0, s.line - 1), col = Math.max(0, s.column - 1);
    const pos = new vscode.Position(line, col);
    const editor = await vscode.window.showTextDocument(this.stepUri(t.index), { selection: new vscode.Range(pos, pos), preserveFocus: false, preview: false });
    editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    this.decorate();
    try { await this.view.reveal({ index: t.index }, { select: false, focus: false }); } catch { /* view hidden */ }
  }

  private decorate(): void {
    const t = this.trace;
    for (const ed of vscode.window.visibleTextEditors) {
      if (!t) { ed.setDecorations(this.lineDeco, []); ed.setDecorations(this.valuesDeco, []); ed.setDecorations(this.visitedDeco, []); continue; }
      const here = ed.document.uri.toString();
      const cur = t.current!;
      const curUri = this.stepUri(t.index).toString();
      if (here !== curUri) { ed.setDecorations(this.lineDeco, []); ed.setDecorations(this.valuesDeco, []); }
      else {
        const l = Math.max(0, cur.line - 1);
        const end = ed.document.lineAt(Math.min(l, ed.document.lineCount - 1)).range.end;
        const vals = formatValues(t.valuesSoFar());
        ed.setDecorations(this.lineDeco, [new vscode.Range(l, 0, l, 0)]);
        ed.setDecorations(this.valuesDeco, [{ range: new vscode.Range(end, end), renderOptions: { after: { contentText: `  step ${t.index + 1}/${t.length}${vals ? ':  ' + vals : ''}` } } }]);
      }
      // earlier steps on other lines of this file: their own values, dimmed
      const visited: vscode.DecorationOptions[] = [];
      const seen = new Set<number>([Math.max(0, cur.line - 1)]);
      for (let k = t.index - 1; k >= 0; k--) {
        const s = t.steps[k];
        const l = Math.max(0, s.line - 1);
        if (seen.has(l) || this.stepUri(k).toString() !== here || l >= ed.document.lineCount) continue;
        seen.add(l);
        const v = formatValues(s.values);
        if (!v) continue;
        const end = ed.document.lineAt(l).range.end;
        visited.push({ range: new vscode.Range(end, end), renderOptions: { after: { contentText: `  ${v}` } } });
      }
      ed.setDecorations(this.visitedDeco, visited);
    }
  }
}
