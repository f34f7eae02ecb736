// argusd with default settings runs `auto` (issue 21): a file whose safety needs a loop
// invariant is "verified" (code lens) and a file with a reachable bug gets its
// diagnostic with the path. Prints the time from didOpen to each final state (the
// figures are measured here, not asserted: machines are shared; see docs/STRATEGY.md).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startStdio, initialize, stop, waitFor, settled, errors, fnStatus, fileUri } from './lib.mjs';

const loopUri = fileUri('/tmp/argus-e2e/auto_loop.c');
const bugUri = fileUri('/tmp/argus-e2e/auto_bug.c');
const LOOP = `extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int);
extern void reach_error(void);
int main(void) {
  int n = __VERIFIER_nondet_int();
  __VERIFIER_assume(n >= 0 && n < 1000000);
  int i = 0, j = 0;
  while (i < n) { i++; j += 2; }
  if (j != 2 * i) reach_error();
  return 0;
}
`;
const BUG = `extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int main(void) {
  int n = __VERIFIER_nondet_int(), s = 0;
  for (int i = 0; i < n && i < 100; i++) s += 3;
  if (s == 21) reach_error();
  return 0;
}
`;

let d;
before(async () => {
  d = startStdio();
  await initialize(d.conn);  // no settings: the defaults
});
after(async () => stop(d));

test('default settings: a loop that needs an invariant is verified, a reachable bug gets its path', async () => {
  const t0 = Date.now();
  d.conn.sendNotification('textDocument/didOpen', { textDocument: { uri: loopUri, languageId: 'c', version: 1, text: LOOP } });
  d.conn.sendNotification('textDocument/didOpen', { textDocument: { uri: bugUri, languageId: 'c', version: 1, text: BUG } });
  const done = {};
  await waitFor(() => {
    for (const u of [loopUri, bugUri]) if (!done[u] && settled(d.rec, u, 1)) done[u] = Date.now() - t0;
    return done[loopUri] !== undefined && done[bugUri] !== undefined;
  }, 120000, 'both files final');

  const loop = fnStatus(d.rec, loopUri, 'main');
  assert.equal(loop.state, 'verified', JSON.stringify(loop));
  const lenses = await d.conn.sendRequest('textDocument/codeLens', { textDocument: { uri: loopUri } });
  const title = lenses.find((l) => l.data.function === 'main').command.title;
  assert.equal(title, 'verified');

  const bug = fnStatus(d.rec, bugUri, 'main');
  assert.equal(bug.state, 'violated', JSON.stringify(bug));
  const errs = errors(d.rec, bugUri);
  assert.equal(errs.length, 1, JSON.stringify(errs));
  assert.equal(errs[0].range.start.line, 5);  // the reach_error() call
  assert.ok(errs[0].relatedInformation.some((r) => /s = 21/.test(r.message)), JSON.stringify(errs[0].relatedInformation));

  console.log(`auto in argusd: didOpen -> final: loop (verified by ${loop.algorithm}) ${done[loopUri]} ms, ` +
              `bug (counterexample by ${bug.algorithm}) ${done[bugUri]} ms`);
});
