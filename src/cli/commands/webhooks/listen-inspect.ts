/**
 * `webhooks listen --inspect`: its flags, where its deliveries are kept, and its lines. The
 * inspector's code (src/listener/inspector) is loaded only when --inspect is given, so a listener
 * without it starts as light as before.
 */
import { mkdirSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { Command } from 'commander';
import { SignError, UsageError } from '../../../core/errors.js';
import type { WebhookVerifier } from '../../../core/webhooks/webhooks.js';
import type { DeliveryObserver } from '../../../listener/types.js';
import type { ForwardTarget } from '../../../listener/routes.js';
import type { CommandContext } from '../../context.js';
import { parseIntegerOption } from '../../flags/values.js';

export interface InspectFlags {
  /** `true` for --inspect alone. */
  inspect?: string | true;
  inspectDb?: string;
  inspectKeep?: string;
  allowRemote?: boolean;
}

const DEFAULT_PORT = 4040;
const DEFAULT_KEEP = 10_000;

export function addInspectOptions(command: Command): Command {
  return command
    .option(
      '--inspect [host:port]',
      `also serve a page and a JSON API of every delivery, to read, replay, or edit and replay them; on 127.0.0.1:${DEFAULT_PORT} when given alone, port 0 picks a free one`,
    )
    .option(
      '--inspect-db <file>',
      "keep the inspector's deliveries in this SQLite file (default: inspector/deliveries.sqlite in the state directory)",
    )
    .option(
      '--inspect-keep <n>',
      `how many deliveries the inspector keeps, the newest (default ${DEFAULT_KEEP})`,
    )
    .option(
      '--allow-remote',
      'let the inspector replay to any address, not only this machine and private networks',
    );
}

export interface InspectAddress {
  host: string;
  port: number;
  /** The host when it is a name, not an IP address (Host headers naming it are taken). */
  name?: string;
}

/** `--inspect [host:port]`: a port, a host, `host:port`, or `[v6]:port`; loopback and 4040 when left out. */
export function inspectAddress(value: string | true): InspectAddress {
  if (value === true) return { host: '127.0.0.1', port: DEFAULT_PORT };
  const text = value.trim();
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  const [host, portText] = /^\d+$/.test(text)
    ? ['127.0.0.1', text]
    : bracketed
      ? [bracketed[1]!, bracketed[2]]
      : isIP(text) === 6
        ? [text, undefined]
        : (text.split(/:(?=\d*$)/) as [string, string | undefined]);
  if (!host || /[\s/?#@[\]]/.test(host) || (host.includes(':') && isIP(host) !== 6))
    throw new UsageError(
      `--inspect ${JSON.stringify(value.slice(0, 60))} is not [host:]port, such as 127.0.0.1:${DEFAULT_PORT}, 4041 or 0`,
    );
  const port =
    portText === undefined ? DEFAULT_PORT : parseIntegerOption('--inspect port', portText, 0, 65535);
  return { host, port, ...(isIP(host) === 0 ? { name: host } : {}) };
}

const isLoopback = (host: string): boolean =>
  host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));

/** What the inspector is given of the listener. */
export interface ListenerParts {
  verifier: WebhookVerifier;
  secrets: string[];
  targets: ForwardTarget[];
  forwardHeaders: Record<string, string>;
  forwardInsecure: boolean;
  maxBodyBytes: number;
}

export interface Inspection {
  url: string;
  /** Where deliveries are kept, in words: `kept in <file>, the newest 10000`. */
  keptIn: string;
  observer: DeliveryObserver;
  /** The listener's URL, once it listens (the pages show it). */
  listening(url: string): void;
  close(): Promise<void>;
}

/**
 * Opens the store and starts the inspector, or does nothing without --inspect. Every flag is
 * checked first; a file that cannot be used, or a port in use, is one line and nothing listens.
 */
export async function openInspection(
  ctx: CommandContext,
  flags: InspectFlags,
  parts: ListenerParts,
): Promise<Inspection | undefined> {
  if (flags.inspect === undefined) {
    const stray =
      flags.inspectDb !== undefined
        ? '--inspect-db'
        : flags.inspectKeep !== undefined
          ? '--inspect-keep'
          : flags.allowRemote
            ? '--allow-remote'
            : undefined;
    if (stray) throw new UsageError(`${stray} needs --inspect`);
    return undefined;
  }
  const address = inspectAddress(flags.inspect);
  const keep =
    flags.inspectKeep === undefined
      ? DEFAULT_KEEP
      : parseIntegerOption('--inspect-keep', flags.inspectKeep, 1, 1_000_000);
  const [inspector, { LockedError }] = await Promise.all([
    import('../../../listener/inspector/inspector.js'),
    import('../../../core/journal/pid-lock.js'),
  ]);
  let file: string | undefined;
  if (inspector.sqliteAvailable()) {
    file = flags.inspectDb ?? (await defaultDatabase(ctx));
  } else if (flags.inspectDb !== undefined) {
    throw new UsageError(`--inspect-db needs node:sqlite, which Node ${process.version} does not have`, {
      hint: 'run it on Node 22.13 or later (24 is the one to use), or leave out --inspect-db to keep deliveries in memory while the listener runs',
    });
  } else {
    ctx.output.warn(
      `Node ${process.version} has no node:sqlite: the inspector keeps deliveries in memory, gone when the listener stops (Node 22.13 or later keeps them in a file)`,
    );
  }
  let store;
  try {
    store = inspector.openDeliveryStore(file, keep);
  } catch (error) {
    if (error instanceof LockedError)
      throw new SignError(error.message, {
        hint: 'stop that listener, or give this one another --inspect-db',
      });
    if (error instanceof inspector.StoreFileError)
      throw flags.inspectDb !== undefined
        ? new UsageError(`--inspect-db ${error.message}`, {
            hint: 'give a file of its own, new or written by the inspector',
          })
        : new SignError(error.message, { hint: `move it aside, or give --inspect-db another file` });
    throw error;
  }
  const facts = {
    url: '',
    scheme: parts.verifier.scheme,
    forwardTo: parts.targets.map((t) => (t.pattern ? `${t.pattern}=${t.url}` : t.url)),
    keptIn: file ?? 'memory only',
    keep,
  };
  let running;
  try {
    running = await inspector.startWebhookInspector({
      ...address,
      store,
      verifier: parts.verifier,
      secrets: parts.secrets,
      forwardTo: parts.targets,
      forwardHeaders: parts.forwardHeaders,
      forwardInsecure: parts.forwardInsecure,
      allowRemote: flags.allowRemote === true,
      maxBodyBytes: parts.maxBodyBytes,
      protect: [...parts.secrets, ...(ctx.env.SIGN_API_KEY ? [ctx.env.SIGN_API_KEY.trim()] : [])],
      clock: ctx.io.clock,
      listener: () => facts,
    });
  } catch (error) {
    await store.close();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new SignError(`port ${address.port} on ${address.host} is already in use (--inspect)`, {
        hint: 'pass --inspect 0 to pick a free port, or another --inspect port',
      });
    throw error;
  }
  let storeFailures = 0;
  store.onError((error) => {
    // Said once: a full disk must not flood the screen or stop the listener.
    if (storeFailures++ === 0)
      ctx.output.warn(
        `the inspector could not keep deliveries in ${file ?? 'memory'}: ${error.message}; deliveries are still verified and answered`,
      );
  });
  if (!isLoopback(address.host))
    ctx.output.warn(
      `the inspector on ${running.url} can be reached from other machines: whoever reaches it reads every delivery and can replay them`,
    );
  return {
    url: running.url,
    keptIn: `kept in ${file ?? 'memory only'}, the newest ${keep.toLocaleString('en-US')}`,
    observer: running.observer,
    listening: (url) => {
      facts.url = url;
    },
    close: () => running.close(),
  };
}

/** `inspector/deliveries.sqlite` in the state directory, which must be the user's own (made 0700). */
async function defaultDatabase(ctx: CommandContext): Promise<string> {
  const [{ stateDir }, { checkStateSubdirectory }] = await Promise.all([
    import('../envelopes/journal-paths.js'),
    import('../../../core/journal/ownership.js'),
  ]);
  const root = stateDir(ctx.env);
  checkStateSubdirectory(root, 'inspector');
  mkdirSync(join(root, 'inspector'), { recursive: true, mode: 0o700 });
  return join(root, 'inspector', 'deliveries.sqlite');
}
