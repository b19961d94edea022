/**
 * The lines of a text given in chunks, each bounded: readline keeps a line
 * whole however long it grows (a 1 GB line of NDJSON is a 1 GB string, then
 * V8's string limit and a stack trace), so a line past `maxBytes` (counted as
 * UTF-8, as it would be sent) is refused as soon as it gets there, and the rest
 * of it is never held. Line breaks as readline's with `crlfDelay: Infinity`:
 * `\n`, `\r\n` (even split across chunks) and a lone `\r`.
 */

/** A line longer than the bound: `line` is its 1-based number. */
export class LineTooLongError extends Error {
  constructor(
    readonly line: number,
    readonly maxBytes: number,
  ) {
    super(`line ${line} is longer than ${maxBytes} bytes`);
  }
}

export async function* boundedLines(chunks: AsyncIterable<string>, maxBytes: number): AsyncGenerator<string> {
  let parts: string[] = [];
  let bytes = 0;
  let line = 1;
  /** The last chunk ended in `\r`: a `\n` starting the next one belongs to that break. */
  let afterCr = false;
  const take = (piece: string) => {
    if (piece === '') return;
    bytes += Buffer.byteLength(piece);
    if (bytes > maxBytes) throw new LineTooLongError(line, maxBytes);
    parts.push(piece);
  };
  const end = (): string => {
    const text = parts.length === 1 ? parts[0]! : parts.join('');
    parts = [];
    bytes = 0;
    line++;
    return text;
  };
  for await (const chunk of chunks) {
    let start = afterCr && chunk.startsWith('\n') ? 1 : 0;
    afterCr = false;
    // Where the next of each break is, found again only once passed: one scan of the chunk for each.
    let lf = chunk.indexOf('\n', start);
    let cr = chunk.indexOf('\r', start);
    for (;;) {
      if (lf >= 0 && lf < start) lf = chunk.indexOf('\n', start);
      if (cr >= 0 && cr < start) cr = chunk.indexOf('\r', start);
      const next = cr < 0 ? lf : lf < 0 ? cr : Math.min(lf, cr);
      if (next < 0) {
        take(chunk.slice(start));
        break;
      }
      take(chunk.slice(start, next));
      yield end();
      start = next + 1;
      if (next === cr) {
        // `\r\n` is one break, also when the `\n` starts the next chunk.
        if (start === chunk.length) afterCr = true;
        else if (chunk[start] === '\n') start++;
      }
    }
  }
  // The last line, when the text does not end with a break (readline gives it too).
  if (parts.length > 0) yield end();
}
