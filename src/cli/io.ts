/** Reading what the user hands over: stdin, and files named by a flag. */
import { readFileSync } from 'node:fs';
import { UsageError } from '../core/errors.js';

export async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The bytes of a file given to `flag`; a missing or unreadable file is a usage error naming both. */
export function readFlagFile(flag: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new UsageError(`${flag} ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
}
