// The webhook inspector's one writer of its SQLite file, run as a worker thread from this file's
// text (src/listener/inspector/sqlite-store.ts starts it; scripts/build ships it). The listener's
// thread hands over each event-loop turn's statements; they run here in one transaction, off the
// thread that answers deliveries, so keeping them costs the listener little (npm run bench listener).
'use strict';
const { parentPort, workerData } = require('node:worker_threads');

// Node 22 marks node:sqlite experimental: its warning is not the listener's to print.
const emitWarning = process.emitWarning;
process.emitWarning = function (warning, ...rest) {
  const type = typeof rest[0] === 'string' ? rest[0] : rest[0] && rest[0].type;
  if (type === 'ExperimentalWarning' && /sqlite/i.test(String(warning))) return;
  return emitWarning.call(process, warning, ...rest);
};
const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
process.emitWarning = emitWarning;

const db = new DatabaseSync(workerData.file, { timeout: workerData.busyTimeoutMs });
db.exec(workerData.connectionSetup);
const statements = workerData.statements.map((sql) => db.prepare(sql));

parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  const { seq, ops } = message;
  try {
    db.exec('BEGIN IMMEDIATE');
    for (const [index, ...params] of ops) statements[index].run(...params);
    db.exec('COMMIT');
    parentPort.postMessage({ seq });
  } catch (error) {
    try {
      db.exec('ROLLBACK');
    } catch {
      // No transaction left to roll back (it failed to begin).
    }
    parentPort.postMessage({ seq, error: String((error && error.message) || error) });
  }
});
