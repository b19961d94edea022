/**
 * The deliveries of the inspector's next SQLite batch, encoded as each one comes: numbers in one
 * growing Float64Array, the body and texts as bytes in one growing buffer. Nothing of a delivery
 * stays on the JavaScript heap after its request is answered: a batch is written seconds later
 * under load, and deliveries kept as objects that long outlive the young generation, so the
 * listener's collector copied and promoted every one of them (the main cost --inspect added,
 * measured with --trace-gc: scavenges 2.3 times as long). The writer (assets/inspector/
 * sqlite-writer.js) reads the same layout; get() reads a delivery back from it until the batch
 * is kept.
 *
 * Per delivery, DELIVERY_NUMBERS numbers: id, received_at, verified, answered, delivery,
 * filtered, signed_at (NaN for null), the body's length in bytes, then the UTF-8 length of each
 * text (-1 for null) in TEXT_FIELDS order. The bytes: the body, then the texts, one after another.
 */
import type { DeliveryRecord } from './records.js';

/** The texts of a delivery, in the order their bytes follow its body (headers: rawHeaders joined by newlines). */
const TEXT_FIELDS = [
  'method',
  'path',
  'httpVersion',
  'headers',
  'reason',
  'code',
  'eventId',
  'type',
  'envelopeId',
  'secret',
] as const;
type TextField = (typeof TEXT_FIELDS)[number];

/**
 * A delivery's texts in TEXT_FIELDS order (what find() and the writer read them back by). An
 * array written out rather than TEXT_FIELDS mapped to the record: this runs once per delivery on
 * the thread that answers them.
 */
const textsOf = (record: DeliveryRecord): (string | null)[] => [
  record.method,
  record.path,
  record.httpVersion,
  record.rawHeaders.join('\n'),
  record.reason,
  record.code,
  record.eventId,
  record.type,
  record.envelopeId,
  record.secret,
];

/** Numbers before the texts' lengths (the body's length the last of them). */
export const FIXED_NUMBERS = 8;
/** How many numbers each delivery takes: the writer reads them in this order. */
export const DELIVERY_NUMBERS = FIXED_NUMBERS + TEXT_FIELDS.length;

/** What goes to the writer: two buffers, moved, not cloned. */
export interface EncodedBatch {
  numbers: ArrayBuffer;
  bytes: ArrayBuffer;
}

const nullable = (value: number | null): number => (value === null ? NaN : value);
const orNull = (value: number): number | null => (Number.isNaN(value) ? null : value);

export class DeliveryBatch {
  private numbers = new Float64Array(64 * DELIVERY_NUMBERS);
  private bytes = Buffer.allocUnsafeSlow(64 * 1024);
  private used = 0;
  private count = 0;
  /** The lowest and highest ids in the batch (the recorder numbers deliveries one after another). */
  private lowest = Infinity;
  private highest = -Infinity;

  /** Empties the batch to take new deliveries, keeping the room it has grown (no new buffers to collect). */
  reset(): this {
    this.used = 0;
    this.count = 0;
    this.lowest = Infinity;
    this.highest = -Infinity;
    return this;
  }

  /** The bytes its buffers take, whatever it holds now. */
  get roomBytes(): number {
    return this.numbers.byteLength + this.bytes.length;
  }

  get size(): number {
    return this.count;
  }

