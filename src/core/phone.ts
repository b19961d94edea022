/**
 * Phone numbers as people and spreadsheets write them, checked by
 * libphonenumber-js (Google's libphonenumber metadata, the field's library)
 * for their country rather than for their shape alone. Forms that mean one
 * number without doubt become E.164 before validation, key derivation and
 * sending: spaces, hyphens, dots and brackets, a leading 00, Arabic-Indic and
 * Persian digits. What could mean another number is refused, saying why: a
 * national number (no country code: which country is not ours to guess,
 * unless the caller names a default), digits a spreadsheet stored as a
 * number (its leading + or 0 gone, maybe digits too).
 */
import { parsePhoneNumberFromString, isSupportedCountry, type CountryCode } from 'libphonenumber-js/min';

/** A machine reason for a phone that is refused, for a caller to word its own advice. */
export type PhoneProblemCode = 'phone_spreadsheet_number' | 'phone_national' | 'phone_invalid' | 'phone_format';

export interface PhoneProblem {
  code: PhoneProblemCode;
  message: string;
}

/** Arabic-Indic (U+0660–0669) and extended Arabic-Indic, Persian (U+06F0–06F9), digits as ASCII. */
function asciiDigits(text: string): string {
  return text.replace(/[\u0660-\u0669\u06f0-\u06f9]/g, (d) => String((d.charCodeAt(0) & 0xf) % 10));
}

/** The separators people type inside a number (spaces of every width, hyphens, dots, brackets). */
const SEPARATORS = /[\s\u00a0\u2007\u2009\u202f().\-\u2010-\u2015]/g;
const SCIENTIFIC = /^\d(?:[.,]\d+)?e\+?\d+$/i;

/** Whether a country code (ISO 3166 alpha-2) is one libphonenumber knows. */
export function isPhoneCountry(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && isSupportedCountry(code as CountryCode);
}

/**
 * The number in E.164 when `raw` means one number without doubt (or, for a
 * national number, under `defaultCountry`); otherwise `raw` as it was, for
 * phoneProblem to explain.
 */
export function normalizePhone(raw: string, defaultCountry?: string): string {
  const compact = asciiDigits(raw).replace(SEPARATORS, '');
  let candidate: string | undefined;
  if (/^\+\d+$/.test(compact)) candidate = compact;
  else if (/^00[1-9]\d+$/.test(compact)) candidate = `+${compact.slice(2)}`;
  else if (defaultCountry && /^\d{4,12}$/.test(compact) && (compact.startsWith('0') || compact.length <= 10)) {
    const national = parsePhoneNumberFromString(compact, defaultCountry as CountryCode);
    if (national?.isValid() && !compact.startsWith(national.countryCallingCode)) return national.number;
    return raw;
  }
  if (!candidate) return raw;
  const parsed = parsePhoneNumberFromString(candidate);
  return parsed?.isValid() ? parsed.number : raw;
}

/** Why a phone (after normalizePhone) cannot be sent, or undefined when it is a valid E.164 number. */
export function phoneProblem(value: string): PhoneProblem | undefined {
  const compact = asciiDigits(value).replace(SEPARATORS, '');
  if (SCIENTIFIC.test(asciiDigits(value).trim())) {
    return { code: 'phone_spreadsheet_number', message: 'was stored by a spreadsheet as a number (scientific notation), and its last digits are already lost: format the column as Text and type the number again, with its + and country code' };
  }
  if (/^[1-9]\d{6,14}$/.test(compact)) {
    return { code: 'phone_spreadsheet_number', message: 'has digits but no +: a spreadsheet that stored it as a number drops the + (and a leading 0, sometimes digits): format the column as Text and write it in international form, such as +971501234567' };
  }
  if (/^0\d{5,14}$/.test(compact)) {
    return { code: 'phone_national', message: 'is a national number (it starts with 0): add the country code, such as +971 for 050 123 4567' };
  }
  if (!/^\+[1-9]\d{6,14}$/.test(compact)) {
    return { code: 'phone_format', message: 'must be an international phone number: a leading + and digits only, such as +971501234567' };
  }
  const parsed = parsePhoneNumberFromString(compact);
  if (!parsed?.isValid()) {
    const country = parsed?.country ? ` (${parsed.country})` : parsed?.countryCallingCode ? ` (+${parsed.countryCallingCode})` : '';
    return { code: 'phone_invalid', message: `is not a valid number for its country code${country}: check the digits (a mobile number has a fixed length for its country)` };
  }
  // What is sent is E.164 itself: normalizePhone writes it so; a caller that did not is told the form.
  if (value !== parsed.number) return { code: 'phone_format', message: `must be written in E.164, a + and digits only: ${parsed.number}` };
  return undefined;
}
