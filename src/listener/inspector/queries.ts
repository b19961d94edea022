/** What a request asks of the store: a list's filters from a URL's query, and a delivery's forward targets. */
import type { ForwardTarget } from '../routes.js';
import { STATUS_FILTERS, type DeliveryQuery, type DeliverySummary, type StatusFilter } from './records.js';

/** The most a list asks for at once. */
export const LIST_LIMIT_MAX = 1_000;

/** `?type=&status=&q=&before=&limit=` as a query; a string says which parameter is wrong and how. */
export function listQuery(params: URLSearchParams, defaultLimit: number): DeliveryQuery | string {
  const query: DeliveryQuery = { limit: defaultLimit };
  const type = params.get('type');
  if (type) query.type = type;
  const status = params.get('status');
  if (status) {
    if (!(STATUS_FILTERS as readonly string[]).includes(status))
      return `status must be one of ${STATUS_FILTERS.join(', ')}, got ${JSON.stringify(status.slice(0, 40))}`;
    query.status = status as StatusFilter;
  }
  const text = params.get('q');
  if (text) query.text = text.slice(0, 200);
  for (const name of ['before', 'limit'] as const) {
    const value = params.get(name);
    if (value === null || value === '') continue;
    const number = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
    if (!(number >= 1) || (name === 'limit' && number > LIST_LIMIT_MAX))
      return `${name} must be a whole number from 1${name === 'limit' ? ` to ${LIST_LIMIT_MAX}` : ''}, got ${JSON.stringify(value.slice(0, 40))}`;
    query[name] = number;
  }
  return query;
}

/** The forward targets that take a delivery's type (all of them for a plain URL), as the listener forwards. */
export function targetsFor(
  delivery: Pick<DeliverySummary, 'type'>,
  targets: readonly ForwardTarget[],
): string[] {
  return targets
    .filter(
      (target) => target.pattern === undefined || (delivery.type !== null && target.matches(delivery.type)),
    )
    .map((target) => target.url);
}
