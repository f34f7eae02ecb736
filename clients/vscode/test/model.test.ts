// Unit tests of the extension's own logic (src/model.ts): node's test runner, no editor.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  StatusStore, Trace, conditionText, describe, diagnosticFunction, formatValues, parseHostPort, resolveServerPath,
  serverConfig, stateLabel, stepPath, FunctionStatus, Counterexample, TreeDiffer,
} from '../src/model';

const U = 'file:///w/a.c';
const fn = (name: string, line: number, state: string, extra: Partial<FunctionStatus> = {}): FunctionStatus =>
  ({ name, state, range: { start: { line, character: 0 }, end: { line: line + 3, character: 1 } }, ...extra });

test('a full status message replaces the table, deltas merge by function name', () => {
  const s = new StatusStore();
  assert.ok(s.apply({ uri: U, version: 1, pending: 3, full: true, functions: [fn('main', 10, 'queued'), fn('swap', 2, 'queued'), fn('g', 20, 'queued')] }));
  assert.deepEqual(s.functions(U).map(f => f.name), ['swap', 'main', 'g']);
  s.apply({ uri: U, version: 1, pending: 2, full: false, functions: [fn('swap', 2, 'verified')] });
  assert.deepEqual(s.functions(U).map(f => [f.name, f.state]), [['swap', 'verified'], ['main', 'queued'], ['g', 'queued']]);
  assert.equal(s.get(U)!.pending, 2);
  s.apply({ uri: U, version: 1, pending: 0, full: false, functions: [fn('main', 10, 'violated'), fn('g', 20, 'conditional')] });
  assert.deepEqual(s.counts(U), { verified: 1, violated: 1, conditional: 1 });
  assert.equal(s.totalPending(), 0);
  // the next version's full table drops functions that no longer exist
  s.apply({ uri: U, version: 2, pending: 2, full: true, functions: [fn('main', 10, 'queued'), fn('swap', 2, 'verified')] });
  assert.deepEqual(s.functions(U).map(f => f.name), ['swap', 'main']);
  assert.equal(s.get(U)!.functions.get('g'), undefined);
});

test('a delta of an older version is ignored', () => {
  const s = new StatusStore();
  s.apply({ uri: U, version: 5, pending: 1, full: true, functions: [fn('main', 1, 'running')] });
  assert.equal(s.apply({ uri: U, version: 4, full: false, functions: [fn('main', 1, 'violated')] }), false);
  assert.equal(s.get(U)!.functions.get('main')!.state, 'running');
});

test('documents are independent and removal forgets one', () => {
  const s = new StatusStore();
  s.apply({ uri: U, version: 1, pending: 1, full: true, functions: [fn('main', 1, 'queued')] });
  s.apply({ uri: 'file:///w/b.c', version: 1, pending: 2, full: true, functions: [fn('f', 1, 'queued'), fn('g', 9, 'queued')] });
  assert.equal(s.totalPending(), 3);
  s.remove(U);
  assert.deepEqual(s.uris(), ['file:///w/b.c']);
  assert.equal(s.totalPending(), 2);
});

test('running functions get an elapsed clock that starts at the server elapsed and stops when done', () => {
  const s = new StatusStore();
  s.apply({ uri: U, version: 1, full: true, functions: [fn('main', 1, 'running', { elapsed: 2 })] }, 10_000);
  assert.equal(s.elapsed(U, 'main', 13_000), 5);
  // a later delta that still says running keeps the clock
  s.apply({ uri: U, version: 1, full: false, functions: [fn('main', 1, 'running', { elapsed: 0, stage: 1 })] }, 14_000);
  assert.equal(s.elapsed(U, 'main', 14_000), 6);
  s.apply({ uri: U, version: 1, full: false, functions: [fn('main', 1, 'verified')] }, 15_000);
  assert.equal(s.elapsed(U, 'main', 15_000), undefined);
  assert.match(describe(fn('x', 1, 'running', { algorithm: 'ibmc' }), 3.25), /^running 3\.3 s \(ibmc\)$/);
});

test('functionAt picks the innermost function containing the line', () => {
  const s = new StatusStore();
  s.apply({ uri: U, version: 1, full: true, functions: [fn('a', 0, 'queued'), fn('b', 10, 'queued')] });
  assert.equal(s.functionAt(U, 2)?.name, 'a');
  assert.equal(s.functionAt(U, 11)?.name, 'b');
  assert.equal(s.functionAt(U, 7), undefined);
});

