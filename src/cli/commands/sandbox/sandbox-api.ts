/**
 * The sandbox's own endpoints that the CLI reads (`sandbox outbox`,
 * `envelopes open`): GET a path under /_sandbox/ with the configured key,
 * pacing and retries, and read the answer. A 404 that is not the sandbox's
 * "no such envelope" is a service without these endpoints: the service itself
 * (whose signers get their messages and links from it), or an older sandbox.
 */
import { ApiError, AuthError, UnexpectedResponseError, parseErrorBody } from '../../../core/errors.js';
import { isRecord } from '../../../core/envelope/records.js';
import type { SignClient } from '../../../core/client/client.js';

export interface SandboxGet {
  path: string;
  query?: Record<string, string | undefined>;
  /** How messages name the call: `GET /_sandbox/outbox`. */
  label: string;
  /** The error's words when the service has no such endpoint: what exists only in the sandbox. */
  notTheSandbox: string;
  signal: AbortSignal;
}

/** The JSON object of a 2xx answer; an error fit for the exit codes otherwise. */
export async function getSandboxJson(client: SignClient, get: SandboxGet): Promise<Record<string, unknown>> {
  const query = Object.fromEntries(
    Object.entries(get.query ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const answer = await client.request({ method: 'GET', path: get.path }, { query, signal: get.signal });
  // A server may echo the key it was sent: nothing it says is shown with it.
  const text = client.scrub(answer.data.toString('utf8'));
  const contentType = answer.headers['content-type'];
  const info = parseErrorBody(text, contentType);
  const said = [info.code, info.message].filter(Boolean).join(': ');
  const head = `${get.label}: HTTP ${answer.status}${said ? ` ${said}` : ''}`;
  if (answer.status === 401 || answer.status === 403)
    throw new AuthError(
      head,
      answer.status,
      answer.status === 401 ? { reason: 'key_refused' } : { hint: 'use a key with the needed scope' },
    );
  if (answer.status === 404 && info.code === 'envelope_not_found')
    throw new ApiError(head, 404, info.code, info.message, {
      hint: 'check the id: an envelope of another account or environment is not found',
      reason: 'not_found',
    });
  if (answer.status === 404)
    throw new ApiError(`${get.label}: HTTP 404: ${get.notTheSandbox}`, 404, info.code, info.message, {
      hint: 'start one with `sign-cli sandbox` and use its credentials.env, or check --base-url and SIGN_BASE_URL',
    });
  if (answer.status < 200 || answer.status >= 300)
    throw new ApiError(head, answer.status, info.code, info.message, {
      ...(answer.status >= 500 ? { reason: 'server_failed' as const } : {}),
    });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  // A site that answers every path with its page (HTTP 200, HTML) is not the sandbox either.
  if (!isRecord(body))
    throw new UnexpectedResponseError(
      `${get.label}: HTTP ${answer.status} (${contentType ?? 'no content type'}) is not a JSON object: ${get.notTheSandbox}`,
      answer.status,
      contentType,
      { hint: 'check --base-url and SIGN_BASE_URL: `sign-cli sandbox` prints the URL of a sandbox' },
    );
  return body;
}
