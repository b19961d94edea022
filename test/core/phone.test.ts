/**
 * Phone numbers as people and spreadsheets write them (core/envelope/phone.ts): the
 * forms that mean one number become E.164; a national number, a number a
 * spreadsheet stored as a number, and one invalid for its country are refused
 * with the reason; validateEnvelope and normalizeEnvelope use them.
 */
import { describe, expect, it } from 'vitest';
import { normalizePhone, phoneProblem } from '../../src/core/envelope/phone.js';
import { normalizeEnvelope } from '../../src/core/envelope/normalize.js';
import { validateEnvelope } from '../../src/core/envelope/envelope.js';

describe('normalizePhone', () => {
  it.each([
    ['+966 50 123 4567', '+966501234567'],
    ['+966-50-123-4567', '+966501234567'],
    ['+966 (50) 123.4567', '+966501234567'],
    ['00966501234567', '+966501234567'],
    ['+٩٦٦٥٠١٢٣٤٥٦٧', '+966501234567'],
    ['+۹۷۱۵۰۱۲۳۴۵۶۷', '+971501234567'],
    ['\u00a0+971\u00a050\u00a0123\u00a04567', '+971501234567'],
  ])('%s means %s', (raw, e164) => {
    expect(normalizePhone(raw)).toBe(e164);
    expect(phoneProblem(normalizePhone(raw))).toBeUndefined();
  });

  it('a national number only under a default country; a spreadsheet number never', () => {
    expect(normalizePhone('0501234567')).toBe('0501234567');
    expect(normalizePhone('0501234567', 'SA')).toBe('+966501234567');
    expect(normalizePhone('٠٥٠١٢٣٤٥٦٧', 'SA')).toBe('+966501234567');
    expect(normalizePhone('050 123 4567', 'AE')).toBe('+971501234567');
    expect(normalizePhone('966501234567', 'SA')).toBe('966501234567');
    expect(normalizePhone('9.66501E+11', 'SA')).toBe('9.66501E+11');
  });
});

describe('phoneProblem', () => {
  it.each([
    [
      '9.66501E+11',
      'phone_spreadsheet_number',
      /stored by a spreadsheet as a number .*format the column as Text/,
    ],
    ['966501234567', 'phone_spreadsheet_number', /digits but no \+/],
    ['0501234567', 'phone_national', /national number .*add the country code/],
    ['+9661234567', 'phone_invalid', /not a valid number for its country code \(SA\)/],
    ['+966123', 'phone_format', /leading \+ and digits only/],
    ['+971 50 123 4567', 'phone_format', /E\.164.*\+971501234567/],
    ['call me', 'phone_format', /leading \+ and digits only/],
  ])('%s: %s', (value, code, message) => {
    const problem = phoneProblem(value);
    expect(problem?.code).toBe(code);
    expect(problem?.message).toMatch(message);
  });

  it("an envelope's phones are normalised before validation, and what remains is named", () => {
    const envelope = {
      title: 'T',
      document: { template_id: 't', version: 1 },
      signers: [
        { name: 'A', phone: '+966 50 123 4567', channel: 'whatsapp' },
        { name: 'B', phone: '0501234567', channel: 'whatsapp' },
      ],
    };
    const normalized = normalizeEnvelope(envelope);
    expect(normalized.signers[0]!.phone).toBe('+966501234567');
    expect(validateEnvelope(normalized).errors).toEqual([
      expect.objectContaining({ path: 'signers[1].phone', code: 'phone_national' }),
    ]);
    expect(validateEnvelope(normalizeEnvelope(envelope, { defaultCountry: 'SA' })).errors).toEqual([]);
  });
});

describe("the same verdicts as libphonenumber's own parser", () => {
  it('phone-metadata.ts is what `npm run phone-metadata` writes from the installed libphonenumber-js', async () => {
    const { readFileSync } = await import('node:fs');
    const { phoneMetadataSource } = await import('../../scripts/phone-metadata.mjs');
    expect(readFileSync(new URL('../../src/core/envelope/phone-metadata.ts', import.meta.url), 'utf8')).toBe(
      phoneMetadataSource(),
    );
  });

  it("for every country's example mobile number, the same number cut, lengthened and changed, and random numbers under every calling code", async () => {
    const { parsePhoneNumberFromString, getCountries, getCountryCallingCode } =
      await import('libphonenumber-js/core');
    const metadata = (await import('libphonenumber-js/min/metadata')).default;
    const examples = (await import('libphonenumber-js/mobile/examples')).default as Record<string, string>;
    let seed = 1;
    const next = (k: number) => {
      seed = (seed * 48271) % 2147483647;
      return seed % k;
    };
    const candidates: string[] = [];
    for (const country of getCountries(metadata)) {
      const example = examples[country];
      if (!example) continue;
      const e164 = `+${getCountryCallingCode(country, metadata)}${example}`;
      candidates.push(e164, e164.slice(0, -1), `${e164}5`, `${e164.slice(0, 4)}9${e164.slice(5)}`);
    }
    for (const code of new Set(getCountries(metadata).map((c) => getCountryCallingCode(c, metadata)))) {
      for (let i = 0; i < 20; i++)
        candidates.push(`+${code}${String(next(1e12)).padStart(6 + next(7), '0')}`);
    }
    const differ = candidates
      .filter((e164) => /^\+[1-9]\d{6,14}$/.test(e164))
      .filter((e164) => {
        const parsed = parsePhoneNumberFromString(e164, metadata);
        return (phoneProblem(e164) === undefined) !== (parsed?.isValid() === true && parsed.number === e164);
      });
    expect(candidates.length).toBeGreaterThan(5000);
    expect(differ).toEqual([]);
  });
});
