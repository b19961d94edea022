/**
 * Asking a timestamp authority (RFC 3161 over HTTP, section 3.4): a
 * TimeStampReq for a SHA-256 imprint, with a nonce and certReq (the token
 * carries the TSA's certificate, which a document timestamp needs), POSTed
 * as application/timestamp-query; the TimeStampResp's status read, and the
 * token checked to be an answer to this request (its imprint and nonce)
 * before anything is written with it.
 */
import { randomBytes } from 'node:crypto';
import * as der from '../pades/der-write.js';
import {
  DerError,
  TAG,
  children,
  encoded,
  is,
  octets,
  readDer,
  sequence,
  smallInteger,
  value,
} from '../pades/der.js';
import { parseSignedData } from '../pades/cms.js';
import { InterruptedError } from '../errors.js';
import type { PlainRequest } from '../client/plain-fetch.js';
import type { Stamp } from './document-timestamp.js';

const SHA256 = '2.16.840.1.101.3.4.2.1';
/** A token is a few kilobytes; a chain of certificates can make it tens. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** A refused or unreadable answer: the TSA said no, did not answer, or said something else than asked. */
export class TrustServiceError extends Error {
  override readonly name = 'TrustServiceError';
}

const FAILURES: Record<number, string> = {
  0: 'badAlg: the TSA does not take this hash algorithm',
  2: 'badRequest: the TSA could not read the request',
  5: 'badDataFormat',
  14: 'timeNotAvailable: the TSA has no time source now',
  15: 'unacceptedPolicy',
  16: 'unacceptedExtension',
  17: 'addInfoNotAvailable',
  25: 'systemFailure: the TSA failed',
};

/** A DER TimeStampReq: version 1, the SHA-256 imprint, the nonce, certReq. */
export function timestampRequest(sha256: Uint8Array, nonce: Uint8Array): Uint8Array {
  return der.sequence(
    der.integer(1),
    der.sequence(der.algorithm(SHA256), der.octetString(sha256)),
    der.unsignedInteger(nonce),
    der.boolean(true),
  );
}

/** PKIStatusInfo's words: the status, its free text and the failure bits it names. */
function statusText(info: ReturnType<typeof sequence>): string {
  const status = smallInteger(info[0]);
  const words = info
    .slice(1)
    .filter((n) => is(n, TAG.sequence))
    .flatMap((n) => children(n).map((s) => Buffer.from(value(s)).toString('utf8')));
  const failBits = info.find((n) => is(n, TAG.bitString));
  const failures: string[] = [];
  if (failBits) {
    const b = value(failBits).subarray(1);
    for (let bit = 0; bit < b.length * 8; bit++)
      if (b[bit >> 3]! & (0x80 >> (bit & 7))) failures.push(FAILURES[bit] ?? `failure ${bit}`);
  }
  const named = status === 2 ? 'rejection' : status === 3 ? 'waiting' : `status ${status}`;
  return [named, ...failures, ...words.map((w) => JSON.stringify(w.slice(0, 200)))].join(', ');
}

/** The TSTInfo's imprint and nonce (the nonce's bytes as written, or undefined). */
function imprintAndNonce(token: Uint8Array): { imprint: Uint8Array; nonce: Uint8Array | undefined } {
  const content = parseSignedData(token).content;
  if (!content) throw new DerError('the token holds no TSTInfo');
  const fields = sequence(readDer(content), 'the TSTInfo');
  const imprint = octets(sequence(fields[2], 'the message imprint')[1]);
  // After genTime: accuracy (a SEQUENCE), ordering (a BOOLEAN), then the nonce, the only INTEGER.
  const nonce = fields.slice(5).find((n) => is(n, TAG.integer));
  return { imprint, nonce: nonce ? value(nonce) : undefined };
}

/** The token of a TimeStampResp answering `sha256` with `nonce`, or TrustServiceError saying why not. */
export function tokenOf(answer: Uint8Array, sha256: Uint8Array, nonce: Uint8Array, url: string): Uint8Array {
  let token: Uint8Array;
  try {
    const [status, tokenNode] = sequence(readDer(answer), 'the TimeStampResp');
    const info = sequence(status, 'the PKIStatusInfo');
    const granted = smallInteger(info[0]);
    if (granted !== 0 && granted !== 1)
      throw new TrustServiceError(`the TSA at ${url} refused the request: ${statusText(info)}`);
    if (!tokenNode) throw new TrustServiceError(`the TSA at ${url} granted no token`);
    token = encoded(tokenNode);
    const found = imprintAndNonce(token);
    if (!Buffer.from(found.imprint).equals(Buffer.from(sha256)))
      throw new TrustServiceError(`the TSA at ${url} stamped another hash than the one asked for`);
    const asked = der.unsignedInteger(nonce);
    if (!found.nonce || !Buffer.from(found.nonce).equals(Buffer.from(value(readDer(asked)))))
      throw new TrustServiceError(
        `the TSA at ${url} answered without this request's nonce: not an answer to it`,
      );
  } catch (error) {
    if (error instanceof DerError)
      throw new TrustServiceError(
        `the TSA at ${url} answered something that is not a TimeStampResp (${error.message})`,
      );
    throw error;
  }
  return token;
}

/**
 * A Stamp that asks the TSA at `url` (one request a stamp, never retried: a TSA asked twice makes
 * two tokens) through `fetch` (core/client/plain-fetch.ts: the CLI's proxies, deadline and bounds).
 */
export function tsaStamp(
  url: string,
  fetch: (request: PlainRequest) => Promise<Uint8Array>,
  signal?: AbortSignal,
): Stamp {
  return async (sha256) => {
    const nonce = randomBytes(8);
    let answer: Uint8Array;
    try {
      answer = await fetch({
        url,
        method: 'POST',
        body: timestampRequest(sha256, nonce),
        contentType: 'application/timestamp-query',
        accept: 'application/timestamp-reply',
        maxBytes: MAX_ANSWER_BYTES,
      });
    } catch (error) {
      if (signal?.aborted) throw new InterruptedError(`interrupted: ${url} did not answer`);
      throw new TrustServiceError(`the TSA at ${(error as Error).message}`, { cause: error });
    }
    return tokenOf(answer, sha256, nonce, url);
  };
}
