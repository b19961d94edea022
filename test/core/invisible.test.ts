/**
 * Invisible characters (core/envelope/invisible.ts) and case slips in known values:
 * refused in machine values, named by code point and shown escaped; in names,
 * the joiners stay between letters of a script that needs them.
 */
import { describe, expect, it } from 'vitest';
import { validateEnvelope } from '../../src/core/envelope/envelope.js';
import { escapeControl } from '../../src/core/envelope/text.js';

const envelope = (signer: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  title: 'T',
  document: { template_id: 't', version: 1 },
  signers: [{ name: 'Amal', email: 'a@example.com', channel: 'email', ...signer }],
  ...extra,
});

describe('invisible characters', () => {
  it.each([
    ['email', { email: 'emp004@company.sa\u200b' }, 'signers[0].email', 'U+200B', 'emp004@company.sa\\u200b'],
    [
      'phone',
      { channel: 'whatsapp', phone: '\u200e+971501234567\u200e' },
      'signers[0].phone',
      'U+200E',
      '\\u200e+971501234567\\u200e',
    ],
    ['contract id', {}, 'contract_id', 'U+2060', 'CTR\\u2060-1'],
    ['url', {}, 'webhook_url', 'U+FEFF', 'https://example.com/\\ufeffhooks'],
  ])('in a %s: refused, named and shown escaped', (_what, signer, path, code, shown) => {
    const extra =
      path === 'contract_id'
        ? { contract_id: 'CTR\u2060-1' }
        : path === 'webhook_url'
          ? { webhook_url: 'https://example.com/\ufeffhooks' }
          : {};
    const { errors } = validateEnvelope(envelope(signer, extra));
    const issue = errors.find((e) => e.path === path);
    expect(issue?.message).toContain(`(${code})`);
    expect(issue?.message).toContain(`"${shown}"`);
    // One error for the field: the phone rule does not also call it malformed.
    expect(errors.filter((e) => e.path === path)).toHaveLength(1);
  });

  it('in names: a joiner between Persian or Arabic letters stays; a mark, or a joiner elsewhere, is refused', () => {
    expect(validateEnvelope(envelope({ name: 'محمد\u200cرضا' })).errors).toEqual([]);
    expect(validateEnvelope(envelope({ name: 'Amal\u200c Haddad' })).errors[0]).toMatchObject({
      path: 'signers[0].name',
      message: expect.stringContaining('U+200C'),
    });
    expect(validateEnvelope(envelope({ name: 'ليلى \u200f حداد' })).errors[0]).toMatchObject({
      path: 'signers[0].name',
      message: expect.stringContaining('right-to-left mark'),
    });
  });

  it('are shown escaped wherever text is shown', () => {
    expect(escapeControl('a\u200bb\u200cc\ufeff')).toBe('a\\u200bb\\u200cc\\ufeff');
  });
});

describe('case slips in known values', () => {
  it.each([
    ['channel', { channel: 'Email' }, {}, 'signers[0].channel', '"email"'],
    ['locale', {}, { locale: 'AR' }, 'locale', '"ar"'],
    ['signature level', {}, { signature_level: 'Advanced' }, 'signature_level', '"advanced"'],
  ])('%s: an error with the value meant, not a warning', (_what, signer, extra, path, meant) => {
    const { errors, warnings } = validateEnvelope(envelope(signer, extra));
    expect(errors).toEqual([
      expect.objectContaining({
        path,
        code: 'case_slip',
        message: expect.stringContaining(`did you mean ${meant}`),
      }),
    ]);
    expect(warnings.filter((w) => w.path === path)).toEqual([]);
  });
});
