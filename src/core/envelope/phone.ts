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
import {
  Metadata,
  PhoneNumber,
  parsePhoneNumberFromString as parseWith,
  isSupportedCountry as supportedWith,
  type CountryCode,
  type MetadataJson,
} from 'libphonenumber-js/core';
import {
  CALLING_CODES,
  COUNTRIES_INDEX,
  COUNTRIES_TEXT,
  METADATA_VERSION,
  NON_GEOGRAPHIC_INDEX,
  NON_GEOGRAPHIC_TEXT,
} from './phone-metadata.js';

let metadata: MetadataJson | undefined;

/**
 * An object whose entries are read from text only when asked for, each once (the same value on
 * every read): libphonenumber reads its metadata's tables by key (and `constructor`, which it
 * checks), `hasOwnProperty` of a country, and rarely the list of keys. A check of one number
 * reads two or three entries, so nothing is done up front: building the whole index, or parsing
 * the calling codes' JSON, was most of what checking the first number cost.
 */
function lazyRecord(read: (key: string) => unknown, keys: () => string[]): Record<string, unknown> {
  const values = new Map<string, unknown>();
  const entry = (key: string | symbol): unknown => {
    if (typeof key !== 'string') return undefined;
    if (!values.has(key)) values.set(key, read(key));
    return values.get(key);
  };
  return new Proxy(
    {},
    {
      get: (target, key, receiver) => entry(key) ?? (Reflect.get(target, key, receiver) as unknown),
      has: (target, key) => entry(key) !== undefined || Reflect.has(target, key),
      getOwnPropertyDescriptor: (target, key) => {
        const value = entry(key);
        return value === undefined
          ? Reflect.getOwnPropertyDescriptor(target, key)
          : { value, writable: true, enumerable: true, configurable: true };
      },
      ownKeys: () => keys(),
    },
  );
}

/**
 * A table of phone-metadata.ts (entries' JSON texts joined, and an index `key:start:length,…`)
 * as the object libphonenumber reads: an entry is found in the index and parsed when first read.
 */
function lazyTable(text: string, index: string): Record<string, unknown> {
  const entries = `,${index},`;
  return lazyRecord(
    (key) => {
      const at = key.includes(',') || key.includes(':') ? -1 : entries.indexOf(`,${key}:`);
      if (at < 0) return undefined;
      const [start, length] = entries
        .slice(at + key.length + 2, entries.indexOf(',', at + 1))
        .split(':')
        .map(Number) as [number, number];
      return JSON.parse(text.slice(start, start + length)) as unknown;
    },
    () => (index === '' ? [] : index.split(',').map((entry) => entry.slice(0, entry.indexOf(':')))),
  );
}

/** The calling codes' JSON (`{"1":["US",…],…}`, string arrays) read a code at a time. */
function lazyCallingCodes(json: string): Record<string, unknown> {
  return lazyRecord(
    (code) => {
      const at = /^\d{1,3}$/.test(code) ? json.indexOf(`"${code}":[`) : -1;
      return at < 0
        ? undefined
        : (JSON.parse(json.slice(at + code.length + 3, json.indexOf(']', at) + 1)) as unknown);
    },
    () => Object.keys(JSON.parse(json) as object),
  );
}

/** libphonenumber's metadata (phone-metadata.ts), read as it is needed. */
function phoneMetadata(): MetadataJson {
  metadata ??= {
    version: METADATA_VERSION,
    country_calling_codes: lazyCallingCodes(CALLING_CODES),
    countries: lazyTable(COUNTRIES_TEXT, COUNTRIES_INDEX),
    nonGeographic: lazyTable(NON_GEOGRAPHIC_TEXT, NON_GEOGRAPHIC_INDEX),
  } as unknown as MetadataJson;
  return metadata;
}

const parsePhoneNumberFromString = (text: string, country?: CountryCode) =>
  country ? parseWith(text, country, phoneMetadata()) : parseWith(text, phoneMetadata());

/** PhoneNumber's constructor from a country (or calling code) and a national number: in its code, not in its types. */
const NationalPhoneNumber = PhoneNumber as unknown as new (
  countryOrCallingCode: string,
  national: string,
  metadata: MetadataJson,
) => PhoneNumber;

interface E164Check {
  number: string;
  valid: boolean;
  country: string | undefined;
  callingCode: string | undefined;
}

/**
 * An E.164 number checked as libphonenumber's parser would check it, without running the
 * parser (its first run compiles the large patterns of free-text parsing, a cost every
 * `validate` would pay): the calling code, the exact country of a shared one (its leading digits, else
 * its national pattern, as the parser chooses), then libphonenumber's own validity rule
 * (PhoneNumber.isValid). Where that says invalid, the parser decides after all (it may strip a
 * national prefix written inside an international number), so the verdict is always the parser's.
 */
