// The webhook inspector's one writer of its SQLite file, run as a worker thread from this file's
// text (src/listener/inspector/sqlite-store.ts starts it; scripts/build ships it). The listener's
// thread hands over batches: the deliveries encoded in a few values (sqlite-schema.ts,
// encodeDeliveries), then other statements by index. Each batch runs here in
// one transaction, off the thread that answers deliveries, and the rows are made here, so keeping
// them costs the listener little (npm run bench listener).
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
// INSERT_DELIVERY (sqlite-schema.ts): the first of the writes.
const insertDelivery = statements[0];
const NUMBERS = workerData.deliveryNumbers;

/** Inserts a batch's deliveries, read back as encodeDeliveries (sqlite-schema.ts) wrote them. */
function insertDeliveries(numbers, text, bodies) {
  let offset = 0;
  let at = 0;
  const nullable = (value) => (Number.isNaN(value) ? null : value);
  const next = (length) => {
    if (length < 0) return null;
    const value = text.slice(at, at + length);
    at += length;
    return value;
  };
  for (let i = 0; i < numbers.length; i += NUMBERS) {
    const length = numbers[i + 2];
    const body = new Uint8Array(bodies, offset, length);
    offset += length;
    const method = next(numbers[i + 8]);
    const path = next(numbers[i + 9]);
    const httpVersion = next(numbers[i + 10]);
    const headers = next(numbers[i + 11]);
    const reason = next(numbers[i + 12]);
    const code = next(numbers[i + 13]);
    const eventId = next(numbers[i + 14]);
    const type = next(numbers[i + 15]);
    const envelopeId = next(numbers[i + 16]);
    const secret = next(numbers[i + 17]);
    insertDelivery.run(
      numbers[i],
      numbers[i + 1],
      method,
      path,
      httpVersion,
      headers,
      body,
      numbers[i + 3],
      nullable(numbers[i + 4]),
      reason,
      code,
      eventId,
      type,
      envelopeId,
      numbers[i + 5],
      numbers[i + 6],
      secret,
      nullable(numbers[i + 7]),
    );
  }
}

parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  const { seq, numbers, text, bodies, ops } = message;
  try {
    db.exec('BEGIN IMMEDIATE');
    insertDeliveries(new Float64Array(numbers), text, bodies);
    for (const [index, ...params] of ops) statements[index].run(...params);
    db.exec('COMMIT');
    parentPort.postMessage(seq);
  } catch (error) {
    try {
      db.exec('ROLLBACK');
    } catch {
      // No transaction left to roll back (it failed to begin).
    }
    parentPort.postMessage({ seq, error: String((error && error.message) || error) });
  }
});
