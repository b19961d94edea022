import { describe, expect, it } from 'vitest';
import { normalizeEmail, normalizeEnvelope } from '../../src/core/envelope/normalize.js';

describe('normalizeEnvelope: the envelope as it is sent', () => {
  it('NFC and trimmed strings everywhere, e-mail domains in lower case, the input untouched', () => {
    const input = {
      title: ' Lease\u00a0renewal ',
      document: { template_id: 'tpl_1 ', version: 1 },
      signers: [
        { name: 'Ami\u0301ra', email: ' Amira@Example.COM ', channel: 'email' },
        { name: 'Omar', phone: '+971501234567 ' },
      ],
      custom: ['  x '],
    };
    const copy = structuredClone(input);
    expect(normalizeEnvelope(input)).toEqual({
      title: 'Lease\u00a0renewal',
      document: { template_id: 'tpl_1', version: 1 },
      signers: [
        { name: 'Amíra', email: 'Amira@example.com', channel: 'email' },
        { name: 'Omar', phone: '+971501234567' },
      ],
      custom: ['x'],
    });
    expect(input).toEqual(copy);
    expect(normalizeEmail('no-at-sign ')).toBe('no-at-sign');
  });

  it('keeps a "__proto__" key from JSON as data, never as a prototype', () => {
    const parsed = JSON.parse('{"title":"x","__proto__":{"polluted":true}}') as Record<string, unknown>;
    const out = normalizeEnvelope(parsed);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect((out as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.keys(out)).toEqual(['title', '__proto__']);
  });

  it('leaves values that are not envelopes as they are, for validation to judge', () => {
    expect(normalizeEnvelope([' a '])).toEqual(['a']);
    expect(normalizeEnvelope(42)).toBe(42);
    expect(normalizeEnvelope(null)).toBe(null);
  });
});
