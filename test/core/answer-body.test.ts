/**
 * An answer the core stops reading (its file cannot be opened, it declares more than the bound) is
 * destroyed without ending the process: undici's body, destroyed before it was read to its end,
 * emits an `error` ("Request aborted"); once the whole answer has arrived undici itself no longer
 * listens for it, and with nobody listening it is an uncaught exception (the download to a path that
 * cannot be opened died of it). Real parts: an HTTP server on loopback, undici's own body, whole
 * before it is given up, a real path that cannot be opened.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerTooLargeError, readBounded, writeBounded } from '../../src/core/client/answer-body.js';
import { StorageError } from '../../src/core/errors.js';
import { tempDir } from '../helpers/paths.js';

/** A small PDF, and one that declares (and is) more than the bound the test gives. */
const ANSWERS: Record<string, Buffer> = {
  '/pdf': Buffer.from('%PDF-1.7\n%%EOF\n'),
  '/large': Buffer.alloc(4096, '%'),
};
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const answer = ANSWERS[req.url!]!;
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(answer.length) });
    res.end(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/**
 * Runs `give` on a whole answer's body and returns what it threw, and any `error` the body emitted
 * with nobody listening (collected from the process instead of ending it), once the body has closed
 * or the error escaped (an escaping error stops the close from being emitted).
 */
async function abandoned(path: string, give: (body: Readable) => Promise<unknown>) {
  const escaped: unknown[] = [];
  let settled: () => void = () => {};
  const over = new Promise<void>((resolve) => (settled = resolve));
  const collect = (error: unknown) => {
    escaped.push(error);
    settled();
  };
  process.on('uncaughtException', collect);
  try {
    const { body } = await request(`${url}${path}`);
    // The whole answer has arrived (it is small: all of it waits in the body's buffer), as a signed
    // copy often has by the time its file is opened.
    while (body.readableLength < ANSWERS[path]!.length) await new Promise((resolve) => setImmediate(resolve));
    body.once('close', () => settled());
    const thrown = await give(body).then(
      () => undefined,
      (error: unknown) => error,
    );
    if (body.closed) settled();
    await over;
    return { thrown, escaped };
  } finally {
    process.off('uncaughtException', collect);
  }
}

describe('an answer given up', () => {
  it('a file that cannot be opened: a StorageError naming it, and the process lives', async () => {
    const missing = join(tempDir(), 'no-such-dir', 'signed.pdf.part');
    const { thrown, escaped } = await abandoned('/pdf', (body) => writeBounded(body, undefined, missing));
    expect(thrown).toBeInstanceOf(StorageError);
    expect((thrown as Error).message).toBe(
      `could not write ${missing}: a directory on its path does not exist (ENOENT)`,
    );
    expect(escaped).toEqual([]);
  });

  it('an answer that declares more than the bound, to a file or to memory: refused, and the process lives', async () => {
    const file = join(tempDir(), 'signed.pdf.part');
    for (const give of [
      (body: Readable) => writeBounded(body, '4096', file, 1024),
      (body: Readable) => readBounded(body, '4096', 1024),
    ]) {
      const { thrown, escaped } = await abandoned('/large', give);
      expect(thrown).toBeInstanceOf(AnswerTooLargeError);
      expect(escaped).toEqual([]);
    }
  });
});
