// The extension's own logic, free of the VS Code API so that node's test runner can
// exercise it (test/model.test.ts): the per-document status table fed by argus/status
// deltas, labels for states and conditions, the counterexample trace with its cursor,
// and the mapping of settings to argusd's configuration.

export interface Position { line: number; character: number }
export interface Range { start: Position; end: Position }

export type FunctionState = 'queued' | 'running' | 'verified' | 'violated' | 'conditional' | 'error';

// One entry of argus/status / argus/statusTable (server/README.md "Streaming").
export interface FunctionStatus {
  name: string;
  range: Range;
  state: FunctionState | string;
  algorithm?: string;
  elapsed?: number;
  stage?: number;
  final?: boolean;
  verifications?: number;
  cacheHits?: number;
}

export interface StatusMessage {
  uri: string;
  version?: number;
  pending?: number;
  parseError?: boolean;
  full?: boolean;
  functions: FunctionStatus[];
}

export interface DocumentStatus {
  uri: string;
  version: number;
  pending: number;
  parseError: boolean;
  functions: Map<string, FunctionStatus>;
  // when each function entered its current 'running' state (ms since epoch, local clock)
  runningSince: Map<string, number>;
}

// All documents' tables. argus/status messages are deltas: the first of a version has
// full: true and lists every function; later ones list only the functions whose state
// changed, to be merged by name. A delta for a version older than the table's is stale.
export class StatusStore {
  private docs = new Map<string, DocumentStatus>();

  // Applies one message; returns false when it was ignored (stale version).
  apply(msg: StatusMessage, now: number = Date.now()): boolean {
    const version = msg.version ?? 0;
    let doc = this.docs.get(msg.uri);
    if (doc && version < doc.version) return false;
    if (!doc || msg.full) {
      const prev = doc;
      doc = { uri: msg.uri, version, pending: 0, parseError: false, functions: new Map(), runningSince: new Map() };
      // a full table of a new version keeps the running clocks of functions still running
      if (prev) for (const [n, t] of prev.runningSince) doc.runningSince.set(n, t);
      this.docs.set(msg.uri, doc);
    }
    doc.version = version;
    doc.pending = msg.pending ?? doc.pending;
    doc.parseError = msg.parseError ?? false;
    for (const f of msg.functions ?? []) {
      const old = doc.functions.get(f.name);
      doc.functions.set(f.name, f);
      if (f.state === 'running') {
        if (!old || old.state !== 'running' || !doc.runningSince.has(f.name)) doc.runningSince.set(f.name, now - (f.elapsed ?? 0) * 1000);
      } else {
        doc.runningSince.delete(f.name);
      }
    }
    if (msg.full) for (const n of [...doc.runningSince.keys()]) if (!doc.functions.has(n)) doc.runningSince.delete(n);
    return true;
  }

  get(uri: string): DocumentStatus | undefined { return this.docs.get(uri); }
  remove(uri: string): void { this.docs.delete(uri); }
  clear(): void { this.docs.clear(); }
  uris(): string[] { return [...this.docs.keys()].sort(); }

  // Functions of a document in source order.
  functions(uri: string): FunctionStatus[] {
    const d = this.docs.get(uri);
    if (!d) return [];
    return [...d.functions.values()].sort((a, b) => a.range.start.line - b.range.start.line || a.name.localeCompare(b.name));
  }

  // The function whose range contains the line (the innermost, i.e. latest start).
  functionAt(uri: string, line: number): FunctionStatus | undefined {
    let best: FunctionStatus | undefined;
    for (const f of this.functions(uri))
      if (f.range.start.line <= line && line <= f.range.end.line && (!best || f.range.start.line >= best.range.start.line)) best = f;
    return best;
  }

  totalPending(): number {
    let n = 0;
    for (const d of this.docs.values()) n += d.pending;
    return n;
  }

  counts(uri?: string): Record<string, number> {
    const c: Record<string, number> = {};
    for (const d of uri ? [this.docs.get(uri)].filter((x): x is DocumentStatus => !!x) : this.docs.values())
      for (const f of d.functions.values()) c[f.state] = (c[f.state] ?? 0) + 1;
    return c;
  }

  // Seconds a running function has been running (by the server's elapsed, or our clock).
  elapsed(uri: string, name: string, now: number = Date.now()): number | undefined {
    const d = this.docs.get(uri);
    const t = d?.runningSince.get(name);
    return t === undefined ? undefined : Math.max(0, (now - t) / 1000);
  }
}

