/**
 * Values as a person reads them, in English or Arabic: days and times (on the sandbox clock, in
 * UTC, said so), identity methods and channels by their names, lists of names joined as a
 * sentence joins them. The signer's pages, the outbox and the signed copy all say them so.
 *
 * Digits stay Latin in Arabic text (`1 مارس 2027`), as UAE documents write them and as contract
 * ids and phone numbers are written anyway; and the strings carry no bidi marks (ICU's Arabic
 * date-time patterns hold U+200F, which a PDF font may not draw): a day and a time are put
 * together here.
 */

export type Language = 'en' | 'ar';

const LOCALES: Record<Language, string> = { en: 'en-GB', ar: 'ar' };

const dayFormats = new Map<Language, Intl.DateTimeFormat>();
const listFormats = new Map<Language, Intl.ListFormat>();

const timeOf = (value: unknown): number | undefined =>
  typeof value === 'number'
    ? value
    : typeof value === 'string' && !Number.isNaN(Date.parse(value))
      ? Date.parse(value)
      : undefined;

/** `1 March 2027` / `1 مارس 2027`; undefined for no time. */
export function humanDay(value: unknown, lang: Language): string | undefined {
  const at = timeOf(value);
  if (at === undefined) return undefined;
  let format = dayFormats.get(lang);
  if (!format)
    dayFormats.set(
      lang,
      (format = new Intl.DateTimeFormat(LOCALES[lang], {
        dateStyle: 'long',
        timeZone: 'UTC',
        numberingSystem: 'latn',
      })),
    );
  return format.format(at).replace(/[\u200e\u200f\u061c]/g, '');
}

/** `09:05 UTC`: the hour on a 24-hour clock, the zone named; `09:05:30 UTC` with `seconds`. */
export function humanClock(value: unknown, seconds = false): string | undefined {
  const at = timeOf(value);
  if (at === undefined) return undefined;
  const time = new Date(at);
  const two = (n: number) => String(n).padStart(2, '0');
  const clock = `${two(time.getUTCHours())}:${two(time.getUTCMinutes())}`;
  return `${seconds ? `${clock}:${two(time.getUTCSeconds())}` : clock} UTC`;
}

/**
 * `1 March 2027, 09:05 UTC` / `1 مارس 2027، 09:05 UTC`; to the second with `seconds` (a record,
 * as the certificate of completion keeps one).
 */
export function humanTime(value: unknown, lang: Language, seconds = false): string | undefined {
  const day = humanDay(value, lang);
  const clock = humanClock(value, seconds);
  if (day === undefined || clock === undefined) return undefined;
  return `${day}${lang === 'ar' ? '، ' : ', '}${clock}`;
}

/** A span of sandbox time as words: `2 minutes`, `1 hour`, `دقيقتان`. Rounded to whole minutes, at least one. */
export function humanDuration(ms: number, lang: Language): string {
  const minutes = Math.max(1, Math.round(ms / 60_000));
  if (minutes % 60 === 0 && minutes >= 60) return unit(minutes / 60, lang, HOURS);
  return unit(minutes, lang, MINUTES);
}

interface Unit {
  en: [string, string];
  /** One, two, three to ten, eleven and more: Arabic's forms. */
  ar: [string, string, string, string];
}
const MINUTES: Unit = { en: ['minute', 'minutes'], ar: ['دقيقة', 'دقيقتان', 'دقائق', 'دقيقة'] };
const HOURS: Unit = { en: ['hour', 'hours'], ar: ['ساعة', 'ساعتان', 'ساعات', 'ساعة'] };

function unit(n: number, lang: Language, words: Unit): string {
  if (lang === 'en') return `${n} ${n === 1 ? words.en[0] : words.en[1]}`;
  if (n === 1) return words.ar[0];
  if (n === 2) return words.ar[1];
  return `${n} ${n <= 10 ? words.ar[2] : words.ar[3]}`;
}

/** Names as a sentence lists them: `Layla Haddad and Omar Khalil`, `ليلى حداد وعمر خليل`. */
export function humanList(items: readonly string[], lang: Language): string {
  let format = listFormats.get(lang);
  if (!format) listFormats.set(lang, (format = new Intl.ListFormat(LOCALES[lang], { type: 'conjunction' })));
  return format.format(items);
}

// Maps: the method and channel are the envelope's (any value `--accept` allows, `constructor`
// too), and an object literal would answer for its prototype's names.
const METHOD_NAMES: ReadonlyMap<string, Record<Language, string>> = new Map([
  ['uae_pass', { en: 'UAE PASS', ar: 'الهوية الرقمية الإماراتية (UAE PASS)' }],
  ['nafath', { en: 'Nafath', ar: 'نفاذ' }],
  ['sms_otp', { en: 'a code by SMS', ar: 'رمز عبر رسالة نصية' }],
  ['email_otp', { en: 'a code by e-mail', ar: 'رمز عبر البريد الإلكتروني' }],
]);

/** An identity method by its name (`UAE PASS`); one the sandbox does not know, as given. */
export const methodName = (method: string, lang: Language): string =>
  METHOD_NAMES.get(method)?.[lang] ?? method;

const CHANNEL_NAMES: ReadonlyMap<string, Record<Language, string>> = new Map([
  ['email', { en: 'E-mail', ar: 'البريد الإلكتروني' }],
  ['whatsapp', { en: 'WhatsApp', ar: 'واتساب' }],
  ['sms', { en: 'SMS', ar: 'رسالة نصية' }],
  ['app', { en: 'ID app', ar: 'تطبيق الهوية' }],
]);

/** A channel by its name (`WhatsApp`); one the sandbox does not know, as given. */
export const channelName = (channel: string, lang: Language): string =>
  CHANNEL_NAMES.get(channel)?.[lang] ?? channel;
