/**
 * The inspector's SQLite batch (sqlite-batch.ts): what is moved to the writer when only the newest
 * of a batch are to be written, and a batch emptied to take new deliveries in the room it has.
 */
import { describe, expect, it } from 'vitest';
import type { DeliveryRecord } from '../../../src/listener/inspector/records.js';
import { DELIVERY_NUMBERS, DeliveryBatch } from '../../../src/listener/inspector/sqlite-batch.js';

const record = (id: number, note: string): DeliveryRecord => ({
  id,
  receivedAt: 1_800_000_000_000 + id,
  method: 'POST',
  path: `/hooks/${note}`,
  httpVersion: '1.1',
  rawHeaders: ['Host', '127.0.0.1:4020', 'x-note', note],
  body: Buffer.from(JSON.stringify({ id: `evt_${id}`, note })),
  verified: id % 2 === 0,
  answered: 200,
  reason: id % 2 === 0 ? null : 'signature mismatch',
  code: null,
  eventId: `evt_${id}`,
  type: 'signer.signed',
  envelopeId: null,
  delivery: 1,
  filtered: false,
  secret: null,
  signedAt: null,
  attempts: [],
});

const notes = ['a', 'réception ✓', '', 'plain', '🖋 signé'];

describe('a batch of deliveries for the SQLite writer', () => {
  it('encodes only its newest deliveries when asked, byte for byte as the whole batch ends', () => {
    const batch = new DeliveryBatch();
    notes.forEach((note, i) => batch.add(record(i + 1, note)));
    const whole = batch.encoded();
    const newest = batch.encoded(2);
    const numbers = new Float64Array(newest.numbers);
    expect(numbers.length).toBe(2 * DELIVERY_NUMBERS);
    expect([numbers[0], numbers[DELIVERY_NUMBERS]]).toEqual([4, 5]);
    expect(new Float64Array(whole.numbers).slice(3 * DELIVERY_NUMBERS)).toEqual(numbers);
    const wholeBytes = Buffer.from(whole.bytes);
    const newestBytes = Buffer.from(newest.bytes);
    expect(newestBytes.length).toBeLessThan(wholeBytes.length);
    expect(newestBytes.equals(wholeBytes.subarray(wholeBytes.length - newestBytes.length))).toBe(true);
    expect(newestBytes.toString('utf8')).toContain('🖋 signé');
    expect(newestBytes.toString('utf8')).not.toContain('réception');
    // More than it holds: all of it.
    expect(Buffer.from(batch.encoded(50).bytes).equals(wholeBytes)).toBe(true);
  });

  it('takes new deliveries once emptied, forgetting the ones it held', () => {
    const batch = new DeliveryBatch();
    for (let id = 1; id <= 300; id++) batch.add(record(id, notes[id % notes.length]!));
    batch.reset();
    expect(batch.size).toBe(0);
    expect(batch.find(7)).toBeUndefined();
    batch.add(record(301, 'réception ✓'));
    expect(batch.size).toBe(1);
    expect(batch.find(301)).toEqual(record(301, 'réception ✓'));
    expect(new Float64Array(batch.encoded().numbers).length).toBe(DELIVERY_NUMBERS);
  });
});
