/**
 * Connections only to this machine or a private network (address.ts), the
 * address checked as each connection is made, by the connection itself: the
 * lookup net.connect resolves the name with keeps only local addresses, and a
 * literal address is checked before connecting. What was checked is what is
 * connected to: there is no lookup before the one that connects, so a name
 * that resolves elsewhere on its next lookup (DNS rebinding) is refused, never
 * sent to. Used by `webhooks test` (unless --allow-remote) and by
 * `webhooks trigger --local-only` (what the MCP server's trigger_webhook runs).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { isLocalAddress } from './address.js';

/** The code of a connection refused because its address is not local. */
export const NOT_LOCAL = 'ENOTLOCAL';

/** A connection refused before it was made: `host` resolved (or is) only to addresses that are not local. */
export class NotLocalError extends Error {
  readonly code = NOT_LOCAL;
  constructor(
    readonly host: string,
    readonly addresses: readonly string[],
  ) {
    super(
      addresses.length === 1 && addresses[0] === host
        ? `${host} is not this machine or a private network`
        : `${host} resolves to ${addresses.slice(0, 2).join(', ') || 'nothing'}, not to this machine or a private network`,
    );
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * dns.lookup as net.connect calls it, keeping only local addresses: a name
 * that resolves to none fails with NotLocalError, and net never gets an
 * address to connect to.
 */
export function localLookup(hostname: string, options: { all?: boolean }, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, entries) => {
    if (error) return callback(error, []);
    const local = entries.filter((entry) => isLocalAddress(entry.address));
    if (local.length === 0)
      return callback(
        new NotLocalError(
          hostname,
          entries.map((entry) => entry.address),
        ),
        [],
      );
    if (options.all) return callback(null, local);
    callback(null, local[0]!.address, local[0]!.family);
  });
}

/**
 * undici's connector with the check in it. net.connect skips the lookup for a
 * literal address, so a literal is checked here, before any packet.
 */
export function localOnlyConnector(timeoutMs: number): buildConnector.connector {
  const connect = buildConnector({ timeout: timeoutMs, lookup: localLookup });
  return (options, callback) => {
    const host = options.hostname;
    if (isIP(host) !== 0 && !isLocalAddress(host)) {
      callback(new NotLocalError(host, [host]), null);
      return;
    }
    connect(options, callback);
  };
}

export interface LocalAgentOptions {
  /** How long a connection may take to be made. */
  connectTimeoutMs: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
}

/** An undici dispatcher that connects only to local addresses, each connection checked as it is made. */
export function localOnlyAgent(options: LocalAgentOptions): Agent {
  return new Agent({
    connect: localOnlyConnector(options.connectTimeoutMs),
    ...(options.headersTimeoutMs !== undefined ? { headersTimeout: options.headersTimeoutMs } : {}),
    ...(options.bodyTimeoutMs !== undefined ? { bodyTimeout: options.bodyTimeoutMs } : {}),
  });
}