// The word the status view and tests look for, per state.
export function stateLabel(state: string): string {
  switch (state) {
    case 'queued': return 'queued';
    case 'running': return 'running';
    case 'verified': return 'verified';
    case 'violated': return 'counterexample';
    case 'conditional': return 'verified under a condition';
    case 'error': return 'error';
    default: return state;
  }
}

export function formatSeconds(s: number): string {
  return s < 10 ? `${s.toFixed(1)} s` : s < 120 ? `${Math.round(s)} s` : `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

// Description shown next to a function in the status view.
export function describe(f: FunctionStatus, elapsedS?: number, condition?: string): string {
  const alg = f.algorithm ? ` (${f.algorithm})` : '';
  switch (f.state) {
    case 'running': return `running ${formatSeconds(elapsedS ?? f.elapsed ?? 0)}${alg}`;
    case 'verified': return `verified${alg}`;
    case 'violated': return `counterexample${alg}`;
    case 'conditional': return (condition ?? 'verified under a condition') + (f.final === false ? ' — deeper check pending' : '');
    default: return stateLabel(f.state) + alg;
  }
}

// argus/condition result → one sentence, e.g. "verified for loops unrolled ≤ 8 times".
export interface ConditionInfo {
  kind?: string;
  summary?: string;
  bound?: number;
  excluded?: string[];
  verdict?: string;
  algorithm?: string;
  state?: string;
  reason?: string;
  assumption_formula?: string[];
}

export function conditionText(c: ConditionInfo | null | undefined): string | undefined {
  if (!c) return undefined;
  // latent findings: the summary says how many, and what every other check got (its bound
  // is that of the other checks, not a verification of the whole function)
  if (c.kind === 'latent') return c.summary || (c.reason ? `unknown: ${c.reason}` : undefined);
  if (typeof c.bound === 'number') return `verified for loops unrolled ≤ ${c.bound} times`;
  if (c.summary && c.summary.startsWith('verified except')) return c.summary;
  if (c.excluded && c.excluded.length) return `verified except ${c.excluded.join('; ')}`;
  if (c.summary) return c.summary;
  if (c.reason) return `unknown: ${c.reason}`;
  return undefined;
}

// ---- counterexample traces ----

export interface TraceStep {
  file: string;
  line: number;      // 1-based
  column: number;    // 1-based
  function?: string;
  statement: string;
  values: Record<string, string>;
  nondet?: boolean;
}

export interface Counterexample { entry?: string; replayed?: boolean; steps: TraceStep[] }

export function formatValues(values: Record<string, string> | undefined): string {
  if (!values) return '';
  return Object.entries(values).map(([k, v]) => `${k} = ${v}`).join(', ');
}

// A trace with a cursor: which step is current; next/previous stay within bounds.
export class Trace {
  index = 0;
  constructor(readonly uri: string, readonly fn: string, readonly cex: Counterexample) {}

  get steps(): TraceStep[] { return this.cex.steps; }
  get length(): number { return this.cex.steps.length; }
  get current(): TraceStep | undefined { return this.cex.steps[this.index]; }

  select(i: number): TraceStep | undefined {
    if (this.length === 0) return undefined;
    this.index = Math.max(0, Math.min(this.length - 1, i));
    return this.current;
  }
  next(): TraceStep | undefined { return this.select(this.index + 1); }
  previous(): TraceStep | undefined { return this.select(this.index - 1); }
  atEnd(): boolean { return this.index >= this.length - 1; }
  atStart(): boolean { return this.index <= 0; }

  // The values known at the current step: every value assigned so far, latest wins
  // (as a debugger shows the variables in scope), and the ones this step assigned.
  valuesSoFar(): Record<string, string> {
    const out: Record<string, string> = {};
    for (let i = 0; i <= this.index && i < this.length; i++) Object.assign(out, this.cex.steps[i].values);
    return out;
  }

  label(i: number): string {
    const s = this.cex.steps[i];
    return `${i + 1}. ${baseName(s.file)}:${s.line}  ${s.statement}`;
  }
}

export function baseName(p: string): string {
  const i = Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\'));
  return i >= 0 ? p.slice(i + 1) : p;
}

// Which document a step's file names: the trace's own document when the name is that
// file (absolute or basename), else the path as given (absolute) or relative to it.
export function stepPath(stepFile: string, documentPath: string): string {
  if (!stepFile || stepFile === documentPath || baseName(stepFile) === stepFile && baseName(documentPath) === stepFile) return documentPath;
  if (stepFile.startsWith('/')) return stepFile;
  const dir = documentPath.slice(0, Math.max(documentPath.lastIndexOf('/'), 0));
  return `${dir}/${stepFile}`;
}

// ---- settings → argusd configuration (server/README.md "Configuration") ----

export interface Settings {
  strategy?: string;     // 'auto' or one algorithm
  chain?: string[];      // stages in `argus --chain` syntax, e.g. ["ibmc:k=3", "kind|pred"]; overrides strategy when non-empty
  timeout?: number;
  solver?: string;
  dataModel?: string;
  properties?: string[]; // SV-COMP property names (argus.properties); absent: argusd's default
}

export function serverConfig(s: Settings): Record<string, unknown> {
  const c: Record<string, unknown> = {};
  if (typeof s.timeout === 'number' && s.timeout >= 0) c.timeout = s.timeout;
  if (s.solver) c.solver = s.solver;
  if (s.dataModel) c.dataModel = s.dataModel;
  // passed as listed (an empty list: reachability alone); names are checked by argusd
  if (Array.isArray(s.properties)) c.properties = s.properties.map(p => p.trim()).filter(p => p.length > 0);
  if (s.chain && s.chain.length) c.chain = s.chain;
  else c.algorithm = s.strategy || 'auto';
  return c;
}

// "host:port" → parts; undefined when the setting is empty or malformed.
export function parseHostPort(s: string | undefined): { host: string; port: number } | undefined {
  if (!s) return undefined;
  const m = /^\s*(\[[^\]]+\]|[^:\s]+):(\d{1,5})\s*$/.exec(s);
  if (!m) return undefined;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: m[1].replace(/^\[|\]$/g, ''), port };
}

// argusd's path: the setting, else build/argusd in a workspace folder (the repo's own
// build), else "argusd" on PATH. `exists` is injected for tests.
export function resolveServerPath(setting: string | undefined, folders: string[], exists: (p: string) => boolean): string {
  if (setting && setting.trim()) return setting.trim();
  for (const f of folders) {
    for (const cand of [`${f}/build/argusd`, `${f}/../build/argusd`]) if (exists(cand)) return cand;
  }
  return 'argusd';
}

// Function name from an argus diagnostic: data.function, else the message.
export function diagnosticFunction(data: unknown, message: string): string | undefined {
  if (data && typeof data === 'object' && typeof (data as { function?: unknown }).function === 'string')
    return (data as { function: string }).function;
  const m = /entry '([^']+)'/.exec(message) ?? /'([^']+)'/.exec(message);
  return m ? m[1] : undefined;
}

// What of the status tree must be redrawn since the last snapshot. Redrawing a node makes
// VS Code drop the node's click command and register a new one; a click that lands in
// between finds no command ("Actual command not found"). So only nodes whose text changed
// are redrawn: a running function's clock ticks without touching its finished siblings.
// A snapshot is the tree as it would be drawn: files in order, each with a signature of
// its own row and its functions' keys and row signatures in order.
export interface TreeSnapshot {
  files: { uri: string; sig: string; children: { key: string; sig: string }[] }[];
}
export type TreeChanges = { all: true } | { all: false; files: string[]; functions: string[] };

export class TreeDiffer {
  private order: string | undefined;
  private files = new Map<string, { sig: string; childOrder: string; children: Map<string, string> }>();

  // Everything is redrawn at the next diff (after the tree was cleared or rebuilt).
  reset(): void { this.order = undefined; this.files.clear(); }

  diff(s: TreeSnapshot): TreeChanges {
    const order = s.files.map(f => f.uri).join('\n');
    const next = new Map<string, { sig: string; childOrder: string; children: Map<string, string> }>();
    for (const f of s.files)
      next.set(f.uri, { sig: f.sig, childOrder: f.children.map(c => c.key).join('\n'), children: new Map(f.children.map(c => [c.key, c.sig])) });
    const all = this.order === undefined || this.order !== order;
    const files: string[] = [];
    const functions: string[] = [];
    if (!all) {
      for (const [uri, f] of next) {
        const old = this.files.get(uri)!;
        // a file row redrawn redraws its children too: their own changes are covered
        if (old.sig !== f.sig || old.childOrder !== f.childOrder) { files.push(uri); continue; }
        for (const [key, sig] of f.children) if (old.children.get(key) !== sig) functions.push(key);
      }
    }
    this.order = order;
    this.files = next;
    return all ? { all: true } : { all: false, files, functions };
  }
}
