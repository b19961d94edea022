import { describe, expect, it } from 'vitest';
import { maskKey, redactSecrets } from '../../src/core/keys.js';

describe('maskKey (SPEC §2.3: leading part and last four characters)', () => {
  it.each([
    ['sk_live_51HqLyjWDarjtT1zdp7dcXYZ9', 'sk_live_****XYZ9'],
    ['sk_test_abcdefghijklmnopqrstuvwxyz', 'sk_test_****wxyz'],
    ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_****LaSw'],
    ['abcdefghijklmnopqrst', 'abcd****qrst'],
    ['abcdefghijklmn', '****klmn'],
    ['short', '****'],
    ['sk_live_short', 'sk_live_****'],
  ])('%s -> %s', (key, masked) => {
    expect(maskKey(key)).toBe(masked);
  });

  it('never shows more than the leading part and four characters', () => {
    for (const key of ['sk_live_0123456789abcdef', 'x'.repeat(64), 'pk_0123456789abcdefghij']) {
      const masked = maskKey(key);
      const visible = masked.replace('****', '');
      expect(visible.length).toBeLessThanOrEqual(key.length - 8);
      expect(masked).not.toContain(key.slice(8, -4));
    }
  });

  it('redacts secrets inside any text', () => {
    const key = 'sk_test_abcdefghijklmnopqrstuvwxyz';
    expect(redactSecrets(`Authorization: Bearer ${key} and ${key}`, [key])).toBe('Authorization: Bearer sk_test_****wxyz and sk_test_****wxyz');
  });
});
