/**
 * What `webhooks listen` prints of each event: one line that fits the terminal, the JSON line of
 * `--json`, and what each app answered a forward.
 */
import type { ChalkInstance } from 'chalk';
import type { Clock } from '../../core/clock.js';
import { isEventType } from '../../core/webhooks/events.js';
import type { ForwardOutcome, ListenedEvent } from '../../listener/server.js';
import { cellText } from './cell.js';
import { fitLine, free, optional, whole, type LinePart } from './line-fit.js';
import type { Output } from './output.js';
import { formatInstant } from './time.js';

/** When the delivery arrived, in the one time format (UTC, marked): the same text on every machine. */
export function stamp(clock: Pick<Clock, 'now'>): string {
  return formatInstant(new Date(clock.now()));
}

/**
 * `{"id","type","timestamp","duplicate","payload"}` on one line. The payload is
 * the received JSON text itself when it is already one line (it was parsed, so
 * it is valid JSON), which spares serialising it again for every event.
 */
export function jsonEventLine(event: ListenedEvent): string {
  const head = `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"timestamp":${JSON.stringify(event.timestamp)},"duplicate":${event.duplicate},"payload":`;
  const payload = /[\r\n]/.test(event.rawBody) ? JSON.stringify(event.payload) : event.rawBody.trim();
  return `${head}${payload}}`;
}

/**
 * One line per event, always, that fits the terminal (line-fit.ts): every
 * value comes from a delivery, so each is escaped and its whitespace runs
 * collapsed (a signer named `Omar\n06:43:00  envelope.completed …`, or `Omar`
 * and 42 spaces before a fake event, shows as one name, not a second event),
 * and the name, an unknown type, a URL and an error are cut with … to the
 * width, so nothing a delivery holds can wrap to the start of a line. The
 * time, the ids and a known type are shown whole; the state is left out
 * before the name is cut short when it only repeats the type.
 */
export function eventLine(output: Pick<Output, 'out' | 'columns'>, event: ListenedEvent, at: string): string {
  const { out } = output;
  const payload = event.payload as { data?: unknown } | null;
  const data = (
    payload && typeof payload.data === 'object' && payload.data !== null ? payload.data : {}
  ) as Record<string, unknown>;
  const signer = (typeof data.signer === 'object' && data.signer !== null ? data.signer : {}) as Record<
    string,
    unknown
  >;
  const type = cellText(event.type);
  const status = cellText(signer.status ?? data.envelope_status);
  const colour = /completed|signed/.test(type)
    ? out.green
    : /declined|failed|expired/.test(type)
      ? out.red
      : out.cyan;
  // A type of the service's own list is a word to read by; anything else is the sender's free text.
  const typePart = isEventType(event.type)
    ? whole(event.type, { pad: 18, paint: colour })
    : free(event.type, { pad: 18, paint: colour, rank: 1 });
  const forwards: LinePart[] = (event.forwards ?? []).flatMap((f) => [
    '  ',
    ...forwardParts(out, f, event.forwards!.length > 1),
  ]);
  if (event.duplicate) {
    // Our words and the id; the type, the sender's, is left out whole rather than cut when the line is short of room.
    return fitLine(
      [
        whole(at, { paint: out.dim }),
        '  ',
        { text: `duplicate #${event.delivery}`, paint: out.yellow },
        ' of ',
        whole(event.id),
        optional(` (${type})`, 1),
        optional(', not a new event', 0),
        ...forwards,
      ],
      output.columns,
    );
  }
  return fitLine(
    [
      whole(at, { paint: out.dim }),
      '  ',
      typePart,
      ' ',
      whole(data.envelope_id, { pad: 24 }),
      ' ',
      free(signer.name, { pad: 18 }),
      ' ',
      // `signer.signed … signed`: the state says again what the type said; it goes before the name is cut short.
      status !== '' && type.endsWith(`.${status}`)
        ? optional(status)
        : free(signer.status ?? data.envelope_status, { rank: 2 }),
      ...forwards,
    ],
    output.columns,
  );
}

/** What the app answered a forwarded delivery (`→ 200 12 ms`, with its URL when there are several), or why forwarding failed. */
export function forwardParts(colour: ChalkInstance, forward: ForwardOutcome, withUrl: boolean): LinePart[] {
  const where: LinePart[] = withUrl ? [' ', free(forward.url, { rank: 1 })] : [];
  // A failed forward is never silent: red, and marked ✗ for a terminal without colour.
  if (!('status' in forward))
    return [
      { text: '→', paint: colour.dim },
      ...where,
      ' ',
      { text: 'forward failed: ', paint: colour.red },
      free(forward.error, { rank: 1, paint: colour.red }),
      { text: ' ✗', paint: colour.red },
    ];
  const ok = forward.status >= 200 && forward.status < 300;
  return [
    { text: '→', paint: colour.dim },
    ...where,
    ' ',
    ok
      ? { text: String(forward.status), paint: colour.green }
      : { text: `${forward.status} ✗`, paint: colour.red },
    ' ',
    { text: `${forward.durationMs} ms`, paint: colour.dim },
  ];
}

/** --verbose: what each app answered, one line each. */
export function forwardBodies(event: ListenedEvent, width: number | undefined): string[] {
  return (event.forwards ?? []).flatMap((f) =>
    'body' in f
      ? [
          fitLine(
            [
              '  ← ',
              free(f.url, { rank: 1 }),
              ': ',
              f.body.trim() === '' ? '(empty body)' : free(f.body.trim().slice(0, 200)),
            ],
            width,
          ),
        ]
      : [],
  );
}