test('state labels and conditions read as in the status view', () => {
  assert.equal(stateLabel('violated'), 'counterexample');
  assert.equal(stateLabel('conditional'), 'verified under a condition');
  assert.equal(conditionText({ kind: 'bound', bound: 8, summary: 'x' }), 'verified for loops unrolled ≤ 8 times');
  assert.equal(conditionText({ kind: 'cmc', summary: 'verified except the loop at f.c:12 beyond 4 iterations' }), 'verified except the loop at f.c:12 beyond 4 iterations');
  assert.equal(conditionText({ excluded: ['loop at f.c:12'] }), 'verified except loop at f.c:12');
  assert.equal(conditionText(null), undefined);
  // latent findings: never shown as a bound of the whole function
  const latent = "2 errors are reachable when the entry's inputs satisfy preconditions; every other check verified for loops unrolled <= 1 times";
  assert.equal(conditionText({ kind: 'latent', bound: 1, summary: latent }), latent);
  assert.equal(describe(fn('g', 1, 'conditional', { final: false }), undefined, 'verified for loops unrolled ≤ 3 times'),
    'verified for loops unrolled ≤ 3 times — deeper check pending');
  assert.equal(describe(fn('g', 1, 'violated', { algorithm: 'ibmc' })), 'counterexample (ibmc)');
});

const cex: Counterexample = {
  entry: 'main', replayed: true,
  steps: [
    { file: '/w/a.c', line: 11, column: 3, statement: 'a = nondet()', values: { a: '5' }, nondet: true },
    { file: '/w/a.c', line: 11, column: 36, statement: 'b = nondet()', values: { b: '-200' }, nondet: true },
    { file: '/w/a.c', line: 5, column: 3, function: 'swap', statement: 't = *p', values: { t: '5' } },
    { file: '/w/a.c', line: 14, column: 3, statement: 'a > b + 100', values: {} },
    { file: '/w/a.c', line: 14, column: 22, statement: 'reach_error()', values: {} },
  ],
};

test('trace navigation stays within the steps', () => {
  const t = new Trace(U, 'main', cex);
  assert.equal(t.index, 0);
  assert.equal(t.previous()!.line, 11);
  assert.equal(t.index, 0);
  assert.equal(t.next()!.column, 36);
  assert.equal(t.next()!.function, 'swap');
  assert.equal(t.select(99)!.statement, 'reach_error()');
  assert.ok(t.atEnd());
  assert.equal(t.next()!.statement, 'reach_error()');
  assert.equal(t.select(-3)!.statement, 'a = nondet()');
  assert.ok(t.atStart());
  assert.equal(new Trace(U, 'f', { steps: [] }).next(), undefined);
});

test('values at a step accumulate like a debugger view, latest assignment wins', () => {
  const t = new Trace(U, 'main', cex);
  assert.deepEqual(t.valuesSoFar(), { a: '5' });
  t.select(2);
  assert.deepEqual(t.valuesSoFar(), { a: '5', b: '-200', t: '5' });
  assert.equal(formatValues(t.valuesSoFar()), 'a = 5, b = -200, t = 5');
  assert.equal(t.label(2), '3. a.c:5  t = *p');
});

test('step files resolve to the trace document or next to it', () => {
  assert.equal(stepPath('/w/a.c', '/w/a.c'), '/w/a.c');
  assert.equal(stepPath('a.c', '/w/a.c'), '/w/a.c');
  assert.equal(stepPath('', '/w/a.c'), '/w/a.c');
  assert.equal(stepPath('inc/h.h', '/w/a.c'), '/w/inc/h.h');
  assert.equal(stepPath('/usr/include/x.h', '/w/a.c'), '/usr/include/x.h');
});

test('settings map to argusd configuration', () => {
  assert.deepEqual(serverConfig({ strategy: 'auto', timeout: 30, solver: 'z3', dataModel: 'LP64', chain: [] }),
    { algorithm: 'auto', timeout: 30, solver: 'z3', dataModel: 'LP64' });
  assert.deepEqual(serverConfig({ strategy: 'kind', chain: ['ibmc:3', 'kind'], timeout: 10 }), { chain: ['ibmc:3', 'kind'], timeout: 10 });
  assert.deepEqual(serverConfig({}), { algorithm: 'auto' });
});

