import { describe, expect, it } from 'vitest';
import {
  displayKey,
  expiryStatus,
  maskKey,
  maskedKeyMatches,
  normalizeListedKeys,
  redactSecrets,
  relativeTime,
} from '../../src/core/keys.js';

describe('maskKey (docs/service.md, Authentication and keys: leading part and last four characters)', () => {
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

  it('shows only known type prefixes, never a secret that merely looks like one', () => {
    expect(maskKey('my_super_secret_value_2024')).toBe('my_s****2024');
    expect(maskKey('abcdefgh_ijklmnop_qrstuvwxyz12')).toBe('abcd****yz12');
    expect(maskKey('0123456789abcdef')).toBe('****cdef');
    expect(maskKey('pk_test_0123456789abcdefgh')).toBe('pk_test_****efgh');
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
    expect(redactSecrets(`Authorization: Bearer ${key} and ${key}`, [key])).toBe(
      'Authorization: Bearer sk_test_****wxyz and sk_test_****wxyz',
    );
  });

  it('masks the secret part alone too, when a server echoes a key or webhook secret without its prefix', () => {
    const key = 'sk_test_abcdefghijklmnopqrstuvwxyz';
    expect(
      redactSecrets('unknown key abcdefghijklmnopqrstuvwxyz (and sk_test_abcdefghijklmnopqrstuvwxyz)', [key]),
    ).toBe('unknown key ****wxyz (and sk_test_****wxyz)');
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    expect(redactSecrets('secret MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', [secret])).toBe('secret ****LaSw');
  });
});

describe('key expiry and last use, with an injected clock', () => {
  const now = new Date('2026-11-21T15:30:00Z');

  it.each([
    ['2026-11-20', 'expired', -1],
    ['2026-11-21', 'expiring', 0],
    ['2026-12-05', 'expiring', 14],
    ['2026-12-06', 'active', 15],
    ['2027-11-21', 'active', 365],
  ] as const)('%s -> %s (%i days left)', (expires, status, daysLeft) => {
    expect(expiryStatus(expires, now)).toEqual({ status, daysLeft });
  });

  it('takes a custom "soon" and tolerates missing or bad dates', () => {
    expect(expiryStatus('2026-12-20', now, 30).status).toBe('expiring');
    expect(expiryStatus(undefined, now)).toEqual({ status: 'unknown', daysLeft: null });
    expect(expiryStatus('soon', now)).toEqual({ status: 'unknown', daysLeft: null });
  });

  it('says when a key was last used in words', () => {
    expect(relativeTime(null, now)).toBe('never');
    expect(relativeTime('2026-11-21T15:29:50Z', now)).toBe('just now');
    expect(relativeTime('2026-11-21T15:25:00Z', now)).toBe('5 minutes ago');
    expect(relativeTime('2026-11-18T15:00:00Z', now)).toBe('3 days ago');
    expect(relativeTime('2026-10-01T00:00:00Z', now)).toBe('1 month ago');
  });
});

describe("the service's key listing", () => {
  it('reads any spelling of the fields and any wrapping', () => {
    const rows = normalizeListedKeys({
      data: [
        {
          name: 'ci',
          environment: 'live',
          key: 'sk_live_****abcd',
          last_used: '2026-11-20T10:00:00Z',
          expires: '2027-01-31',
          scopes: ['envelopes:write'],
        },
        {
          label: 'old',
          env: 'test',
          masked_key: 'sk_test_...wxyz',
          lastUsed: '2026-11-01T00:00:00Z',
          expires_at: '2026-12-01T00:00:00Z',
          scopes: 'envelopes:read audit:read',
        },
        { name: 'spaced', key: 'pk_••••1234', 'last used': '2026-11-19T00:00:00Z', expiry: '2026-12-24' },
      ],
    });
    expect(rows).toEqual([
      {
        name: 'ci',
        environment: 'live',
        key: 'sk_live_****abcd',
        last_used: '2026-11-20T10:00:00Z',
        expires: '2027-01-31',
        scopes: ['envelopes:write'],
      },
      {
        name: 'old',
        environment: 'test',
        key: 'sk_test_****wxyz',
        last_used: '2026-11-01T00:00:00Z',
        expires: '2026-12-01',
        scopes: ['envelopes:read', 'audit:read'],
      },
      {
        name: 'spaced',
        environment: null,
        key: 'pk_****1234',
        last_used: '2026-11-19T00:00:00Z',
        expires: '2026-12-24',
        scopes: null,
      },
    ]);
    expect(normalizeListedKeys([{ name: 'bare', key: 'sk_live_x' }])![0]!.name).toBe('bare');
    expect(normalizeListedKeys('nonsense')).toBeUndefined();
    expect(normalizeListedKeys({ error: 'nope' })).toBeUndefined();
    expect(normalizeListedKeys({ data: [] })).toEqual([]);
  });

  it('masks a key the service returned in full, and re-masks one that shows too much', () => {
    expect(displayKey('sk_live_0123456789abcdefghij')).toBe('sk_live_****ghij');
    expect(displayKey('sk_live_0123456789abcdefghijklmnopqrst***abcd')).toBe('sk_live_****abcd');
    expect(maskKey('sk_abcdefgh_0123456789abcdef')).toBe('sk_****cdef');
    expect(normalizeListedKeys([{ key: 'sk_live_0123456789abcdefghij' }])![0]!.key).toBe('sk_live_****ghij');
  });

  it('never takes letters for a mask: a key containing "xxxx" is still masked', () => {
    const key = 'sk_live_abcxxxxxdefghijklmnop';
    expect(displayKey(key)).toBe('sk_live_****mnop');
    expect(maskedKeyMatches('sk_test_****x9WT', 'sk_test_Q2x4bHk3ZmJ5cGVyc2VjcmV0x9WT')).toBe(true);
  });

  it('matches a masked key to the full key it hides', () => {
    const key = 'sk_live_0123456789abcdefghij';
    expect(maskedKeyMatches('sk_live_****ghij', key)).toBe(true);
    expect(maskedKeyMatches('sk_live_...ghij', key)).toBe(true);
    expect(maskedKeyMatches('sk_test_****ghij', key)).toBe(false);
    expect(maskedKeyMatches('sk_live_****zzzz', key)).toBe(false);
    expect(maskedKeyMatches('sk_live_****', key)).toBe(false);
  });
});
