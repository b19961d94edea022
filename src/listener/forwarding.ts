/**
 * Posting a delivery to an app: the listener's forwards (`--forward-to`) and the inspector's
 * replays. One attempt, the body and the delivery's own headers (hop-by-hop ones left out), and
 * what the app answered, kept in part for showing.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { Agent, request, type Dispatcher } from 'undici';
import type { ForwardOutcome } from './types.js';

/** How long an app may take to answer one forward or replay. */
export const FORWARD_TIMEOUT_MS = 30_000;
/** How much of an app's answer is kept (--verbose, the inspector). */
export const ANSWER_SAMPLE_BYTES = 500;
/** Headers that describe one hop, not the delivery; never forwarded (nor set with --forward-header). */
export const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'host',
  'content-length',
  'upgrade',
  'proxy-connection',
  'te',
  'trailer',
]);

/** What one attempt gave: the outcome, and the whole answer for relaying it to the sender. */
export type PostOutcome = ForwardOutcome & { answer?: Buffer; contentType?: string };

/** The dispatcher forwards go through: the apps' own timeouts, and `--forward-insecure`'s certificates. */
export function forwardAgent(insecure: boolean): Agent {
  return new Agent({
    headersTimeout: FORWARD_TIMEOUT_MS,
    bodyTimeout: FORWARD_TIMEOUT_MS,
    ...(insecure ? { connect: { rejectUnauthorized: false } } : {}),
  });
}

/** A delivery's headers as they go on to an app: one value each, the hop-by-hop ones left out, `extra` over them. */
export function deliveryHeaders(
  received: IncomingHttpHeaders,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(received)) {
    if (value !== undefined && !HOP_BY_HOP.has(name))
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return Object.assign(headers, extra);
}

/** POSTs one delivery to `url`: the app's status, time and answer, or why it could not be reached. */
export async function postDelivery(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  dispatcher: Dispatcher,
  now: () => number,
): Promise<PostOutcome> {
  const started = now();
  try {
    const response = await request(url, { method: 'POST', headers, body, dispatcher });
    const answer = Buffer.from(await response.body.arrayBuffer());
    const contentType = response.headers['content-type'];
    return {
      url,
      status: response.statusCode,
      durationMs: now() - started,
      body: answer.subarray(0, ANSWER_SAMPLE_BYTES).toString('utf8'),
      answer,
      ...(typeof contentType === 'string' ? { contentType } : {}),
    };
  } catch (error) {
    return { url, error: `${(error as { code?: string }).code ?? 'error'}: ${(error as Error).message}` };
  }
}

/**
 * Answers the sender from what the apps answered, so its retries follow them: one target's
 * answer is relayed as is; with several, 200 when all took it, else the first failure's status
 * (502 when a target could not be reached). Returns the status sent.
 */
export function answerFromApps(res: ServerResponse, outcomes: readonly PostOutcome[]): number {
  const failed = outcomes.find((o) => !('status' in o) || o.status < 200 || o.status >= 300);
  const single = outcomes.length === 1 ? outcomes[0]! : undefined;
  if (single && 'status' in single) {
    res.writeHead(single.status, {
      ...(single.contentType ? { 'content-type': single.contentType } : {}),
      'content-length': single.answer!.length,
    });
    res.end(single.answer);
    return single.status;
  }
  let status = 200;
  let text: string;
  if (failed && 'status' in failed) {
    status = failed.status;
    text = JSON.stringify({ error: `forwarding to ${failed.url} answered ${failed.status}` });
  } else if (failed) {
    status = 502;
    text = JSON.stringify({
      error: `forwarding to ${failed.url} failed: ${'error' in failed ? failed.error : ''}`,
    });
  } else text = JSON.stringify({ received: true, forwarded: outcomes.length });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
  return status;
}

/** The outcomes as the listener reports them: without the whole answers. */
export const reported = (outcomes: readonly PostOutcome[]): ForwardOutcome[] =>
  outcomes.map(({ answer: _answer, contentType: _type, ...outcome }) => outcome);
