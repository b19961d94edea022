/**
 * `webhooks listen --inspect`: the store, the recorder the listener reports to, and the server of
 * the pages and the API, put together. The CLI opens the store (openDeliveryStore: SQLite where
 * Node has it) and hands the listener the observer; nothing here prints.
 */
import type { Clock } from '../../core/clock.js';
import type { WebhookVerifier } from '../../core/webhooks/webhooks.js';
import { forwardAgent } from '../forwarding.js';
import type { ForwardTarget } from '../routes.js';
import type { DeliveryObserver } from '../types.js';
import { MemoryStore } from './memory-store.js';
import type { ListenerFacts } from './pages/list-page.js';
import type { DeliveryStore } from './records.js';
import { DeliveryRecorder } from './recorder.js';
import { startInspector } from './server.js';
import { loadSqlite } from './sqlite.js';
import { SqliteStore } from './sqlite-store.js';

export { StoreFileError } from './sqlite-store.js';
export type { ListenerFacts } from './pages/list-page.js';
export type { DeliveryStore } from './records.js';

export const DEFAULT_INSPECT_HOST = '127.0.0.1';
export const DEFAULT_INSPECT_PORT = 4040;
export const DEFAULT_INSPECT_KEEP = 10_000;

/** Whether this Node can keep deliveries in SQLite (node:sqlite: Node 22.13+, 24). */
export const sqliteAvailable = (): boolean => loadSqlite() !== undefined;

/** Deliveries kept in `file` (SQLite), or in memory when `file` is undefined. */
export function openDeliveryStore(file: string | undefined, keep: number): DeliveryStore {
  if (file === undefined) return new MemoryStore(keep);
  const sqlite = loadSqlite();
  if (!sqlite) throw new Error(`node:sqlite is not available in Node ${process.version}`);
  return SqliteStore.open(sqlite, file, keep);
}

export interface InspectorSetup {
  host: string;
  port: number;
  /** A name given for the address (not an IP address), accepted in Host. */
  name?: string;
  store: DeliveryStore;
  verifier: WebhookVerifier;
  /** The listener's secrets, in the order its verifier numbers them. */
  secrets: readonly string[];
  forwardTo: readonly ForwardTarget[];
  forwardHeaders: Readonly<Record<string, string>>;
  forwardInsecure: boolean;
  allowRemote: boolean;
  maxBodyBytes: number;
  /** Every secret the run knows, masked in everything the inspector sends. */
  protect: readonly string[];
  clock: Pick<Clock, 'now'>;
  /** What the pages say of the listener (its URL is known once it listens). */
  listener: () => ListenerFacts;
}

export interface RunningWebhookInspector {
  url: string;
  /** For the listener's `observer` option. */
  observer: DeliveryObserver;
  /** Stops the server, then keeps what is still being written and closes the store. */
  close(): Promise<void>;
}

export async function startWebhookInspector(setup: InspectorSetup): Promise<RunningWebhookInspector> {
  const now = () => setup.clock.now();
  const dispatcher = forwardAgent(setup.forwardInsecure);
  const server = await startInspector({
    host: setup.host,
    port: setup.port,
    ...(setup.name ? { name: setup.name } : {}),
    store: setup.store,
    listener: setup.listener,
    secrets: setup.protect,
    replay: {
      verifier: setup.verifier,
      secrets: setup.secrets,
      forwardTo: setup.forwardTo,
      forwardHeaders: setup.forwardHeaders,
      forwardDispatcher: dispatcher,
      allowRemote: setup.allowRemote,
      maxBodyBytes: setup.maxBodyBytes,
      now,
    },
  });
  return {
    url: server.url,
    observer: new DeliveryRecorder(setup.store, setup.secrets, now),
    close: async () => {
      await server.close();
      await dispatcher.destroy();
      await setup.store.close();
    },
  };
}
