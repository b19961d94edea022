/**
 * JSON parsing that says where it broke, and refuses what JSON.parse lets
 * through silently: a key given twice in one object (JSON.parse keeps the
 * last, so `{"channel":"whatsapp","channel":"email"}` would send what the
 * author did not see) and nesting deeper than any envelope needs. One
 * linear scan with an explicit stack, never recursion, so hostile input
 * (100,000 levels of `[`) cannot overflow the call stack.
 */
import { InputParseError } from '../errors.js';

/** Deeper than this is refused while parsing; an envelope needs four levels. */
export const MAX_JSON_DEPTH = 64;

export interface JsonProblem {
  offset: number;
  kind: 'syntax' | 'depth' | 'duplicate';
  message?: string;
}

const NUMBER_RE = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const HEX_RE = /^[0-9a-fA-F]{4}$/;

/**
 * The first problem in `text` as JSON, or undefined when it is well-formed,
 * has no duplicate key and nests at most `maxDepth` levels.
 */
export function scanJson(text: string, maxDepth = MAX_JSON_DEPTH): JsonProblem | undefined {
  const n = text.length;
  let i = 0;
  /** One entry per open container: the keys seen so far (object, with their offsets) or null (array). */
  const stack: (Map<string, number> | null)[] = [];
  type Expect = 'value' | 'valueOrEnd' | 'after' | 'key' | 'keyOrEnd' | 'colon';
  let expect: Expect = 'value';
  const syntax = (): JsonProblem => ({ offset: Math.min(i, n), kind: 'syntax' });

  /** Advances past the string starting at i; false (i at the fault) when it is malformed. */
  const string = (): boolean => {
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!HEX_RE.test(text.slice(i + 2, i + 6))) return ((i += 2), false);
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else return ((i += 1), false);
      } else i++;
    }
    return false;
  };

  for (;;) {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
    if (expect === 'after' && stack.length === 0) return i < n ? syntax() : undefined;
    if (i >= n) return syntax();
    const ch = text[i]!;
    // An empty container closes where its first value or key would be.
    if ((expect === 'valueOrEnd' && ch === ']') || (expect === 'keyOrEnd' && ch === '}')) {
      i++;
      stack.pop();
      expect = 'after';
      continue;
    }
    switch (expect) {
      case 'valueOrEnd':
      case 'value':
        if (ch === '{' || ch === '[') {
          if (stack.length + 1 > maxDepth)
            return {
              offset: i,
              kind: 'depth',
              message: `nested deeper than ${maxDepth} levels; an envelope needs at most 4`,
            };
          stack.push(ch === '{' ? new Map() : null);
          i++;
          expect = ch === '{' ? 'keyOrEnd' : 'valueOrEnd';
          continue;
        }
        if (ch === '"') {
          if (!string()) return syntax();
        } else if (ch === 't' || ch === 'f' || ch === 'n') {
          const word = ch === 't' ? 'true' : ch === 'f' ? 'false' : 'null';
          // The fault is at the first character that differs (`tru}` at the `}`).
          let k = 0;
          while (k < word.length && text[i + k] === word[k]) k++;
          i += k;
          if (k < word.length) return syntax();
        } else {
          NUMBER_RE.lastIndex = i;
          if (!NUMBER_RE.test(text)) return syntax();
          i = NUMBER_RE.lastIndex;
        }
        expect = 'after';
        continue;
      case 'after': {
        const inObject = stack.at(-1) !== null;
        if (ch === ',') {
          i++;
          expect = inObject ? 'key' : 'value';
        } else if (ch === (inObject ? '}' : ']')) {
          i++;
          stack.pop();
        } else return syntax();
        continue;
      }
      case 'keyOrEnd':
      case 'key': {
        if (ch !== '"') return syntax();
        const start = i;
        if (!string()) return syntax();
        const raw = text.slice(start, i);
        const key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        const keys = stack.at(-1)!;
        const first = keys.get(key);
        if (first !== undefined) {
          const { line, column } = lineColumn(text, first);
          return {
            offset: start,
            kind: 'duplicate',
            message: `duplicate key ${JSON.stringify(key)} (first at line ${line}, column ${column}); keep only one`,
          };
        }
        keys.set(key, start);
        expect = 'colon';
        continue;
      }
      case 'colon':
        if (ch !== ':') return syntax();
        i++;
        expect = 'value';
        continue;
    }
  }
}

/** Offset of the first JSON syntax error in `text`, or -1 when it is valid. */
export function locateJsonError(text: string): number {
  const problem = scanJson(text, Number.POSITIVE_INFINITY);
  return problem?.kind === 'syntax' ? problem.offset : -1;
}

/** 1-based line and column of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let k = 0; k < offset && k < text.length; k++) {
    if (text[k] === '\n') {
      line++;
      lineStart = k + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** V8's message without the position and the echo of the input. */
function cleanMessage(message: string): string {
  return message
    .replace(/ in JSON at position \d+.*$/s, '')
    .replace(/ at position \d+(?: \(line \d+ column \d+\))?/, '')
    .replace(/, ".*"(?:\.\.\.)? is not valid JSON$/s, '')
    .replace(/^Unexpected end of JSON input$/, 'unexpected end of input')
    .replace(/^./, (c) => c.toLowerCase());
}

/**
 * Parses JSON text from `source` (a file name, `-` for stdin, `file:line`).
 * Throws InputParseError with line and column on a syntax error.
 * `lineOffset` shifts reported lines, for documents that start mid-file.
 */
export function parseJsonText(text: string, source: string, lineOffset = 0): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const problem = scanJson(body);
  if (problem === undefined) {
    try {
      return JSON.parse(body);
    } catch (error) {
      // The scan and V8 disagree (should not happen): report V8's verdict at the start.
      throw new InputParseError(source, 1 + lineOffset, 1, cleanMessage((error as Error).message));
    }
  }
  const { line, column } = lineColumn(body, problem.offset);
  let detail = problem.message;
  if (problem.kind === 'syntax' && body.trim() === '') detail = 'the input is empty';
  else if (problem.kind === 'syntax') {
    detail = 'invalid JSON';
    try {
      JSON.parse(body);
    } catch (error) {
      detail = cleanMessage((error as Error).message);
    }
  }
  throw new InputParseError(source, line + lineOffset, column, detail ?? 'invalid JSON');
}
