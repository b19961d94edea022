/**
 * Where envelopes come from: JSON files, directories of them, NDJSON (one
 * envelope per line, streamed so memory stays flat), or stdin. An input set
 * can be read twice (a validation pass, then the sending pass); stdin is
 * spooled to a temporary file for that.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { finished, pipeline } from 'node:stream/promises';
import { MAX_BODY_BYTES } from '../../core/endpoints.js';
import { InputParseError, UsageError } from '../../core/errors.js';
import { parseJsonText } from '../../core/envelope/json-source.js';
import { normalizeEnvelope } from '../../core/envelope/normalize.js';
import { readStdinChunks, sizeText, tooLarge, type InputBound } from './stdin.js';
import type { Io } from '../process/io.js';
import { decideEncoding, decodedText, readTextFile, type EncodingDecision } from './encoding.js';
import { boundedLines, LineTooLongError } from './lines.js';

export interface EnvelopeInput {
  /** How the input is named in output: a path, `path:line` for NDJSON, `-` for stdin. */
  source: string;
  value: unknown;
  /** From a spreadsheet: the columns that filled each field (`signers[1].phone` → `witness_phone`). */
  columns?: import('../../core/envelope/template.js').ColumnSources;
}

/** One input as read: a parsed envelope, or where and why it is broken (its JSON, or a CSV row: csv-input.ts). */
export type ReadInput = EnvelopeInput | { source: string; error: InputParseError | Error };

export interface InputSet {
  /** Stable across runs of the same command: names the create journal. */
  identity: string;
  read(): AsyncIterable<ReadInput>;
  /** Removes anything spooled. */
  close(): void;
}

const NDJSON_EXTENSIONS = ['.ndjson', '.jsonl'];

/** Expands directories to their `*.json` (or, with --ndjson, `*.ndjson`/`*.jsonl`) files, sorted. */
export function expandPaths(paths: string[], ndjson = false): string[] {
  const extensions = ndjson ? NDJSON_EXTENSIONS : ['.json'];
  const out: string[] = [];
  for (const path of paths) {
    if (path === '-') {
      out.push(path);
      continue;
    }
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new UsageError(
        `${path}: ${code === 'ENOENT' ? 'no such file or directory' : (error as Error).message}`,
        {
          hint: 'check the path given to -f/--file',
        },
      );
    }
    if (!isDirectory) {
      out.push(path);
      continue;
    }
    const files = readdirSync(path)
      .filter((name) => extensions.some((ext) => name.toLowerCase().endsWith(ext)))
      .sort()
      .map((name) => join(path, name));
    if (files.length === 0)
      throw new UsageError(
        `${path}: the directory has no ${extensions.map((e) => `*${e}`).join(' or ')} files`,
      );
    out.push(...files);
  }
  if (out.filter((p) => p === '-').length > 1) throw new UsageError('-f - (stdin) can be given only once');
  return out;
}

/** One JSON document per line, several lines: what a file meant for --ndjson looks like. */
function looksLikeNdjson(source: string, text: string): boolean {
  if (NDJSON_EXTENSIONS.some((ext) => source.toLowerCase().endsWith(ext))) return true;
  const lines = text.split('\n', 3).filter((line) => line.trim() !== '');
  return (
    lines.length >= 2 &&
    lines.every((line) => line.trimStart().startsWith('{') && line.trimEnd().endsWith('}'))
  );
}

/** How input files are read: their encoding (else decided per file) and the country of national phone numbers. */
export interface ReadOptions {
  encoding?: string;
  defaultCountry?: string;
}

function parse(text: string, source: string, options: ReadOptions, lineOffset = 0, ndjson = true): ReadInput {
  try {
    // As it will be validated, keyed and sent: NFC, trimmed, e-mail domains in lower case, phones in E.164.
    return {
      source,
      value: normalizeEnvelope(
        parseJsonText(text, source, lineOffset),
        options.defaultCountry ? { defaultCountry: options.defaultCountry } : {},
      ),
    };
  } catch (error) {
    if (!(error instanceof InputParseError)) throw error;
    if (!ndjson && looksLikeNdjson(source, text)) {
      return {
        source,
        error: new InputParseError(
          error.source,
          error.line,
          error.column,
          error.detail,
          'this looks like NDJSON (one envelope per line): add --ndjson',
        ),
      };
    }
    return { source, error };
  }
}

async function* readNdjson(
  path: string,
  name: string,
  decision: EncodingDecision,
  options: ReadOptions,
): AsyncGenerator<ReadInput> {
  let n = 0;
  try {
    // Each line bounded as it is read: one envelope is at most what the service takes in a request.
    for await (const line of boundedLines(decodedText(path, decision), MAX_BODY_BYTES)) {
      n++;
      if (line.trim() === '') continue;
      const parsed = parse(line, name, options, n - 1);
      yield { ...parsed, source: `${name}:${n}` };
    }
  } catch (error) {
    if (!(error instanceof LineTooLongError)) throw error;
    throw new UsageError(
      `${name}:${error.line}: the line is longer than ${sizeText(error.maxBytes)}, the most one envelope may be (the service takes no larger request); nothing was sent`,
      {
        hint: 'one envelope per line: look for a huge field or a line break missing between envelopes',
      },
    );
  }
}

/**
 * One JSON envelope is at most what the service takes in one request: a file past it
 * is refused by its size, stdin or a pipe as soon as more has arrived.
 */
