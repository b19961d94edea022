/**
 * Text from input, a server or a delivery, made safe to show a person: no raw
 * control character reaches the terminal (an ESC could retitle the window,
 * move the cursor, conceal or recolour text; a C1 CSI does the same on some
 * terminals; a bidi override makes text read backwards), and a message stays
 * on one line, so it cannot fake a line of ours.
 */

/**
 * C0 controls except tab and line feed, DEL, the C1 range, the bidi embeddings, overrides and
 * isolates, and the invisible characters (zero-width spaces and joiners, bidi marks, word
 * joiners, a BOM): shown, so a person sees `\u200b` where a value holds one.
 */
const CONTROL_RE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
/**
 * The colour sequences sign-cli writes itself (chalk at level 1: bold, dim,
 * red, green, yellow, cyan, and their ends). Only these pass where colour is
 * on; any other sequence (conceal, black on black, cursor moves) is shown.
 */
const OWN_SGR = /\u001b\[(?:1|2|22|31|32|33|36|39)m/y;

/** Every control character of a text that must be one line: the above, plus tab, line feed and carriage return. */
const UNSAFE_IN_A_VALUE_RE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const escapeChar = (ch: string): string => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * Every control character as a visible `\u001b`-style escape (also valid inside
 * a JSON string, so JSON output stays parseable and exact). With `keepColour`,
 * sign-cli's own colour sequences pass; any other escape sequence is shown.
 */
export function escapeControl(text: string, keepColour = false): string {
  CONTROL_RE.lastIndex = 0;
  if (!CONTROL_RE.test(text)) return text;
  CONTROL_RE.lastIndex = 0;
  if (!keepColour) return text.replace(CONTROL_RE, escapeChar);
  return text.replace(CONTROL_RE, (ch, offset: number) => {
    if (ch === '\u001b') {
      OWN_SGR.lastIndex = offset;
      if (OWN_SGR.test(text)) return ch;
    }
    return escapeChar(ch);
  });
}

/** Line breaks as a visible `\n`, so a message from elsewhere cannot span lines or fake a line of ours. */
export function oneLine(text: string): string {
  return text.includes('\n') || text.includes('\r') ? text.replace(/\r\n|\r|\n/g, '\\n') : text;
}

/**
 * Text that came from input, a server or a delivery, as one safe piece of a
 * line: every control character (tab and line breaks too) and bidi control
 * escaped. Use it before colouring: the colour is sign-cli's, the text is not.
 */
export function untrusted(text: string): string {
  return escapeControl(oneLine(text).replace(/\t/g, '\\t'));
}

/** The first control or bidi character of a value that must be one line of plain text, or undefined. */
export function unsafeCharacter(text: string): { char: string; index: number } | undefined {
  const match = UNSAFE_IN_A_VALUE_RE.exec(text);
  return match ? { char: match[0], index: match.index } : undefined;
}
