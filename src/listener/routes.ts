/**
 * Which events `webhooks listen` shows and where it forwards them: globs over
 * event types (`signer.*`, `envelope.completed`, `*`), as the Stripe CLI's
 * `--events` and `--forward-to` take them. Pure functions.
 */

/** A test of an event type against a glob: `*` matches any run of characters (dots included), nothing else is special. */
export function globMatcher(pattern: string): (type: string) => boolean {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  const regex = new RegExp(`^${source}$`);
  return (type) => regex.test(type);
}

/** `signer.*,envelope.completed` as one test; an empty list is an error naming the flag. */
export function eventFilter(list: string, flag = '--events'): (type: string) => boolean {
  const patterns = list
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (patterns.length === 0)
    throw new Error(`${flag} needs at least one event type or glob, such as signer.* or envelope.completed`);
  const bad = patterns.find((p) => !/^[\w.*-]+$/.test(p));
  if (bad !== undefined)
    throw new Error(
      `${flag}: ${JSON.stringify(bad.slice(0, 40))} is not an event type or glob (letters, digits, . _ - and *)`,
    );
  const matchers = patterns.map(globMatcher);
  return (type) => matchers.some((m) => m(type));
}

export interface ForwardTarget {
  url: string;
  /** The glob before `=`, or undefined for a plain URL (every event). */
  pattern: string | undefined;
  matches(type: string): boolean;
}

/** `[<glob>[,<glob>]=]<url>`: a plain URL takes every event. */
export function parseForwardTarget(value: string): ForwardTarget {
  const at = value.indexOf('=');
  // A URL's own query may hold "=": a route is an "=" before the URL starts.
  const routed =
    at > 0 && !/^https?:\/\//i.test(value)
      ? { pattern: value.slice(0, at), url: value.slice(at + 1) }
      : { pattern: undefined, url: value };
  if (!/^https?:\/\/[^/]/i.test(routed.url)) {
    throw new Error(
      `--forward-to must be [<glob>=]<http(s) URL>, such as 'signer.*=http://localhost:3000/signers', got ${JSON.stringify(value.slice(0, 80))}`,
    );
  }
  try {
    new URL(routed.url);
  } catch {
    throw new Error(`--forward-to ${JSON.stringify(routed.url.slice(0, 80))} is not a valid URL`);
  }
  const matches = routed.pattern === undefined ? () => true : eventFilter(routed.pattern, '--forward-to');
  return { ...routed, matches };
}

/** `name: value` for --forward-header; names a forward may not set (hop-by-hop, length) are refused. */
export function parseForwardHeader(line: string, reserved: ReadonlySet<string>): [string, string] {
  const at = line.indexOf(':');
  const name = at > 0 ? line.slice(0, at).trim().toLowerCase() : '';
  if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name))
    throw new Error(
      `--forward-header ${JSON.stringify(line.slice(0, 60))} is not a header; write it as 'name: value'`,
    );
  if (reserved.has(name))
    throw new Error(`--forward-header cannot set ${name}: the listener sets it for each forward`);
  const value = line.slice(at + 1).trim();
  if (/[\r\n\0]/.test(value)) throw new Error(`--forward-header ${name}: the value must be one line`);
  return [name, value];
}