test('argus.properties is passed to argusd as listed', () => {
  assert.deepEqual(serverConfig({ strategy: 'auto', properties: ['unreach-call', 'valid-memsafety', 'no-overflow'] }),
    { algorithm: 'auto', properties: ['unreach-call', 'valid-memsafety', 'no-overflow'] });
  // blanks dropped, names trimmed (argusd checks the names themselves)
  assert.deepEqual(serverConfig({ properties: [' valid-free ', ''] }), { algorithm: 'auto', properties: ['valid-free'] });
  // an empty list is sent: reachability alone, not the server's default
  assert.deepEqual(serverConfig({ properties: [] }), { algorithm: 'auto', properties: [] });
  assert.equal('properties' in serverConfig({ strategy: 'kind' }), false);
});

test('team server address and server path', () => {
  assert.deepEqual(parseHostPort('127.0.0.1:7070'), { host: '127.0.0.1', port: 7070 });
  assert.deepEqual(parseHostPort('[::1]:80'), { host: '::1', port: 80 });
  assert.equal(parseHostPort('nohost'), undefined);
  assert.equal(parseHostPort('h:70000'), undefined);
  assert.equal(resolveServerPath('/opt/argusd', ['/w'], () => true), '/opt/argusd');
  assert.equal(resolveServerPath('', ['/w'], p => p === '/w/build/argusd'), '/w/build/argusd');
  assert.equal(resolveServerPath('', ['/w/examples'], p => p === '/w/examples/../build/argusd'), '/w/examples/../build/argusd');
  assert.equal(resolveServerPath(undefined, ['/w'], () => false), 'argusd');
});

test('the function of an argus diagnostic', () => {
  assert.equal(diagnosticFunction({ function: 'swap', state: 'violated' }, ''), 'swap');
  assert.equal(diagnosticFunction(undefined, "error reachable from entry 'main' (initial state): reach_error()"), 'main');
  assert.equal(diagnosticFunction(undefined, "argus: 'g' verified for loops unrolled ≤ 3 times"), 'g');
});

test('the status tree redraws only the rows whose text changed', () => {
  const d = new TreeDiffer();
  const snap = (rows: Record<string, [string, [string, string][]]>) =>
    ({ files: Object.entries(rows).map(([uri, [sig, ch]]) => ({ uri, sig, children: ch.map(([key, s]) => ({ key, sig: s })) })) });
  assert.deepEqual(d.diff(snap({ a: ['1 running', [['a#f', 'running 1.0 s'], ['a#main', 'counterexample']]] })), { all: true });
  // the running clock ticks: that row only, not its finished sibling
  assert.deepEqual(d.diff(snap({ a: ['1 running', [['a#f', 'running 2.0 s'], ['a#main', 'counterexample']]] })),
    { all: false, files: [], functions: ['a#f'] });
  // nothing changed: nothing redrawn
  assert.deepEqual(d.diff(snap({ a: ['1 running', [['a#f', 'running 2.0 s'], ['a#main', 'counterexample']]] })),
    { all: false, files: [], functions: [] });
  // the file's counts change: the file row (and with it its children)
  assert.deepEqual(d.diff(snap({ a: ['1 verified', [['a#f', 'verified'], ['a#main', 'counterexample']]] })),
    { all: false, files: ['a'], functions: [] });
  // a second file: the whole tree; then a change in one file leaves the other alone
  assert.deepEqual(d.diff(snap({ a: ['1 verified', [['a#f', 'verified']]], b: ['1 queued', [['b#g', 'queued']]] })), { all: true });
  assert.deepEqual(d.diff(snap({ a: ['1 verified', [['a#f', 'verified']]], b: ['1 queued', [['b#g', 'queued (x)']]] })),
    { all: false, files: [], functions: ['b#g'] });
  // a function appears: its file's children are re-read
  assert.deepEqual(d.diff(snap({ a: ['1 verified', [['a#f', 'verified'], ['a#h', 'queued']]], b: ['1 queued', [['b#g', 'queued (x)']]] })),
    { all: false, files: ['a'], functions: [] });
  d.reset();
  assert.deepEqual(d.diff(snap({ a: ['x', []] })), { all: true });
});