export const ENVELOPE_BOUND = {
  bytes: MAX_BODY_BYTES,
  why: 'the most one envelope may be (the service takes no larger request); nothing was sent',
};

/** Copies stdin to a private temporary file, hashing it on the way (its identity); with a bound, refused once past it. */
export async function spoolStdin(
  io: Io,
  signal: AbortSignal,
  what: string,
  bound?: InputBound,
): Promise<{ path: string; dir: string; hash: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'sign-cli-stdin-'));
  const path = join(dir, 'stdin');
  const out = createWriteStream(path, { mode: 0o600 });
  const hash = createHash('sha256');
  let size = 0;
  try {
    const hint = `reading ${what} from stdin; Ctrl-D to end, Ctrl-C to cancel`;
    for await (const chunk of readStdinChunks({ signal, hint, stdin: io.stdin, stderr: io.stderr })) {
      size += chunk.length;
      if (bound && size > bound.bytes) throw tooLarge(bound);
      hash.update(chunk);
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
    }
    out.end();
    await finished(out);
  } catch (error) {
    // Closed before its directory goes: a file still being opened would fail with ENOENT later, unheard.
    out.destroy();
    await finished(out).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return { path, dir, hash: hash.digest('hex') };
}

/**
 * A file that can be read only once (a named pipe, `<(…)`), copied to a private
 * temporary file: its encoding is decided over the whole of it before it is
 * read as envelopes, and a create reads it twice (validation, then sending).
 */
export async function spoolOnce(
  path: string,
  bound?: InputBound,
): Promise<{ path: string; dir: string; hash?: undefined }> {
  const dir = mkdtempSync(join(tmpdir(), 'sign-cli-pipe-'));
  const copy = join(dir, 'input');
  let size = 0;
  try {
    await pipeline(
      createReadStream(path),
      async function* (chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          size += chunk.length;
          // A device that never ends (/dev/zero) or a pipe past the bound: stopped here, not copied whole.
          if (bound && size > bound.bytes) throw tooLarge(bound);
          yield chunk;
        }
      },
      createWriteStream(copy, { mode: 0o600 }),
    );
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${path}: cannot read: ${(error as Error).message}`);
  }
  return { path: copy, dir };
}

/** The envelope inputs named (`-` for stdin); `signal` is asked for only when stdin is read (start-up). */
export async function openInputs(
  paths: string[],
  ndjson: boolean,
  signal: () => AbortSignal,
  io: Io,
  options: ReadOptions = {},
): Promise<InputSet> {
  const files = expandPaths(paths, ndjson);
  // Each file's encoding is decided once (input/encoding.ts), however often the inputs are read.
  const decisions = new Map<string, EncodingDecision>();
  const decide = async (file: string) => {
    let decision = decisions.get(file);
    if (!decision) {
      decision = await decideEncoding(physical(file), file === '-' ? 'stdin' : file, options.encoding);
      decisions.set(file, decision);
    }
    return decision;
  };
  // NDJSON is bounded line by line (readNdjson); a JSON envelope whole.
  const bound = (file: string): InputBound | undefined =>
    ndjson ? undefined : { ...ENVELOPE_BOUND, what: file === '-' ? 'stdin' : file };
  const stdin = files.includes('-')
    ? await spoolStdin(io, signal(), ndjson ? 'envelope NDJSON (one per line)' : 'envelope JSON', bound('-'))
    : undefined;
  const spooled = new Map<string, { path: string; dir: string }>();
  for (const file of files) {
    if (file !== '-' && readableOnce(file)) spooled.set(file, await spoolOnce(file, bound(file)));
  }
  // The paths as given, resolved: a file added to a directory, or `./x` for `x`, is still the same command.
  // Worked out when first asked for (only a create that sends needs it): validating loads no hashing.
  let identity: string | undefined;
  const physical = (file: string) => (file === '-' ? stdin!.path : (spooled.get(file)?.path ?? file));
  return {
    get identity() {
      identity ??= createHash('sha256')
        .update(ndjson ? 'ndjson\n' : 'json\n')
        .update(paths.map((p) => (p === '-' ? `stdin:${stdin!.hash}` : resolve(p))).join('\n'))
        .digest('hex');
      return identity;
    },
    async *read() {
      for (const file of files) {
        const name = file === '-' ? 'stdin' : file;
        try {
          if (ndjson) {
            const decision = await decide(file);
            yield* readNdjson(physical(file), file, decision, options);
            continue;
          }
          // A JSON file is small: read whole, without streams (start-up).
          const text = await readTextFile(physical(file), name, options.encoding, bound(file));
          yield parse(text, file, options, 0, false);
        } catch (error) {
          if (error instanceof UsageError) throw error;
          throw new UsageError(`${file}: cannot read: ${(error as Error).message}`);
        }
      }
    },
    close: () => {
      if (stdin) rmSync(stdin.dir, { recursive: true, force: true });
      for (const { dir } of spooled.values()) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Whether `path` can be read only once: a pipe (`<(…)` is /dev/fd/N, a named pipe) or a device,
 * copied first (spoolOnce). A file, a directory or something missing (which reading reports) is not.
 */
export function readableOnce(path: string): boolean {
  try {
    const stats = statSync(path);
    return !stats.isFile() && !stats.isDirectory();
  } catch {
    return false;
  }
}