function checkE164Uncached(e164: string): E164Check {
  const json = phoneMetadata();
  const codes = (json as unknown as { country_calling_codes: Record<string, string[]> })
    .country_calling_codes;
  const digits = e164.slice(1);
  for (let length = 1; length <= 3; length++) {
    const callingCode = digits.slice(0, length);
    const countries = codes[callingCode];
    if (!countries) continue;
    const national = digits.slice(length);
    const plans = new Metadata(json);
    const exact =
      countries.length === 1 || countries[0] === '001'
        ? countries[0]
        : countries.find((country) => {
            plans.selectNumberingPlan(country as CountryCode);
            const plan = plans.numberingPlan as unknown as {
              leadingDigits(): string | undefined;
              nationalNumberPattern(): string;
            };
            const leading = plan.leadingDigits();
            return leading
              ? national.search(leading) === 0
              : new RegExp(`^(?:${plan.nationalNumberPattern()})$`).test(national);
          });
    if (national.length >= 2) {
      const number = new NationalPhoneNumber(exact && exact !== '001' ? exact : callingCode, national, json);
      if (number.isValid())
        return { number: e164, valid: true, country: number.country ?? exact, callingCode };
    }
    const parsed = parsePhoneNumberFromString(e164);
    return {
      number: parsed?.number ?? e164,
      valid: parsed?.isValid() === true,
      country: parsed?.country ?? (exact !== '001' ? exact : undefined),
      callingCode,
    };
  }
  return { number: e164, valid: false, country: undefined, callingCode: undefined };
}
/**
 * The last number checked and its verdict: an envelope's phone is checked when it is normalised
 * and again when it is validated, one after the other (the verdict depends on the number alone).
 */
let lastCheck: { e164: string; result: E164Check } | undefined;

function checkE164(e164: string): E164Check {
  if (lastCheck?.e164 !== e164) lastCheck = { e164, result: checkE164Uncached(e164) };
  return lastCheck.result;
}

const isSupportedCountry = (country: string) => supportedWith(country as CountryCode, phoneMetadata());

/** A machine reason for a phone that is refused, for a caller to word its own advice. */
export type PhoneProblemCode =
  'phone_spreadsheet_number' | 'phone_national' | 'phone_invalid' | 'phone_format';

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
  return /^[A-Z]{2}$/.test(code) && isSupportedCountry(code);
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
  else if (
    defaultCountry &&
    /^\d{4,12}$/.test(compact) &&
    (compact.startsWith('0') || compact.length <= 10)
  ) {
    const national = parsePhoneNumberFromString(compact, defaultCountry as CountryCode);
    if (national?.isValid() && !compact.startsWith(national.countryCallingCode)) return national.number;
    return raw;
  }
  if (!candidate) return raw;
  const checked = checkE164(candidate);
  return checked.valid ? checked.number : raw;
}

/** Why a phone (after normalizePhone) cannot be sent, or undefined when it is a valid E.164 number. */
export function phoneProblem(value: string): PhoneProblem | undefined {
  const compact = asciiDigits(value).replace(SEPARATORS, '');
  if (SCIENTIFIC.test(asciiDigits(value).trim())) {
    return {
      code: 'phone_spreadsheet_number',
      message:
        'was stored by a spreadsheet as a number (scientific notation), and its last digits are already lost: format the column as Text and type the number again, with its + and country code',
    };
  }
  if (/^[1-9]\d{6,14}$/.test(compact)) {
    return {
      code: 'phone_spreadsheet_number',
      message:
        'has digits but no +: a spreadsheet that stored it as a number drops the + (and a leading 0, sometimes digits): format the column as Text and write it in international form, such as +971501234567',
    };
  }
  if (/^0\d{5,14}$/.test(compact)) {
    return {
      code: 'phone_national',
      message: 'is a national number (it starts with 0): add the country code, such as +971 for 050 123 4567',
    };
  }
  if (!/^\+[1-9]\d{6,14}$/.test(compact)) {
    return {
      code: 'phone_format',
      message: 'must be an international phone number: a leading + and digits only, such as +971501234567',
    };
  }
  const checked = checkE164(compact);
  if (!checked.valid) {
    const country = checked.country
      ? ` (${checked.country})`
      : checked.callingCode
        ? ` (+${checked.callingCode})`
        : '';
    return {
      code: 'phone_invalid',
      message: `is not a valid number for its country code${country}: check the digits (a mobile number has a fixed length for its country)`,
    };
  }
  // What is sent is E.164 itself: normalizePhone writes it so; a caller that did not is told the form.
  if (value !== checked.number)
    return {
      code: 'phone_format',
      message: `must be written in E.164, a + and digits only: ${checked.number}`,
    };
  return undefined;
}
