/**
 * `GET /api/v1/envelopes` in the sandbox: filters, newest first, and an opaque
 * cursor (docs/assumptions.md; the published interface shows no listing:
 * docs/service.md, Endpoints). The store keeps envelopes in creation order, so
 * newest first is that order reversed, and a cursor names the last envelope of
 * a page: envelopes created while a client pages through never shift or repeat
 * what it sees.
 */
import { ENVELOPE_STATUSES } from '../../core/envelope/states.js';
import type { EnvelopeRecord } from './records.js';

export const LIST_DEFAULT_LIMIT = 20;
export const LIST_MAX_LIMIT = 100;

export interface ListQuery {
  statuses: string[];
  contractId: string | undefined;
  /** Epoch ms: only envelopes created at or after it. */
  createdAfter: number | undefined;
  limit: number;
  /** The id of the last envelope of the previous page. */
  after: string | undefined;
}

export interface ListPage {
  object: 'list';
  data: EnvelopeRecord[];
  has_more: boolean;
  next_cursor: string | null;
}

export const encodeCursor = (id: string): string => Buffer.from(`after:${id}`).toString('base64url');

function decodeCursor(cursor: string): string | undefined {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  return text.startsWith('after:') && text.length > 6 ? text.slice(6) : undefined;
}

/** What every sandbox listing takes: states (repeatable or comma-separated), a page size and a cursor. */
export interface Paging<S extends string> {
  states: S[];
  limit: number;
  /** The id of the last item of the previous page. */
  after: string | undefined;
}

/**
 * The `status`, `limit` and `cursor` of a listing's query string, checked
 * against the states it knows (named as `what` in the message for a 400).
 */
export function parsePaging<S extends string>(
  params: URLSearchParams,
  known: readonly S[],
  what: string,
): Paging<S> | string {
  const states = params
    .getAll('status')
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = states.find((s) => !(known as readonly string[]).includes(s));
  if (unknown !== undefined)
    return `status ${JSON.stringify(unknown.slice(0, 40))} is not ${what}; use ${known.join(', ')}`;
  const limitText = params.get('limit');
  const limit = limitText === null ? LIST_DEFAULT_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > LIST_MAX_LIMIT)
    return `limit must be a whole number from 1 to ${LIST_MAX_LIMIT}`;
  const cursor = params.get('cursor');
  const after = cursor === null || cursor === '' ? undefined : decodeCursor(cursor);
  if (cursor && after === undefined) return 'cursor is not one this service issued; start again without it';
  return { states: states as S[], limit, after };
}

/** The query string of a listing, checked; a message for a 400 when it is not usable. */
export function parseListQuery(params: URLSearchParams): ListQuery | string {
  const paging = parsePaging(params, ENVELOPE_STATUSES, 'a state');
  if (typeof paging === 'string') return paging;
  const createdText = params.get('created_after');
  const createdAfter = createdText === null ? undefined : Date.parse(createdText);
  if (createdAfter !== undefined && Number.isNaN(createdAfter))
    return 'created_after must be an ISO 8601 date or date-time';
  return {
    statuses: paging.states,
    contractId: params.get('contract_id') ?? undefined,
    createdAfter,
    limit: paging.limit,
    after: paging.after,
  };
}

/** One page of `envelopes` (in creation order), newest first; undefined when the cursor names no envelope. */
export function listPage(envelopes: readonly EnvelopeRecord[], query: ListQuery): ListPage | undefined {
  let index = envelopes.length - 1;
  if (query.after !== undefined) {
    const at = envelopes.findLastIndex((e) => e.id === query.after);
    if (at < 0) return undefined;
    index = at - 1;
  }
  const data: EnvelopeRecord[] = [];
  for (; index >= 0; index--) {
    const envelope = envelopes[index]!;
    if (query.statuses.length > 0 && !query.statuses.includes(envelope.status)) continue;
    if (query.contractId !== undefined && envelope.contract_id !== query.contractId) continue;
    if (query.createdAfter !== undefined && Date.parse(envelope.created_at) < query.createdAfter) continue;
    if (data.length === query.limit) break;
    data.push(envelope);
  }
  const more = index >= 0;
  return { object: 'list', data, has_more: more, next_cursor: more ? encodeCursor(data.at(-1)!.id) : null };
}
