/**
 * Text broken into lines that fit a terminal, only where a space is: the one
 * wrapper of every message, hint and help line (Output's errors, warnings and
 * notes, commander's help, the lines render/line-fit.ts and render/table.ts
 * cannot fit by cutting). A room of its own, below render/ and help/, which
 * both use it. A word, an id, a path or a URL is never split: one wider than the
 * line stands alone on a line of its own, whole, and the terminal shows it as
 * it can. Left to the terminal, a long line breaks at the last column, inside
 * whatever word is there (`sign-cli enve` / `lopes download`).
 */
import { widthAtMost } from './width.js';

/** A run of spaces and the word after it (colour codes are part of a word). */
const CHUNK = /[ ]*[^ ]+/g;

/**
 * One line (no line break in it) as lines of at most `width` columns, broken at spaces. The lines
 * after the first start with `indent` (what the first line starts with, when that is a run of spaces,
 * plus `more`), so a wrapped message reads as one. `measure` is the columns a text takes.
 */
export function wrapLine(
  line: string,
  width: number,
  more = '  ',
  measure: (text: string) => number = widthAtMost,
): string[] {
  if (measure(line) <= width) return [line];
  const chunks = line.match(CHUNK);
  if (!chunks) return [line];
  const indent = `${/^ */.exec(line)![0]}${more}`;
  // An indent that leaves less than half the line is dropped: the words need the room more.
  const continued = measure(indent) * 2 > width ? '' : indent;
  const lines: string[] = [];
  let current = chunks.shift()!;
  let used = measure(current);
  for (const chunk of chunks) {
    const columns = measure(chunk);
    if (used + columns <= width) {
      current += chunk;
      used += columns;
      continue;
    }
    lines.push(current);
    current = continued + chunk.trimStart();
    used = measure(current);
  }
  lines.push(current);
  // Spaces a break left at the end of a line are not shown.
  return lines.map((l) => l.trimEnd());
}

/** Every line of `text` wrapped to `width` columns (undefined: a pipe or a file, where nothing is wrapped). */
export function wrapText(text: string, width: number | undefined, more = '  '): string {
  if (width === undefined || width <= 0) return text;
  return text
    .split('\n')
    .flatMap((line) => wrapLine(line, width, more))
    .join('\n');
}

/**
 * A `label value` line of a summary (the labels padded to one column by the caller), fitted to
 * `width` columns (undefined: a pipe, one line). A value that does not fit beside its label wraps
 * between its words under its own column; one that must not be broken (`whole`: a command to
 * copy, `. <path>`) goes on the next line, whole, when it cannot fit beside the label.
 */
export function labelled(label: string, value: string, width: number | undefined, whole = false): string[] {
  const line = `${label}${value}`;
  if (width === undefined || widthAtMost(line) <= width) return [line];
  const column = widthAtMost(label);
  const indent = `${/^ */.exec(label)![0]}  `;
  if (whole || column * 2 > width) return [label.trimEnd(), `${indent}${value}`];
  const [first = '', ...rest] = wrapLine(value, width - column, '');
  return [`${label}${first}`, ...rest.map((l) => `${' '.repeat(column)}${l}`)];
}