  add(record: DeliveryRecord): void {
    const texts = textsOf(record);
    let joined = '';
    for (const text of texts) if (text !== null) joined += text;
    // Room for the body and the texts at their longest (3 bytes per UTF-16 unit).
    this.reserve(record.body.length + joined.length * 3);
    let at = this.count * DELIVERY_NUMBERS;
    const n = this.numbers;
    n[at++] = record.id;
    n[at++] = record.receivedAt;
    n[at++] = record.verified ? 1 : 0;
    n[at++] = nullable(record.answered);
    n[at++] = record.delivery;
    n[at++] = record.filtered ? 1 : 0;
    n[at++] = nullable(record.signedAt);
    n[at++] = record.body.length;
    this.bytes.set(record.body, this.used);
    this.used += record.body.length;
    // The texts in one write: one call into Node's encoder per delivery rather than one per text.
    // All ASCII (a byte per unit), each text's bytes are as many as its units; else each is
    // written again on its own, to learn its length.
    const written = this.bytes.write(joined, this.used, 'utf8');
    const ascii = written === joined.length;
    for (const text of texts) {
      if (text === null) n[at++] = -1;
      else if (ascii) n[at++] = text.length;
      else {
        const size = this.bytes.write(text, this.used, 'utf8');
        n[at++] = size;
        this.used += size;
      }
    }
    if (ascii) this.used += written;
    this.count++;
    this.lowest = Math.min(this.lowest, record.id);
    this.highest = Math.max(this.highest, record.id);
  }

  /** A delivery of this batch, decoded (no attempts: they are kept apart until written). */
  find(id: number): DeliveryRecord | undefined {
    if (id < this.lowest || id > this.highest) return undefined;
    let offset = 0;
    for (let i = 0; i < this.count; i++) {
      const at = i * DELIVERY_NUMBERS;
      const n = this.numbers;
      if (n[at] !== id) {
        offset += this.bytesOf(i);
        continue;
      }
      const body = Buffer.from(this.bytes.subarray(offset, offset + n[at + 7]!));
      let cursor = offset + body.length;
      const texts = {} as Record<TextField, string | null>;
      TEXT_FIELDS.forEach((field, t) => {
        const size = n[at + FIXED_NUMBERS + t]!;
        texts[field] = size < 0 ? null : this.bytes.toString('utf8', cursor, cursor + size);
        cursor += Math.max(0, size);
      });
      return {
        id,
        receivedAt: n[at + 1]!,
        method: texts.method!,
        path: texts.path!,
        httpVersion: texts.httpVersion!,
        rawHeaders: texts.headers === '' ? [] : texts.headers!.split('\n'),
        body,
        verified: n[at + 2] === 1,
        answered: orNull(n[at + 3]!),
        reason: texts.reason,
        code: texts.code,
        eventId: texts.eventId,
        type: texts.type,
        envelopeId: texts.envelopeId,
        delivery: n[at + 4]!,
        filtered: n[at + 5] === 1,
        secret: texts.secret,
        signedAt: orNull(n[at + 6]!),
        attempts: [],
      };
    }
    return undefined;
  }

  /**
   * Copies of the newest `newest` deliveries of this batch (all of them by default), exactly as
   * long as they are, to move to the writer.
   */
  encoded(newest = this.count): EncodedBatch {
    const first = Math.max(0, this.count - newest);
    let offset = 0;
    for (let i = 0; i < first; i++) offset += this.bytesOf(i);
    const numbers = this.numbers.slice(first * DELIVERY_NUMBERS, this.count * DELIVERY_NUMBERS);
    const bytes = new Uint8Array(this.used - offset);
    bytes.set(this.bytes.subarray(offset, this.used));
    return { numbers: numbers.buffer, bytes: bytes.buffer };
  }

  /** How many bytes the `index`th delivery's body and texts take. */
  private bytesOf(index: number): number {
    const at = index * DELIVERY_NUMBERS;
    let length = this.numbers[at + FIXED_NUMBERS - 1]!;
    for (let t = 0; t < TEXT_FIELDS.length; t++) length += Math.max(0, this.numbers[at + FIXED_NUMBERS + t]!);
    return length;
  }

  private reserve(bytes: number): void {
    if ((this.count + 1) * DELIVERY_NUMBERS > this.numbers.length) {
      const grown = new Float64Array(this.numbers.length * 2);
      grown.set(this.numbers);
      this.numbers = grown;
    }
    if (this.used + bytes > this.bytes.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(this.bytes.length * 2, this.used + bytes));
      this.bytes.copy(grown, 0, 0, this.used);
      this.bytes = grown;
    }
  }
}
