/**
 * Whether what a command printed to a terminal reads whole at its width: no
 * line wider than the terminal (which would break it at the last column,
 * inside whatever word is there), and no line break of ours inside a word or
 * an id. The second is judged against the same commands' output at a width
 * where nothing needs fitting: the words that output holds are the real ones,
 * so two lines whose last and first pieces make one of its words, while a
 * piece alone is none of them, broke that word (`(th` / `e sandbox's`,
 * `env_P7YZxF` / `JsAhDjIsW6Gzmg`).
 */

/** The lines a terminal shows of `text`: colour and cursor sequences out, a `\r` redraw keeps what follows it. */
export function shownLines(text: string): string[] {
  return text
    .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')
    .split('\n')
    .map((line) => line.slice(line.lastIndexOf('\r') + 1).trimEnd());
}

/** Columns of a shown line (every character one column: the output checked is Latin text and marks). */
const columnsOf = (line: string) => [...line].length;

const wordsOf = (text: string) => text.split(/\s+/).filter(Boolean);

/** The words of a reference output (a run wide enough that nothing is cut or wrapped). */
export function wordsIn(texts: readonly string[]): Set<string> {
  return new Set(texts.flatMap((text) => wordsOf(shownLines(text).join('\n'))));
}

/**
 * The problems of `text` shown `width` columns wide: each line wider than that (unless it is one
 * word alone, wider than any line), and each line break that splits a word of `words`.
 */
export function fitProblems(text: string, width: number, words: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const lines = shownLines(text);
  lines.forEach((line, i) => {
    if (columnsOf(line) > width && wordsOf(line).length > 1)
      problems.push(`wider than ${width} (${columnsOf(line)}): ${line}`);
    const next = lines[i + 1];
    if (!next) return;
    const last = wordsOf(line).at(-1);
    const first = wordsOf(next)[0];
    if (last === undefined || first === undefined) return;
    const joined = `${last}${first}`;
    const isPieceOfAWord = [...words].some((word) => word.includes(joined));
    if (isPieceOfAWord && !(words.has(last) && words.has(first)))
      problems.push(`a word broken across lines: ${JSON.stringify(line)} / ${JSON.stringify(next)}`);
  });
  return problems;
}

/** Messages a terminal got wrapped (their next lines indented) as one line each again, for matching their words. */
export const unwrapped = (text: string): string => text.replace(/\n +/g, ' ');
