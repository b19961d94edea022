import { closest } from '../../src/core/envelope/suggest.js';
import { describe, expect, it } from 'vitest';
import { formatPath, validateEnvelope } from '../../src/core/envelope/envelope.js';

type Json = Record<string, unknown>;
// Test fixtures are mutated freely; the point is to build invalid shapes.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = { [key: string]: any };

function base(): Json {
  return {
    title: 'Lease renewal',
    contract_id: 'CTR-1',
    document: { template_id: 'tpl_1', version: 2 },
    signers: [
      { name: 'Layla', email: 'layla@example.com', channel: 'email', order: 1, verification: 'uae_pass' },
      { name: 'Omar', phone: '+971501234567', channel: 'whatsapp', order: 2 },
    ],
    sequential: true,
    signature_level: 'advanced',
    expires_in_days: 14,
    locale: 'ar',
    webhook_url: 'https://example.com/hooks',
  };
}

/** Applies a change to a fresh valid envelope. */
function mutate(change: (e: Loose) => void): Json {
  const envelope = base();
  change(envelope);
  return envelope;
}

describe('validateEnvelope', () => {
  it('accepts the full example without errors or warnings', () => {
    expect(validateEnvelope(base())).toEqual({ errors: [], warnings: [] });
  });

  it('accepts a minimal envelope (optional fields left out)', () => {
    const minimal = {
      title: 'T',
      document: { template_id: 't', version: 1 },
      signers: [{ name: 'A', channel: 'email', email: 'a@b.co' }],
    };
    expect(validateEnvelope(minimal).errors).toEqual([]);
  });

  it('accepts non-sequential signers that share or omit an order', () => {
    const e = mutate((x) => {
      x.sequential = false;
      x.signers[1]!.order = 1;
      delete x.signers[0]!.order;
    });
    expect(validateEnvelope(e).errors).toEqual([]);
  });

  // Each invalid envelope and the JSON path(s) that must be reported.
  const invalid: [string, unknown, string[]][] = [
    ['not an object', 'hello', ['']],
    ['an array', [base()], ['']],
    ['null', null, ['']],
    ['title missing', mutate((e) => delete e.title), ['title']],
    ['title a number', mutate((e) => (e.title = 42)), ['title']],
    ['title empty', mutate((e) => (e.title = '   ')), ['title']],
    ['contract_id a number', mutate((e) => (e.contract_id = 7)), ['contract_id']],
    ['document missing', mutate((e) => delete e.document), ['document']],
    ['document a string', mutate((e) => (e.document = 'tpl_1')), ['document']],
    ['template_id missing', mutate((e) => delete e.document.template_id), ['document.template_id']],
    ['template_id a number', mutate((e) => (e.document.template_id = 5)), ['document.template_id']],
    ['version missing', mutate((e) => delete e.document.version), ['document.version']],
    ['version zero', mutate((e) => (e.document.version = 0)), ['document.version']],
    ['version negative', mutate((e) => (e.document.version = -2)), ['document.version']],
    ['version fractional', mutate((e) => (e.document.version = 1.5)), ['document.version']],
    ['version a string', mutate((e) => (e.document.version = '2')), ['document.version']],
    ['signers missing', mutate((e) => delete e.signers), ['signers']],
    ['signers empty', mutate((e) => (e.signers = [])), ['signers']],
    ['signers an object', mutate((e) => (e.signers = { name: 'A' } as never)), ['signers']],
    ['signer not an object', mutate((e) => (e.signers[1] = 'Omar' as never)), ['signers[1]']],
    ['signer name missing', mutate((e) => delete e.signers[1]!.name), ['signers[1].name']],
    ['signer name empty', mutate((e) => (e.signers[0]!.name = '')), ['signers[0].name']],
    ['signer channel missing', mutate((e) => delete e.signers[0]!.channel), ['signers[0].channel']],
    ['signer channel a number', mutate((e) => (e.signers[0]!.channel = 1)), ['signers[0].channel']],
    ['email channel without email', mutate((e) => delete e.signers[0]!.email), ['signers[0].email']],
    ['email malformed', mutate((e) => (e.signers[0]!.email = 'layla.example.com')), ['signers[0].email']],
    ['email with a space', mutate((e) => (e.signers[0]!.email = 'layla @example.com')), ['signers[0].email']],
    ['whatsapp channel without phone', mutate((e) => delete e.signers[1]!.phone), ['signers[1].phone']],
    ['phone without +', mutate((e) => (e.signers[1]!.phone = '971501234567')), ['signers[1].phone']],
    ['phone with spaces', mutate((e) => (e.signers[1]!.phone = '+971 50 123 4567')), ['signers[1].phone']],
    ['phone too short', mutate((e) => (e.signers[1]!.phone = '+12345')), ['signers[1].phone']],
    ['phone too long', mutate((e) => (e.signers[1]!.phone = '+1234567890123456')), ['signers[1].phone']],
    ['phone a number', mutate((e) => (e.signers[1]!.phone = 971501234567)), ['signers[1].phone']],
    ['order zero', mutate((e) => (e.signers[0]!.order = 0)), ['signers[0].order']],
    ['order fractional', mutate((e) => (e.signers[1]!.order = 1.5)), ['signers[1].order']],
    ['order a string', mutate((e) => (e.signers[1]!.order = '2')), ['signers[1].order']],
    ['sequential with duplicate orders', mutate((e) => (e.signers[1]!.order = 1)), ['signers[1].order']],
    ['sequential with a missing order', mutate((e) => delete e.signers[1]!.order), ['signers[1].order']],
    ['sequential a string', mutate((e) => (e.sequential = 'true')), ['sequential']],
    ['expires_in_days zero', mutate((e) => (e.expires_in_days = 0)), ['expires_in_days']],
    ['expires_in_days fractional', mutate((e) => (e.expires_in_days = 2.5)), ['expires_in_days']],
    ['expires_in_days a string', mutate((e) => (e.expires_in_days = '14')), ['expires_in_days']],
    ['webhook_url relative', mutate((e) => (e.webhook_url = '/hooks')), ['webhook_url']],
    ['webhook_url ftp', mutate((e) => (e.webhook_url = 'ftp://example.com/hooks')), ['webhook_url']],
    ['webhook_url not a URL', mutate((e) => (e.webhook_url = 'example.com')), ['webhook_url']],
    ['signature_level a number', mutate((e) => (e.signature_level = 3)), ['signature_level']],
    ['locale empty', mutate((e) => (e.locale = '')), ['locale']],
    [
      'verification a boolean',
      mutate((e) => (e.signers[0]!.verification = true)),
      ['signers[0].verification'],
    ],
    [
      'several problems at once',
      mutate((e) => {
        e.title = '';
        e.document.version = 0;
        delete e.signers[1]!.phone;
        e.webhook_url = 'nope';
      }),
      ['title', 'document.version', 'signers[1].phone', 'webhook_url'],
    ],
  ];

  it('has at least 30 invalid cases', () => {
    expect(invalid.length).toBeGreaterThanOrEqual(30);
  });

  it.each(invalid)('rejects %s', (_name, envelope, paths) => {
    const { errors } = validateEnvelope(envelope);
    expect(errors.map((e) => e.path).sort()).toEqual([...paths].sort());
    for (const error of errors) expect(error.message.length).toBeGreaterThan(5);
  });

  it('names the fix in its messages', () => {
    const { errors } = validateEnvelope(mutate((e) => (e.signers[1]!.phone = '0501234567')));
    expect(errors[0]!.message).toMatch(/national number .*add the country code/);
    expect(errors[0]!.message).toContain('"0501234567"');
    expect(errors[0]!.code).toBe('phone_national');
    const missing = validateEnvelope(mutate((e) => delete e.title)).errors[0]!;
    expect(missing.message).toMatch(/^is required/);
  });

  describe('values whose full list the published interface does not show', () => {
    it.each([
      ['signature_level', mutate((e) => (e.signature_level = 'gold')), 'signature_level'],
      ['locale', mutate((e) => (e.locale = 'sw')), 'locale'],
      ['verification', mutate((e) => (e.signers[0]!.verification = 'bank_id')), 'signers[0].verification'],
      [
        'channel',
        mutate((e) => ((e.signers[0]!.channel = 'sms'), (e.signers[0]!.phone = '+971501234567'))),
        'signers[0].channel',
      ],
    ])('accepts an unknown %s with a warning', (_field, envelope, path) => {
      const { errors, warnings } = validateEnvelope(envelope);
      expect(errors).toEqual([]);
      expect(warnings.map((w) => w.path)).toEqual([path]);
      expect(warnings[0]!.message).toMatch(/service decides/);
    });

    it('takes the values the docs, the sample and the sandbox use without a warning', () => {
      const envelope = mutate((e) => {
        e.signature_level = 'qualified';
        e.locale = 'en';
        e.signers[0]!.verification = 'nafath';
        e.signers[1]!.verification = 'sms_otp';
      });
      expect(validateEnvelope(envelope)).toEqual({ errors: [], warnings: [] });
    });

    it('takes extra known values from options', () => {
      const envelope = mutate((e) => (e.locale = 'sw'));
      expect(validateEnvelope(envelope, { knownValues: { locale: ['sw'] } }).warnings).toEqual([]);
    });

    it('turns unknown values into errors when a server list is given', () => {
      const envelope = mutate((e) => (e.signature_level = 'gold'));
      const { errors } = validateEnvelope(envelope, {
        allowedValues: { signature_level: ['simple', 'advanced'] },
      });
      expect(errors).toEqual([
        { path: 'signature_level', message: expect.stringContaining('simple, advanced') },
      ]);
    });
  });

  it('refuses fields the service does not define, naming the one meant; with allowUnknownFields they are warnings, kept', () => {
    const envelope = mutate((e) => {
      e.webhookUrl = 'https://example.com/hooks';
      e.titel = 'typo';
      e.signers[0]!.mobile = '+971501234567';
      e.document.templateId = 'x';
    });
    const { errors, warnings } = validateEnvelope(envelope);
    expect(warnings).toEqual([]);
    expect(errors.map((e) => [e.path, e.code, e.suggestion])).toEqual([
      ['webhookUrl', 'unknown_field', 'webhook_url'],
      ['titel', 'unknown_field', 'title'],
      ['document.templateId', 'unknown_field', 'template_id'],
      ['signers[0].mobile', 'unknown_field', undefined],
    ]);
    expect(errors[0]!.message).toBe('is not a field of an envelope; did you mean webhook_url?');
    expect(errors[3]!.message).toBe('is not a field of a signer');
    const allowed = validateEnvelope(envelope, { allowUnknownFields: true });
    expect(allowed.errors).toEqual([]);
    expect(allowed.warnings.map((w) => w.path)).toEqual([
      'webhookUrl',
      'titel',
      'document.templateId',
      'signers[0].mobile',
    ]);
  });
});

