// Properties in the editor (issue 26 item 4): argusd checks the properties the
// `properties` setting lists; each finding is an Error diagnostic at the faulting
// expression with its own code (argus.valid-deref, argus.valid-free, argus.valid-memtrack,
// ...) and the readable path as relatedInformation; fixing a bug (didChange) clears its
// diagnostic and leaves the others. A real LSP client library (vscode-languageserver-protocol).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startStdio, initialize, stop, waitFor, settled, errors, fnStatus, positionOf, fileUri } from './lib.mjs';

const uri = fileUri('/tmp/argus-e2e/properties_mem.c');
// fill: an out-of-bounds write in a loop; twice: a double free (both their own entries);
// keep: a block lost when it returns, a leak at the end of main (valid-memtrack).
const TEXT = `void *malloc(unsigned long size);
void free(void *p);

void fill(void) {
  int a[10];
  for (int i = 0; i <= 10; i++)
    a[i] = i;
}

void twice(void) {
  int *p = malloc(sizeof(int));
  free(p);
  free(p);
}

void keep(void) {
  int *q = malloc(sizeof(int));
  if (q) *q = 1;
}

int main(void) {
  keep();
  return 0;
}
`;
let text = TEXT;
let version = 1;
let d;

before(async () => {
  d = startStdio();
  await initialize(d.conn, { properties: ['valid-memsafety'], timeout: 60 });
});
after(async () => stop(d));

async function change(from, to) {
  const start = positionOf(text, from);
  const lines = from.split('\n');
  const end = lines.length === 1
    ? { line: start.line, character: start.character + from.length }
    : { line: start.line + lines.length - 1, character: lines.at(-1).length };
  text = text.replace(from, to);
  version += 1;
  d.conn.sendNotification('textDocument/didChange', {
    textDocument: { uri, version },
    contentChanges: [{ range: { start, end }, text: to }],
  });
  await waitFor(() => settled(d.rec, uri, version), 120000, `version ${version} verified`);
}

const byCode = (code) => errors(d.rec, uri).filter((e) => e.code === code);

test('an out-of-bounds write, a double free and a leak: three diagnostics with their codes and paths', async () => {
  d.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'c', version, text } });
  await waitFor(() => settled(d.rec, uri, 1), 120000, 'first verification');
  const errs = errors(d.rec, uri);
  assert.deepEqual(errs.map((e) => e.code).sort(), ['argus.valid-deref', 'argus.valid-free', 'argus.valid-memtrack'],
    JSON.stringify(errs, null, 1));

  const [deref] = byCode('argus.valid-deref');
  assert.equal(deref.range.start.line, positionOf(text, 'a[i] = i;').line);
  assert.match(deref.message, /^valid-deref violated from entry 'fill'/);
  assert.match(deref.message, /index 10 of an array of 10 elements/, 'the violation in words: ' + deref.message);
  assert.ok(deref.relatedInformation.length >= 3);
  assert.ok(deref.relatedInformation.every((r) => r.location.uri === uri));
  // the readable path: the loop counter by name with its C value when the write goes past the end
  assert.ok(deref.relatedInformation.some((r) => /\bi = 10\b/.test(r.message)), JSON.stringify(deref.relatedInformation));
  assert.deepEqual(deref.data, { function: 'fill', state: 'violated', property: 'valid-deref' });

  const [dfree] = byCode('argus.valid-free');
  assert.equal(dfree.range.start.line, positionOf(text, 'free(p);\n}').line);
  assert.match(dfree.message, /^valid-free violated from entry 'twice'/);
  assert.ok(dfree.relatedInformation.some((r) => /free\(p\)/.test(r.message)), JSON.stringify(dfree.relatedInformation));

  const [leak] = byCode('argus.valid-memtrack');
  assert.match(leak.message, /^valid-memtrack violated from entry 'main'/);
  assert.equal(leak.range.start.line, positionOf(text, 'return 0;').line);
  assert.ok(leak.relatedInformation.some((r) => /keep\(\)/.test(r.message)), JSON.stringify(leak.relatedInformation));

  for (const f of ['fill', 'twice', 'main']) assert.equal(fnStatus(d.rec, uri, f).state, 'violated', f);
  assert.equal(fnStatus(d.rec, uri, 'keep').state, 'verified');  // the leak shows at the end of the program

  const lenses = await d.conn.sendRequest('textDocument/codeLens', { textDocument: { uri } });
  const titles = Object.fromEntries(lenses.map((l) => [l.data.function, l.command.title]));
  assert.match(titles.fill, /^false\(valid-deref\): counterexample \(\d+ steps\)$/);
  assert.match(titles.twice, /^false\(valid-free\): counterexample \(\d+ steps\)$/);
  assert.match(titles.main, /^false\(valid-memtrack\): counterexample \(\d+ steps\)$/);
  assert.equal(titles.keep, 'verified');

  const cex = await d.conn.sendRequest('argus/counterexample', { uri, function: 'twice' });
  assert.equal(cex.property, 'valid-free');
  for (const e of errs) console.log(`${e.code} line ${e.range.start.line + 1}: ${e.message}\n  ${e.relatedInformation.map((r) => r.message).slice(-4).join('\n  ')}`);
});

test('fixing each bug clears its diagnostic and only that one', async () => {
  await change('i <= 10', 'i < 10');
  assert.deepEqual(errors(d.rec, uri).map((e) => e.code).sort(), ['argus.valid-free', 'argus.valid-memtrack']);
  assert.equal(fnStatus(d.rec, uri, 'fill').state, 'verified');

  await change('  free(p);\n  free(p);\n', '  free(p);\n');
  assert.deepEqual(errors(d.rec, uri).map((e) => e.code), ['argus.valid-memtrack']);
  assert.equal(fnStatus(d.rec, uri, 'twice').state, 'verified');

  await change('if (q) *q = 1;', 'if (q) *q = 1;\n  free(q);');
  assert.deepEqual(errors(d.rec, uri), []);
  for (const f of ['fill', 'twice', 'keep', 'main']) assert.equal(fnStatus(d.rec, uri, f).state, 'verified', f);
});

test('argus/verify takes properties; the result key includes them', async () => {
  const BUG = 'int main(void) { int x = 2147483647; x = x + 1; return x; }\n';
  const reach = await d.conn.sendRequest('argus/verify', { text: BUG, filename: 'ovf.c', algorithm: 'bmc', timeout: 30, properties: ['unreach-call'] });
  assert.equal(reach.verdict, 'true');
  const ovf = await d.conn.sendRequest('argus/verify', { text: BUG, filename: 'ovf.c', algorithm: 'bmc', timeout: 30, properties: ['no-overflow'] });
  assert.equal(ovf.verdict, 'false');
  assert.equal(ovf.violated_property, 'no-overflow');
  await assert.rejects(d.conn.sendRequest('argus/verify', { text: BUG, filename: 'ovf.c', properties: ['no-such-thing'] }),
    (e) => e.code === -32602 && /unknown property/.test(e.message));
});
