import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PreparedHmac, type HmacDigest } from '../../src/core/webhooks/hmac.js';

describe('PreparedHmac', () => {
  // Key lengths around both block sizes (64 for SHA-256, 128 for SHA-512), where RFC 2104 pads or hashes the key.
  const keyLengths = [0, 1, 24, 32, 63, 64, 65, 127, 128, 129, 300];
  const bodies = [Buffer.alloc(0), Buffer.from('{"id":"evt_1"}'), randomBytes(1000), randomBytes(70_000)];

  for (const digest of ['sha256', 'sha512'] as HmacDigest[]) {
    it(`equals createHmac(${digest}) for every key length and body`, () => {
      for (const length of keyLengths) {
        const key = randomBytes(length);
        const prepared = new PreparedHmac(digest, key);
        for (const body of bodies) {
          for (const prefix of ['', 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W.1674087231.', 'évt—ünïcode.']) {
            const expected = createHmac(digest, key).update(prefix).update(body).digest();
            expect(
              prepared.mac(prefix, body).equals(expected),
              `key ${length} B, body ${body.length} B, prefix ${JSON.stringify(prefix)}`,
            ).toBe(true);
          }
        }
      }
    });
  }

  it('gives a different MAC for a different key or message', () => {
    const a = new PreparedHmac('sha256', Buffer.from('secret-a'));
    const b = new PreparedHmac('sha256', Buffer.from('secret-b'));
    const body = Buffer.from('payload');
    expect(a.mac('x.', body).equals(b.mac('x.', body))).toBe(false);
    expect(a.mac('x.', body).equals(a.mac('y.', body))).toBe(false);
  });
});
