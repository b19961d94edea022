// The webhook inspector's one writer of its SQLite file, run as a worker thread from this file's
// text (src/listener/inspector/sqlite-store.ts starts it; scripts/build ships it). The listener's
// thread hands over batches: the deliveries encoded in two buffers (sqlite-batch.ts,
// DeliveryBatch), then other statements by index. Each batch runs here in
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

// Keeping deliveries is background work: on Linux, where a thread has a priority of its own, this
// one yields the processor to the thread that answers deliveries (and to whatever sends them on
// the same machine), so that --inspect takes what is left over. A writer that falls behind writes
// larger batches (sqlite-store.ts), never holding more than twice what the store keeps.
if (process.platform === 'linux') {
  try {
    require('node:os').setPriority(19);
  } catch {
    // Not allowed here (a sandbox without setpriority): the writer runs at the listener's priority.
  }
}

const db = new DatabaseSync(workerData.file, { timeout: workerData.busyTimeoutMs });
db.exec(workerData.connectionSetup);
// The WAL is copied back into the file at WAL_CHECKPOINT_BYTES (sqlite-schema.ts), in pages of the file's size.
const pageSize = Number(db.prepare('PRAGMA page_size').get().page_size);
db.exec(`PRAGMA wal_autocheckpoint = ${Math.max(1, Math.round(workerData.walCheckpointBytes / pageSize))}`);
const statements = workerData.statements.map((sql) => db.prepare(sql));
// INSERT_DELIVERY (sqlite-schema.ts): the first of the writes.
const insertDelivery = statements[0];
const NUMBERS = workerData.deliveryNumbers;
// The numbers before the texts' lengths; the texts are the rest (sqlite-batch.ts).
const FIXED = workerData.fixedNumbers;
const TEXTS = NUMBERS - FIXED;

/**
 * Inserts a batch's deliveries, read back as sqlite-batch.ts (DeliveryBatch) wrote them: per
 * delivery, NUMBERS numbers (id, received_at, verified, answered, delivery, filtered, signed_at,
 * the body's length, then each text's UTF-8 length or -1 for null), and in `bytes` the body then
 * the texts (bound as bytes): method, path, http_version, headers, reason, code, event_id, type, envelope_id, secret.
 */
function insertDeliveries(numbers, bytes) {
  let offset = 0;
  const nullable = (value) => (Number.isNaN(value) ? null : value);
  const texts = new Array(TEXTS);
  for (let i = 0; i < numbers.length; i += NUMBERS) {
    const length = numbers[i + FIXED - 1];
    const body = new Uint8Array(bytes.buffer, bytes.byteOffset + offset, length);
    offset += length;
    for (let t = 0; t < TEXTS; t++) {
      const size = numbers[i + FIXED + t];
      // The text's UTF-8 bytes: the statement makes them TEXT (sqlite-schema.ts, WRITES).
      texts[t] = size < 0 ? null : bytes.subarray(offset, offset + size);
      if (size > 0) offset += size;
    }
    insertDelivery.run(
      numbers[i],
      numbers[i + 1],
      texts[0],
      texts[1],
      texts[2],
      texts[3],
      body,
      numbers[i + 2],
      nullable(numbers[i + 3]),
      texts[4],
      texts[5],
      texts[6],
      texts[7],
      texts[8],
      numbers[i + 4],
      numbers[i + 5],
      texts[9],
      nullable(numbers[i + 6]),
    );
  }
}

parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  const { seq, batches, ops } = message;
  try {
    db.exec('BEGIN IMMEDIATE');
    for (const { numbers, bytes } of batches) insertDeliveries(new Float64Array(numbers), Buffer.from(bytes));
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