describe('plain text: no control or bidi character in any string', () => {
  it.each([
    [
      'a line break in a name',
      (e: Loose) => (e.signers[0]!.name = 'Omar\n06:43:00  envelope.completed'),
      'signers[0].name',
      'a line break (U+000A) at character 5',
    ],
    ['a tab in the title', (e: Loose) => (e.title = 'Lease\trenewal'), 'title', 'a tab (U+0009)'],
    [
      'an escape in the contract id',
      (e: Loose) => (e.contract_id = 'CTR\u001b[8m'),
      'contract_id',
      'an escape character (U+001B)',
    ],
    ['DEL', (e: Loose) => (e.title = 'a\u007fb'), 'title', 'a control character (U+007F)'],
    ['a C1 control', (e: Loose) => (e.title = 'a\u0085b'), 'title', 'a control character (U+0085)'],
    [
      'a right-to-left override',
      (e: Loose) => (e.signers[0]!.name = 'Omar\u202eramO'),
      'signers[0].name',
      'a right-to-left override (U+202E)',
    ],
    [
      'a bidi isolate in an unknown field',
      (e: Loose) => (e.note = '\u2066x'),
      'note',
      'a bidi control (U+2066)',
    ],
  ])('%s is an error naming the field', (_name, change, path, what) => {
    const { errors } = validateEnvelope(mutate(change), { allowUnknownFields: true });
    expect(errors).toContainEqual({ path, message: expect.stringContaining(`contains ${what}`) });
  });

  it('Arabic, accents, and a zero-width non-joiner between Persian letters stay valid', () => {
    expect(
      validateEnvelope(mutate((e) => (e.signers[0]!.name = 'ليلى حداد Amāl محمد\u200cرضا'))).errors,
    ).toEqual([]);
  });
});

describe('closest (did you mean)', () => {
  it.each([
    ['webhookUrl', 'webhook_url'],
    ['WEBHOOK-URL', 'webhook_url'],
    ['complete', 'completed'],
    ['singers', 'signers'],
    ['expires_in_day', 'expires_in_days'],
    ['zzz', undefined],
    ['mobile', undefined],
  ])('%s → %s', (word, expected) => {
    expect(
      closest(word, ['title', 'webhook_url', 'signers', 'expires_in_days', 'completed', 'sent', 'phone']),
    ).toBe(expected);
  });
});

describe('formatPath', () => {
  it('writes array indexes in brackets', () => {
    expect(formatPath(['signers', 1, 'phone'])).toBe('signers[1].phone');
    expect(formatPath([])).toBe('');
    expect(formatPath([0, 'a'])).toBe('[0].a');
  });
});
