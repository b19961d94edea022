/**
 * Reading the service's answers with a bound, so a broken or hostile server
 * cannot fill memory: a JSON answer over MAX_JSON_ANSWER_BYTES is refused, and
 * a signed copy streams to its file (never held whole) up to MAX_FILE_BYTES.
 * The first and last bytes of a file are kept for the checks that follow
 * (a PDF's `%PDF-` header and `%%EOF` trailer), with its SHA-256.
 */
import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, writeFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { storageError } from '../fs-errors.js';

/** No envelope, listing page, audit trail or key list comes near this: an answer over it is not one. */
export const MAX_JSON_ANSWER_BYTES = 16 * 1024 * 1024;
/** A signed copy larger than this is refused (the sandbox's are tens of kilobytes). */
export const MAX_FILE_BYTES = 512 * 1024 * 1024;
const EDGE = 1024;

export class AnswerTooLargeError extends Error {
  constructor(
    readonly limit: number,
    readonly declared: number | undefined,
  ) {
    super(
      `the answer is larger than ${limit / (1024 * 1024)} MiB${declared !== undefined ? ` (it declares ${declared} bytes)` : ''}`,
    );
  }
}

export interface FileAnswer {
  path: string;
  bytes: number;
  sha256: string;
  /** The first and the last EDGE bytes. */
  head: Buffer;
  tail: Buffer;
}

/**
 * Stops reading an answer. undici's body, destroyed before its end, emits an `error` (`Request
 * aborted`); with no listener that error would end the process, so it is listened for here: the
 * caller throws the error that says why it stopped (a file that cannot be opened, a bound passed).
 */
function abandon(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}

function checkDeclared(contentLength: string | string[] | undefined, limit: number, body: Readable): void {
  const declared = Number(Array.isArray(contentLength) ? contentLength[0] : contentLength);
  if (Number.isFinite(declared) && declared > limit) {
    abandon(body);
    throw new AnswerTooLargeError(limit, declared);
  }
}

/** The whole body in memory, refused past `limit` bytes (declared or read). */
export async function readBounded(
  body: Readable,
  contentLength: string | string[] | undefined,
  limit = MAX_JSON_ANSWER_BYTES,
): Promise<Buffer> {
  checkDeclared(contentLength, limit, body);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      abandon(body);
      throw new AnswerTooLargeError(limit, undefined);
    }
    chunks.push(chunk as Buffer);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/**
 * The body streamed into `path` (created or emptied, 0644 as any download),
 * refused past `limit`; the file is synced before this returns, so a
 * completed answer is on disk.
 */
export async function writeBounded(
  body: Readable,
  contentLength: string | string[] | undefined,
  path: string,
  limit = MAX_FILE_BYTES,
): Promise<FileAnswer> {
  checkDeclared(contentLength, limit, body);
  let fd: number;
  try {
    fd = openSync(path, 'w', 0o644);
  } catch (error) {
    abandon(body);
    throw storageError(error, path, 'write');
  }
  const hash = createHash('sha256');
  let bytes = 0;
  let head = Buffer.alloc(0);
  let tail = Buffer.alloc(0);
  try {
    for await (const piece of body) {
      const chunk = piece as Buffer;
      bytes += chunk.length;
      if (bytes > limit) {
        abandon(body);
        throw new AnswerTooLargeError(limit, undefined);
      }
      hash.update(chunk);
      if (head.length < EDGE) head = Buffer.concat([head, chunk.subarray(0, EDGE - head.length)]);
      tail = Buffer.concat([tail, chunk]).subarray(-EDGE);
      try {
        // writeFileSync on a descriptor writes all of it (writeSync may write part and say nothing).
        writeFileSync(fd, chunk);
      } catch (error) {
        abandon(body);
        throw storageError(error, path, 'write');
      }
    }
    try {
      fsyncSync(fd);
    } catch (error) {
      throw storageError(error, path, 'write');
    }
  } finally {
    closeSync(fd);
  }
  return { path, bytes, sha256: hash.digest('hex'), head, tail };
}
