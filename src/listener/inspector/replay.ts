/**
 * Replaying a delivery the listener received: as it came (its bytes and headers, so the same
 * signature: an app that checks timestamps refuses it once it is older than its tolerance), or
 * edited and signed again with the listener's secret, in its scheme, with a fresh timestamp, so
 * the app takes it. To the forward targets that take its type, or to a URL given, which must be
 * this machine or a private network unless --allow-remote (each connection's address checked as
 * it is made: core/receiver-test/local-connector.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { resolveReceiverHost } from '../../core/receiver-test/address.js';
import { localOnlyAgent } from '../../core/receiver-test/local-connector.js';
import { DeliverySigner } from '../../core/receiver-test/signer.js';
import { ED25519_PUBLIC_PREFIX, type WebhookVerifier } from '../../core/webhooks/webhooks.js';
import { maskKey } from '../../core/keys.js';
import { FORWARD_TIMEOUT_MS, HOP_BY_HOP, postDelivery, reported } from '../forwarding.js';
import type { ForwardTarget } from '../routes.js';
import type { Attempt, DeliveryRecord } from './records.js';
import { targetsFor } from './queries.js';
import { attemptOf } from './recorder.js';

/** What the listener replays with: its targets, headers and secrets (the inspector's part of its options). */
export interface ReplayContext {
  verifier: WebhookVerifier;
  /** The listener's secrets, in the order the verifier numbers them. */
  secrets: readonly string[];
  forwardTo: readonly ForwardTarget[];
  forwardHeaders: Readonly<Record<string, string>>;
  /** The dispatcher forwards go through (--forward-insecure's certificates). */
  forwardDispatcher: Dispatcher;
  /** Replay to any address, not only this machine and private networks. */
  allowRemote: boolean;
  maxBodyBytes: number;
  now: () => number;
}

/** What a replay asks for: an edited body and headers (then signed again), and where to. */
export interface ReplayRequest {
  body?: string;
  /** Headers to set (a value) or leave out (null); the signature's own are set by the signing. */
  headers?: Record<string, string | null>;
  to?: string;
}

export interface ReplayResult {
  edited: boolean;
  /** How it was signed again: the scheme, the secret (masked), the id and timestamp it carries. */
  signed: { scheme: string; secret: string; id: string | null; timestamp: number | null } | null;
  attempts: Attempt[];
}

/** A replay that cannot be made as asked: a 400 (or 409) with the reason, nothing sent. */
export class ReplayRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Headers the signing sets, in any scheme: an edit may not set them. */
const SIGNATURE_HEADERS = [
  'webhook-signature',
  'webhook-timestamp',
  'svix-signature',
  'svix-timestamp',
  'stripe-signature',
];

/** The delivery's headers as received, one value each, hop-by-hop ones left out. */
function receivedHeaders(record: DeliveryRecord): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < record.rawHeaders.length; i += 2) {
    const name = record.rawHeaders[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name)) continue;
    headers[name] =
      name in headers ? `${headers[name]}, ${record.rawHeaders[i + 1]!}` : record.rawHeaders[i + 1]!;
  }
  return headers;
}

/** The secret that signs again: the one that verified the delivery if it can sign, else the first that can. */
function signingSecret(record: DeliveryRecord, context: ReplayContext): string {
  const canSign = (secret: string) => !secret.startsWith(ED25519_PUBLIC_PREFIX);
  const matched = context.secrets.find(
    (secret) => record.secret !== null && maskKey(secret) === record.secret,
  );
  const secret = matched && canSign(matched) ? matched : context.secrets.find(canSign);
  if (secret === undefined)
    throw new ReplayRefused(
      409,
      'the listener has only public keys (whpk_), which verify but cannot sign: give it the whsk_ signing key to sign edited deliveries',
    );
  return secret;
}

/** The edited headers: the received ones, the edit's over them, every name and value checked. */
function editedHeaders(
  base: Record<string, string>,
  edits: Record<string, string | null>,
  signatureHeader: string,
): Record<string, string> {
  const headers = { ...base };
  for (const [rawName, value] of Object.entries(edits)) {
    const name = rawName.trim().toLowerCase();
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name))
      throw new ReplayRefused(400, `headers: ${JSON.stringify(rawName.slice(0, 40))} is not a header name`);
    if (HOP_BY_HOP.has(name))
      throw new ReplayRefused(400, `headers: ${name} describes one hop; it is set for each replay`);
    if (SIGNATURE_HEADERS.includes(name) || name === signatureHeader)
      throw new ReplayRefused(400, `headers: ${name} is set by the signing, with a fresh timestamp`);
    if (value === null || value === '') delete headers[name];
    else if (typeof value !== 'string' || /[\r\n\0]/.test(value))
      throw new ReplayRefused(400, `headers: ${name} must be one line of text (or null to leave it out)`);
    else headers[name] = value;
  }
  return headers;
}

