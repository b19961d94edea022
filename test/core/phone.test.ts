/**
 * Phone numbers as people and spreadsheets write them (core/phone.ts): the
 * forms that mean one number become E.164; a national number, a number a
 * spreadsheet stored as a number, and one invalid for its country are refused
 * with the reason; validateEnvelope and normalizeEnvelope use them.
 */
import { describe, expect, it } from 'vitest';
import { normalizePhone, phoneProblem } from '../../src/core/phone.js';
import { normalizeEnvelope } from '../../src/core/normalize.js';
import { validateEnvelope } from '../../src/core/envelope.js';

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
    ['9.66501E+11', 'phone_spreadsheet_number', /stored by a spreadsheet as a number .*format the column as Text/],
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

  it('an envelope\'s phones are normalised before validation, and what remains is named', () => {
    const envelope = { title: 'T', document: { template_id: 't', version: 1 }, signers: [{ name: 'A', phone: '+966 50 123 4567', channel: 'whatsapp' }, { name: 'B', phone: '0501234567', channel: 'whatsapp' }] };
    const normalized = normalizeEnvelope(envelope);
    expect(normalized.signers[0]!.phone).toBe('+966501234567');
    expect(validateEnvelope(normalized).errors).toEqual([expect.objectContaining({ path: 'signers[1].phone', code: 'phone_national' })]);
    expect(validateEnvelope(normalizeEnvelope(envelope, { defaultCountry: 'SA' })).errors).toEqual([]);
  });
});
