/**
 * What the inspector keeps of a delivery, and how it is asked for: the shapes both stores
 * (memory-store.ts, sqlite-store.ts) hold and answer with, and the one definition of what each
 * filter matches, so the two stores cannot drift apart.
 */

/** What became of a delivery at one app: a forward (`--forward-to`), a replay, or an edited replay (re-signed). */
export type AttemptKind = 'forward' | 'replay' | 'edited';

export interface Attempt {
  kind: AttemptKind;
  /** When the app's answer came (the clock's milliseconds). */
  at: number;
  url: string;
  /** The app's status, or null when it could not be reached (then `error` says why). */
  status: number | null;
  durationMs: number | null;
  /** The start of the app's answer (ANSWER_SAMPLE_BYTES). */
  answer: string | null;
  error: string | null;
}

/** A delivery without its headers and body: a line of the list. */
export interface DeliverySummary {
  /** Given by the recorder, one after another: the newest has the highest. */
  id: number;
  receivedAt: number;
  method: string;
  path: string;
  verified: boolean;
  /** The status the sender was answered; null while the forward targets are still being asked. */
  answered: number | null;
  /** Why it was refused (null when verified and read). */
  reason: string | null;
  /** The verifier's failure code (`signature_mismatch`…), `not_json`, or null. */
  code: string | null;
  /** The event's id (the one duplicates are told by); for a refused delivery, the id it claimed. */
  eventId: string | null;
  /** The event type; for a refused delivery, the type its body claims (unverified). */
  type: string | null;
  envelopeId: string | null;
  /** 1 for the first delivery of the event, 2 for the first redelivery… */
  delivery: number;
  /** Verified but outside --events: answered, neither shown nor forwarded. */
  filtered: boolean;
  /** The secret that verified it, masked. */
  secret: string | null;
  /** The signed timestamp (Unix seconds), when the scheme has one. */
  signedAt: number | null;
  /** Forwards first, then replays, each in the order they came. */
  attempts: Attempt[];
}

export interface DeliveryRecord extends DeliverySummary {
  httpVersion: string;
  /** Names and values as they came, in order (node's rawHeaders). */
  rawHeaders: string[];
  body: Buffer;
}

export const STATUS_FILTERS = ['verified', 'refused', 'duplicate', 'forward-failed'] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];

export interface DeliveryQuery {
  type?: string;
  status?: StatusFilter;
  /** Found in the type, the ids, the path, the reason or the body (ASCII letters in any case). */
  text?: string;
  /** Only deliveries older than this id (the next page). */
  before?: number;
  limit: number;
}

/** An attempt that did not reach the app, or that the app did not take (not 2xx). */
export const attemptFailed = (attempt: Pick<Attempt, 'status'>): boolean =>
  attempt.status === null || attempt.status < 200 || attempt.status >= 300;

/** Lower case for ASCII letters only: what SQLite's LIKE folds, so both stores match alike. */
export const foldAscii = (text: string): string => text.replace(/[A-Z]+/g, (run) => run.toLowerCase());

/**
 * The listeners of a store's onChange: told the newest id once per turn of the event loop,
 * however many deliveries and attempts came in it (a page's stream asks for no more).
 */
export class ChangeListeners {
  private readonly listeners = new Set<(newestId: number) => void>();
  private told = false;
  private newest = 0;

  add(listener: (newestId: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Something came, `newest` the highest id now: the listeners hear the highest at the next turn. */
  changed(newest: number): void {
    this.newest = newest;
    if (this.told || this.listeners.size === 0) return;
    this.told = true;
    setImmediate(() => {
      this.told = false;
      for (const listener of this.listeners) listener(this.newest);
    });
  }

  clear(): void {
    this.listeners.clear();
  }
}

/** Where a delivery is kept: in memory, or in SQLite (one writer: the listener that opened it). */
export interface DeliveryStore {
  /** The file deliveries are kept in, or undefined when they are kept in memory only. */
  readonly file: string | undefined;
  /** How many are kept: the newest; older ones are dropped in order. */
  readonly keep: number;
  /** The highest id kept or being written (0 for none): the recorder numbers on from it. */
  readonly lastId: number;
  /** Keeps a delivery (written behind: readable by get() at once, by list() once flushed() resolves). */
  add(record: DeliveryRecord): void;
  /** Adds what apps answered a delivery; `answered`, when given, is what its sender was answered. */
  addAttempts(id: number, attempts: readonly Attempt[], answered?: number): void;
  list(query: DeliveryQuery): DeliverySummary[];
  get(id: number): DeliveryRecord | undefined;
  count(): number;
  /** The event types among the deliveries kept, sorted. */
  types(): string[];
  /**
   * Called with the newest id when deliveries or attempts came, at most once a turn of the event
   * loop: list() has them once flushed() resolves.
   */
  onChange(listener: (newestId: number) => void): () => void;
  /** Called when keeping failed (a full disk): deliveries are still verified and answered. */
  onError(listener: (error: Error) => void): void;
  /** Resolves once everything handed over so far is kept. */
  flushed(): Promise<void>;
  close(): Promise<void>;
}
