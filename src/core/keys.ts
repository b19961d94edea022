/**
 * API keys as SPEC §2.3 shows them: masked, with only the leading part and the
 * last four characters visible. Everything that prints a key goes through here.
 */

/** A type prefix such as `sk_live_`, `sk_test_` or `whsec_`: lower-case words ending in `_`. */
const PREFIX_RE = /^(?:[a-z]{1,8}_){1,2}/;
/** Below this many secret characters a key shows no tail at all, so little is ever revealed. */
const MIN_SECRET_FOR_TAIL = 12;
const HIDDEN = '****';

export function maskKey(key: string): string {
  const value = key.trim();
  const prefix = PREFIX_RE.exec(value)?.[0] ?? '';
  const secret = value.slice(prefix.length);
  if (secret.length < MIN_SECRET_FOR_TAIL) return `${prefix}${HIDDEN}`;
  // Without a type prefix the "leading part" is the first four characters,
  // shown only when at least eight characters stay hidden.
  const lead = prefix || (secret.length >= 16 ? secret.slice(0, 4) : '');
  return `${lead}${HIDDEN}${secret.slice(-4)}`;
}

/** Replaces every occurrence of the given secrets in a text by their masked form. */
export function redactSecrets(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let out = text;
  for (const secret of secrets) {
    // includes() first: the common case (no secret in the text) costs one scan and no allocation.
    if (secret && secret.length >= 4 && out.includes(secret)) out = out.split(secret).join(maskKey(secret));
  }
  return out;
}
