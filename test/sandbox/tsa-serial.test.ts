/**
 * The TSA's token serials in DER's one encoding: a serial whose first byte
 * masks to zero must not be written with a leading 0x00 that the next byte
 * does not need ("illegal padding" to OpenSSL, which then refuses the token:
 * random serials hit it about once in 256 tokens). Here it is forced, and the
 * token OpenSSL reads in test/sandbox/pades.test.ts is made the same way.
 */
import * as asn1js from 'asn1js';
import { describe, expect, it } from 'vitest';
import { positiveSerial } from '../../src/sandbox/signing/tsa.js';

describe('TSA token serials', () => {
  it.each([
    ['0x00 then a small byte', [0x00, 0x05]],
    ['0x80 (masked to 0) then a small byte', [0x80, 0x05]],
    ['0x00 then a high byte', [0x00, 0x95]],
    ['0xff', [0xff, 0x01]],
  ])('%s: a positive INTEGER without a needless leading zero', (_name, head) => {
    const bytes = positiveSerial(Uint8Array.from([...head, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]));
    expect(bytes).toHaveLength(12);
    expect(bytes[0]).toBeGreaterThan(0);
    expect(bytes[0]! & 0x80).toBe(0);
    // What goes into the token: the INTEGER's content octets are exactly these bytes.
    const der = new Uint8Array(new asn1js.Integer({ valueHex: bytes }).toBER());
    expect(der.slice(2)).toEqual(bytes);
  });
});
