/**
 * Reading envelopes from files, directories and stdin. Every source is read
 * and parsed before anything is sent, and every parse error is reported.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { InputParseError, UsageError } from '../core/errors.js';
import { parseJsonText } from '../core/json-source.js';

export interface EnvelopeInput {
  /** How the input is named in output: a path, `-` for stdin. */
  source: string;
  value: unknown;
}

export interface ReadResult {
  inputs: EnvelopeInput[];
  errors: InputParseError[];
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Expands directories to their `*.json` files (sorted, so runs are repeatable). */
export function expandPaths(paths: string[]): string[] {
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
      throw new UsageError(`${path}: ${code === 'ENOENT' ? 'no such file or directory' : (error as Error).message}`, {
        hint: 'check the path given to -f/--file',
      });
    }
    if (!isDirectory) {
      out.push(path);
      continue;
    }
    const files = readdirSync(path)
      .filter((name) => name.toLowerCase().endsWith('.json'))
      .sort()
      .map((name) => join(path, name));
    if (files.length === 0) throw new UsageError(`${path}: the directory has no *.json files`);
    out.push(...files);
  }
  if (out.filter((p) => p === '-').length > 1) throw new UsageError('-f - (stdin) can be given only once');
  return out;
}

export async function readEnvelopeInputs(paths: string[]): Promise<ReadResult> {
  const result: ReadResult = { inputs: [], errors: [] };
  for (const source of expandPaths(paths)) {
    let text: string;
    try {
      text = source === '-' ? await readStdin() : readFileSync(source, 'utf8');
    } catch (error) {
      throw new UsageError(`${source}: cannot read: ${(error as Error).message}`);
    }
    try {
      result.inputs.push({ source, value: parseJsonText(text, source) });
    } catch (error) {
      if (error instanceof InputParseError) result.errors.push(error);
      else throw error;
    }
  }
  return result;
}
