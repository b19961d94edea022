/** The rule that envelope text is one line of plain text (envelope.ts applies it to every string). */
import type { FieldIssue } from '../errors.js';
import { isRecord } from './records.js';
import { unsafeCharacter } from './text.js';

const CHARACTER_NAMES: Record<string, string> = {
  '\n': 'a line break',
  '\r': 'a carriage return',
  '\t': 'a tab',
  '\u001b': 'an escape character',
  '\u202e': 'a right-to-left override',
  '\u202d': 'a left-to-right override',
};

/**
 * Text fields are one line of plain text: a control character (C0 with tab
 * and line feed, DEL, C1) or a bidi embedding, override or isolate in any
 * string of the envelope is an error naming its field. Such text can forge a
 * line of output (`Omar\n06:43:00  envelope.completed …`), hide or recolour
 * a terminal, or make a name read backwards; no signer's name needs it.
 */
export function checkPlainText(
  value: unknown,
  path: string,
  depth: number,
  maxDepth: number,
  errors: FieldIssue[],
): void {
  if (typeof value === 'string') {
    const found = unsafeCharacter(value);
    if (found) {
      const code = `U+${found.char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
      const name =
        CHARACTER_NAMES[found.char] ??
        (/[\u202a-\u202e\u2066-\u2069]/.test(found.char) ? 'a bidi control' : 'a control character');
      errors.push({
        path,
        message: `contains ${name} (${code}) at character ${found.index + 1}; text fields are one line of plain text, so remove it`,
      });
    }
    return;
  }
  if (depth > maxDepth) return;
  if (Array.isArray(value))
    value.forEach((item, i) => checkPlainText(item, `${path}[${i}]`, depth + 1, maxDepth, errors));
  else if (isRecord(value))
    for (const [name, item] of Object.entries(value))
      checkPlainText(item, path ? `${path}.${name}` : name, depth + 1, maxDepth, errors);
}