/** Where a replay goes, and through what: the forward targets that take its type, or the URL given. */
async function destinations(
  record: DeliveryRecord,
  to: string | undefined,
  context: ReplayContext,
): Promise<{ urls: string[]; dispatcher: Dispatcher; own: boolean }> {
  if (to === undefined) {
    const urls = targetsFor(record, context.forwardTo);
    if (urls.length === 0)
      throw new ReplayRefused(
        400,
        `nothing to replay to: no --forward-to target takes ${record.type ?? 'a delivery without a type'}; give a URL in "to"`,
      );
    return { urls, dispatcher: context.forwardDispatcher, own: false };
  }
  let url: URL;
  try {
    url = new URL(to);
  } catch {
    throw new ReplayRefused(
      400,
      `to: ${JSON.stringify(to.slice(0, 80))} is not a URL; give http://host:port/path`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ReplayRefused(400, `to: ${url.protocol} is not HTTP; give an http:// or https:// URL`);
  if (!context.allowRemote) {
    const where = await resolveReceiverHost(url).catch((error: Error) => {
      throw new ReplayRefused(400, `to: ${url.hostname} cannot be resolved (${error.message})`);
    });
    if (!where.local)
      throw new ReplayRefused(
        400,
        `to: ${url.hostname} is not this machine or a private network; start the listener with --allow-remote to replay there`,
      );
  }
  const dispatcher = context.allowRemote
    ? context.forwardDispatcher
    : localOnlyAgent({
        connectTimeoutMs: 10_000,
        headersTimeoutMs: FORWARD_TIMEOUT_MS,
        bodyTimeoutMs: FORWARD_TIMEOUT_MS,
      });
  return { urls: [url.href], dispatcher, own: !context.allowRemote };
}

export async function replay(
  record: DeliveryRecord,
  request: ReplayRequest,
  context: ReplayContext,
): Promise<ReplayResult> {
  const edited = request.body !== undefined || request.headers !== undefined;
  const { verifier } = context;
  let body = record.body;
  let headers = { ...receivedHeaders(record), ...context.forwardHeaders };
  let signed: ReplayResult['signed'] = null;
  if (edited) {
    if (request.body !== undefined) body = Buffer.from(request.body, 'utf8');
    if (body.length > context.maxBodyBytes)
      throw new ReplayRefused(
        413,
        `body: ${body.length} bytes is over the listener's ${context.maxBodyBytes}-byte limit`,
      );
    const secret = signingSecret(record, context);
    headers = editedHeaders(headers, request.headers ?? {}, verifier.signatureHeader);
    const signer = new DeliverySigner({
      scheme: verifier.scheme,
      secret,
      signatureHeader: verifier.signatureHeader,
      algorithm: verifier.algorithm,
    });
    // Svix's names when the delivery came with them; the standard ones otherwise.
    const svix = headers['webhook-id'] === undefined && headers['svix-id'] !== undefined;
    const given = request.headers?.['webhook-id'] ?? request.headers?.['svix-id'];
    // An edited body is another message: a new id, so the app does not drop it as one it has already handled.
    const id =
      typeof given === 'string' && given !== ''
        ? given
        : !body.equals(record.body)
          ? `msg_${randomUUID().replace(/-/g, '')}`
          : (headers['webhook-id'] ?? headers['svix-id'] ?? `msg_${randomUUID().replace(/-/g, '')}`);
    const timestamp = Math.floor(context.now() / 1000);
    for (const name of ['webhook-id', 'svix-id', ...SIGNATURE_HEADERS, verifier.signatureHeader])
      delete headers[name];
    for (const [name, value] of Object.entries(signer.headers(id, timestamp, body)))
      headers[svix ? name.replace(/^webhook-/, 'svix-') : name] = value;
    signed = {
      scheme: verifier.scheme,
      secret: maskKey(secret),
      id: verifier.scheme === 'standard' ? id : null,
      timestamp: verifier.scheme === 'hmac' ? null : timestamp,
    };
  }
  const { urls, dispatcher, own } = await destinations(record, request.to, context);
  try {
    const outcomes = await Promise.all(
      urls.map((url) => postDelivery(url, headers, body, dispatcher, context.now)),
    );
    const at = context.now();
    return {
      edited,
      signed,
      attempts: reported(outcomes).map((outcome) => attemptOf(edited ? 'edited' : 'replay', outcome, at)),
    };
  } finally {
    if (own) await dispatcher.close();
  }
}
