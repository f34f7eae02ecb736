// Results persist across daemon restarts (SQLite store): no re-verification.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startStdio, initialize, stop, waitFor, settled, errors, tempDir, BUGGY, fileUri } from './lib.mjs';

test('a restarted daemon serves every function from the store', async () => {
  const store = path.join(tempDir(), 'results.sqlite');
  const uri = fileUri('/tmp/argus-e2e/restart.c');
  const open = (d) => d.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'c', version: 1, text: BUGGY } });

  const first = startStdio({ store });
  await initialize(first.conn);
  open(first);
  await waitFor(() => settled(first.rec, uri, 1), 60000, 'first run');
  const firstErrors = errors(first.rec, uri);
  assert.ok(firstErrors.length > 0);
  assert.ok(first.rec.status.get(uri).functions.every((f) => f.verifications >= 1));
  await stop(first);

  const second = startStdio({ store });
  await initialize(second.conn);
  open(second);
  await waitFor(() => settled(second.rec, uri, 1), 20000, 'second run');
  for (const f of second.rec.status.get(uri).functions) {
    assert.equal(f.verifications, 0, `${f.name} not re-verified`);
    assert.ok(f.cacheHits >= 1, `${f.name} served from the store`);
  }
  assert.deepEqual(errors(second.rec, uri), firstErrors);
  const stats = await second.conn.sendRequest('argus/stats');
  assert.equal(stats.workerRuns, 0);
  assert.ok(stats.storeHits > 0);
  await stop(second);
});
