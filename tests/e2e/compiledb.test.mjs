// Compile flags for an open document come from the nearest compile_commands.json.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startStdio, initialize, stop, waitFor, settled, errors, fnStatus, tempDir, fileUri } from './lib.mjs';

let d;
before(async () => {
  d = startStdio();
  await initialize(d.conn);
});
after(async () => stop(d));

const SRC = `extern void reach_error(void);
#include "limits_cfg.h"
int main(void) {
#ifdef ARGUS_BUGGY
  if (LIMIT == 3) reach_error();
#endif
  return 0;
}
`;

test('-D and -I from compile_commands.json are applied; without an entry they are not', async () => {
  const root = tempDir();
  fs.mkdirSync(path.join(root, 'src'));
  fs.mkdirSync(path.join(root, 'include'));
  fs.writeFileSync(path.join(root, 'include', 'limits_cfg.h'), '#define LIMIT 3\n');
  const withFlags = path.join(root, 'src', 'a.c');
  const without = path.join(root, 'src', 'b.c');
  fs.writeFileSync(withFlags, SRC);
  fs.writeFileSync(without, SRC);
  fs.mkdirSync(path.join(root, 'build'));
  fs.writeFileSync(
    path.join(root, 'build', 'compile_commands.json'),
    JSON.stringify([
      { directory: root, file: 'src/a.c', arguments: ['cc', '-c', '-DARGUS_BUGGY', '-Iinclude', 'src/a.c', '-o', 'a.o'] },
      { directory: root, file: 'src/b.c', command: 'cc -c -Iinclude src/b.c' },
    ]),
  );
  for (const f of [withFlags, without])
    d.conn.sendNotification('textDocument/didOpen', { textDocument: { uri: fileUri(f), languageId: 'c', version: 1, text: SRC } });
  await waitFor(() => settled(d.rec, fileUri(withFlags), 1) && settled(d.rec, fileUri(without), 1), 60000, 'both verified');
  assert.equal(fnStatus(d.rec, fileUri(withFlags), 'main').state, 'violated');
  assert.equal(errors(d.rec, fileUri(withFlags)).length, 1);
  assert.equal(fnStatus(d.rec, fileUri(without), 'main').state, 'verified');
  assert.deepEqual(errors(d.rec, fileUri(without)), []);
});
