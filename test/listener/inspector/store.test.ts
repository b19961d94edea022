/**
 * The inspector's two stores, held to the same behaviour: in memory (every Node) and in SQLite
 * (where Node has node:sqlite: 22.13+, 24), real files in a temp dir. What each filter matches,
 * newest first, the newest `keep` kept and the oldest dropped in order; and for the file, kept
 * across a restart, one listener at a time, and files of another kind refused.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryStore } from '../../../src/listener/inspector/memory-store.js';
import type { DeliveryRecord, DeliveryStore } from '../../../src/listener/inspector/records.js';
import { loadSqlite } from '../../../src/listener/inspector/sqlite.js';
import { SCHEMA } from '../../../src/listener/inspector/sqlite-schema.js';
import { SqliteStore, StoreFileError } from '../../../src/listener/inspector/sqlite-store.js';

const sqlite = loadSqlite();
const dirs: string[] = [];
const stores: DeliveryStore[] = [];

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(join(os.tmpdir(), 'sign-cli-inspector-store-'));
  dirs.push(dir);
  return dir;
}

function record(id: number, overrides: Partial<DeliveryRecord> = {}): DeliveryRecord {
  return {
    id,
    receivedAt: 1_800_000_000_000 + id * 1000,
    method: 'POST',
    path: '/hooks',
    httpVersion: '1.1',
    rawHeaders: ['Host', '127.0.0.1:4020', 'webhook-id', `msg_${id}`],
    body: Buffer.from(
      JSON.stringify({ id: `evt_${id}`, type: 'signer.signed', data: { envelope_id: 'env_1' } }),
    ),
    verified: true,
    answered: 200,
    reason: null,
    code: null,
    eventId: `evt_${id}`,
    type: 'signer.signed',
    envelopeId: 'env_1',
    delivery: 1,
    filtered: false,
    secret: 'whsec_****abcd',
    signedAt: 1_800_000_000 + id,
    attempts: [],
    ...overrides,
  };
}

type Open = (keep: number, file?: string) => DeliveryStore;
const kinds: [string, Open | undefined][] = [
  ['memory', (keep) => new MemoryStore(keep)],
  [
    'SQLite',
    sqlite && ((keep, file = join(scratch(), 'deliveries.sqlite')) => SqliteStore.open(sqlite, file, keep)),
  ],
];

describe.each(kinds)('the %s store', (_kind, open) => {
  const start = (keep = 100, file?: string): DeliveryStore => {
    const store = open!(keep, file);
    stores.push(store);
    return store;
  };

  it.runIf(open)('lists newest first, and gives back the headers and the exact bytes', async () => {
    const store = start();
    const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0x0a, 0x7d]);
    store.add(record(1));
    store.add(
      record(2, { body: bytes, verified: false, reason: 'signature mismatch', code: 'signature_mismatch' }),
    );
    // Handed over: get() has it before it is kept.
    expect(store.get(2)?.body.equals(bytes)).toBe(true);
    await store.flushed();
    expect(store.list({ limit: 10 }).map((d) => d.id)).toEqual([2, 1]);
    const refused = store.get(2)!;
    expect(refused.body.equals(bytes)).toBe(true);
    expect(refused).toMatchObject({
      verified: false,
      reason: 'signature mismatch',
      code: 'signature_mismatch',
    });
    expect(store.get(1)!.rawHeaders).toEqual(['Host', '127.0.0.1:4020', 'webhook-id', 'msg_1']);
    expect(store.get(3)).toBeUndefined();
    expect(store.lastId).toBe(2);
    expect(store.count()).toBe(2);
  });

  it.runIf(open)('filters by type, status and text, and pages with before', async () => {
    const store = start();
    store.add(record(1, { type: 'envelope.completed' }));
    store.add(record(2, { delivery: 2 }));
    store.add(record(3, { verified: false, reason: 'timestamp is 3600 s old', type: null, eventId: null }));
    store.add(record(4, { body: Buffer.from('{"data":{"signer":{"name":"Layla 100%_done"}}}') }));
    store.add(record(5));
    store.addAttempts(5, [
      {
        kind: 'forward',
        at: 1,
        url: 'http://127.0.0.1:3000/',
        status: 500,
        durationMs: 3,
        answer: 'boom',
        error: null,
      },
    ]);
    store.add(record(6));
    store.addAttempts(6, [
      {
        kind: 'forward',
        at: 1,
        url: 'http://127.0.0.1:3000/',
        status: 204,
        durationMs: 3,
        answer: '',
        error: null,
      },
      {
        kind: 'replay',
        at: 2,
        url: 'http://127.0.0.1:3000/',
        status: null,
        durationMs: null,
        answer: null,
        error: 'ECONNREFUSED',
      },
    ]);
    await store.flushed();
    const ids = (query: Parameters<DeliveryStore['list']>[0]) => store.list(query).map((d) => d.id);
    expect(ids({ limit: 10, type: 'envelope.completed' })).toEqual([1]);
    expect(ids({ limit: 10, status: 'refused' })).toEqual([3]);
    expect(ids({ limit: 10, status: 'verified' })).toEqual([6, 5, 4, 2, 1]);
    expect(ids({ limit: 10, status: 'duplicate' })).toEqual([2]);
    // A failed replay is not a failed forward.
    expect(ids({ limit: 10, status: 'forward-failed' })).toEqual([5]);
    expect(ids({ limit: 10, text: 'LAYLA' })).toEqual([4]);
    expect(ids({ limit: 10, text: '3600 s' })).toEqual([3]);
    // % and _ are letters to find, not patterns.
    expect(ids({ limit: 10, text: '100%_' })).toEqual([4]);
    expect(ids({ limit: 10, text: '0%d' })).toEqual([]);
    expect(ids({ limit: 2 })).toEqual([6, 5]);
    expect(ids({ limit: 2, before: 5 })).toEqual([4, 3]);
    expect(store.types()).toEqual(['envelope.completed', 'signer.signed']);
    expect(store.list({ limit: 1 })[0]!.attempts.map((a) => [a.kind, a.status, a.error])).toEqual([
      ['forward', 204, null],
      ['replay', null, 'ECONNREFUSED'],
    ]);
  });

  it.runIf(open)("adds what the apps answered later, and the sender's answer from them", async () => {
    const store = start();
    store.add(record(1, { answered: null }));
    await store.flushed();
    expect(store.get(1)!.answered).toBeNull();
    store.addAttempts(
      1,
      [
        {
          kind: 'forward',
          at: 5,
          url: 'http://127.0.0.1:3000/',
          status: 502,
          durationMs: 7,
          answer: 'down',
          error: null,
        },
      ],
      502,
    );
    await store.flushed();
    expect(store.get(1)).toMatchObject({
      answered: 502,
      attempts: [{ status: 502, answer: 'down', durationMs: 7 }],
    });
  });

  it.runIf(open)('keeps the newest, dropping the oldest first, and says when some come', async () => {
    const store = start(3);
    const heard: number[] = [];
    store.onChange((newest) => heard.push(newest));
    for (let id = 1; id <= 7; id++) {
      store.add(record(id));
      store.addAttempts(id, [
        {
          kind: 'forward',
          at: id,
          url: 'http://127.0.0.1:1/',
          status: 200,
          durationMs: 1,
          answer: '',
          error: null,
        },
      ]);
    }
    await store.flushed();
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.list({ limit: 10 }).map((d) => d.id)).toEqual([7, 6, 5]);
    expect(store.count()).toBe(3);
    expect(store.get(4)).toBeUndefined();
    expect(heard.at(-1)).toBe(7);
  });
});

describe.runIf(sqlite)('the SQLite file', () => {
  const open = (file: string, keep = 100) => {
    const store = SqliteStore.open(sqlite!, file, keep);
    stores.push(store);
    return store;
  };
  const close = async (store: DeliveryStore) => {
    stores.splice(stores.indexOf(store), 1);
    await store.close();
  };

  it('keeps deliveries across a restart, numbering on, and drops what a smaller keep leaves out', async () => {
    const file = join(scratch(), 'deliveries.sqlite');
    const first = open(file);
    for (let id = 1; id <= 5; id++) first.add(record(id));
    first.addAttempts(5, [
      {
        kind: 'forward',
        at: 9,
        url: 'http://127.0.0.1:3000/',
        status: 200,
        durationMs: 4,
        answer: 'ok',
        error: null,
      },
    ]);
    await close(first);
    // The user's alone, as the -wal and -shm files SQLite makes beside it.
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = open(file);
    expect(second.lastId).toBe(5);
    expect(second.list({ limit: 10 }).map((d) => d.id)).toEqual([5, 4, 3, 2, 1]);
    expect(second.get(5)!.attempts).toEqual([
      {
        kind: 'forward',
        at: 9,
        url: 'http://127.0.0.1:3000/',
        status: 200,
        durationMs: 4,
        answer: 'ok',
        error: null,
      },
    ]);
    await close(second);
    const third = open(file, 2);
    expect(third.list({ limit: 10 }).map((d) => d.id)).toEqual([5, 4]);
  });

  it('keeps each field of a batch as it came: texts beyond ASCII, nulls, and many deliveries at once', async () => {
    const file = join(scratch(), 'deliveries.sqlite');
    const store = open(file, 1_000);
    // Texts of two-byte characters (and one of four bytes) beside one-byte ones: each is told
    // from the next by its length in characters, not in bytes.
    const unusual = record(1, {
      path: '/hooks/réception?x=✓',
      rawHeaders: ['Host', '127.0.0.1:4020', 'x-note', 'café', 'webhook-id', 'msg_1'],
      body: Buffer.from('{"name":"Layla Haddad 🖋"}'),
      verified: false,
      answered: null,
      reason: 'signature mismatch — forged?',
      code: 'signature_mismatch',
      eventId: null,
      type: 'signé.📝',
      envelopeId: null,
      secret: null,
      signedAt: null,
      delivery: 3,
      filtered: true,
    });
    store.add(unusual);
    // Read back from the batch it was encoded into, before it is written.
    expect(store.get(1)).toEqual({ ...unusual, attempts: [] });
    // More than one batch's worth, handed over while the first is being written.
    for (let id = 2; id <= 600; id++) store.add(record(id, { body: Buffer.from(`{"n":${id}}`) }));
    expect(store.get(1)).toEqual({ ...unusual, attempts: [] });
    await store.flushed();
    expect(store.count()).toBe(600);
    await close(store);
    const reopened = open(file, 1_000);
    expect(reopened.get(1)).toEqual({ ...unusual, attempts: [] });
    for (const id of [2, 299, 600]) {
      const kept = reopened.get(id)!;
      expect(kept).toEqual({ ...record(id, { body: Buffer.from(`{"n":${id}}`) }), attempts: [] });
    }
  });

  it('writes once deliveries pause, or every five seconds while they keep coming, the stream told at once', async () => {
    const store = open(join(scratch(), 'deliveries.sqlite'), 20);
    const heard: number[] = [];
    store.onChange((newest) => heard.push(newest));
    // Only the store's timers are the test's to move; the writer's answers come as they come.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      store.add(record(1));
      await new Promise((resolve) => setImmediate(resolve));
      expect(heard).toEqual([1]);
      vi.advanceTimersByTime(99);
      expect(store.batchesSent).toBe(0);
      // A tenth of a second without another: the batch goes.
      vi.advanceTimersByTime(1);
      expect(store.batchesSent).toBe(1);
      await store.flushed();
      expect(store.list({ limit: 5 }).map((d) => d.id)).toEqual([1]);
      // A delivery every 50 ms: nothing is written for five seconds, then the newest `keep` at once.
      let id = 2;
      for (let elapsed = 0; elapsed < 4_900; elapsed += 50) {
        store.add(record(id++));
        vi.advanceTimersByTime(50);
      }
      expect(store.batchesSent).toBe(1);
      await new Promise((resolve) => setImmediate(resolve));
      expect(heard.at(-1)).toBe(id - 1);
      store.add(record(id));
      vi.advanceTimersByTime(100);
      expect(store.batchesSent).toBe(2);
      await store.flushed();
      expect(store.list({ limit: 100 }).map((d) => d.id)).toEqual(
        Array.from({ length: 20 }, (_, i) => id - i),
      );
    } finally {
      vi.useRealTimers();
    }
  });

  it('holds at most twice `keep` deliveries for a writer that is behind, and keeps the newest', async () => {
    const store = open(join(scratch(), 'deliveries.sqlite'), 50);
    // All handed over before the writer can take a first batch (nothing here waits).
    for (let id = 1; id <= 520; id++) store.add(record(id));
    // The oldest are forgotten before they are written: they would be dropped on writing.
    expect(store.get(1)).toBeUndefined();
    expect(store.get(450)).toBeUndefined();
    expect(store.get(451)?.eventId).toBe('evt_451');
    store.addAttempts(520, [
      {
        kind: 'forward',
        at: 1,
        url: 'http://127.0.0.1:3000/',
        status: 202,
        durationMs: 3,
        answer: '',
        error: null,
      },
    ]);
    // An attempt handed over shows on get() before it is written, and once, after.
    expect(store.get(520)!.attempts.map((a) => a.status)).toEqual([202]);
    await store.flushed();
    expect(store.count()).toBe(50);
    expect(store.list({ limit: 100 }).map((d) => d.id)).toEqual(
      Array.from({ length: 50 }, (_, i) => 520 - i),
    );
    expect(store.get(520)!.attempts.map((a) => a.status)).toEqual([202]);
  });

  it.runIf(process.platform === 'linux')(
    'writes on a thread of the lowest priority, the listener’s own thread untouched',
    async () => {
      const niceOf = () =>
        readdirSync('/proc/self/task').map(
          // Field 19 of stat, counted after the command name in parentheses (which may hold spaces).
          (task) =>
            Number(readFileSync(`/proc/self/task/${task}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]),
        );
      const before = niceOf();
      const store = open(join(scratch(), 'deliveries.sqlite'));
      store.add(record(1));
      await store.flushed();
      const after = niceOf();
      expect(after.filter((nice) => nice === 19).length).toBe(
        before.filter((nice) => nice === 19).length + 1,
      );
      expect(readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')[16]).toBe(
        String(os.getPriority()),
      );
    },
  );

  it('makes new files with 64 KB pages and keeps an older file’s own', async () => {
    const made = join(scratch(), 'new.sqlite');
    const store = open(made);
    store.add(record(1));
    await close(store);
    const older = join(scratch(), 'older.sqlite');
    const db = new sqlite!.DatabaseSync(older);
    db.exec(`PRAGMA page_size = 4096; PRAGMA journal_mode = WAL; ${SCHEMA}`);
    db.close();
    const reopened = open(older);
    reopened.add(record(1));
    await close(reopened);
    const pageSize = (file: string) => {
      const reader = new sqlite!.DatabaseSync(file);
      try {
        return [
          reader.prepare('PRAGMA page_size').get()!.page_size,
          reader.prepare('SELECT count(*) AS n FROM deliveries').get()!.n,
        ];
      } finally {
        reader.close();
      }
    };
    expect(pageSize(made)).toEqual([65_536, 1]);
    // The texts, handed to SQLite as bytes, are kept as TEXT (what the filters compare, and other tools read).
    const reader = new sqlite!.DatabaseSync(made);
    expect(
      reader
        .prepare(
          'SELECT typeof(method) AS m, typeof(headers) AS h, typeof(type) AS t, typeof(reason) AS r FROM deliveries',
        )
        .get(),
    ).toEqual({ m: 'text', h: 'text', t: 'text', r: 'null' });
    reader.close();
    expect(pageSize(older)).toEqual([4096, 1]);
  });

  it('is written by one listener at a time', () => {
    const file = join(scratch(), 'deliveries.sqlite');
    open(file);
    expect(() => SqliteStore.open(sqlite!, file, 100)).toThrow(
      /in use by another webhook listener \(pid \d+\)/,
    );
  });

  it('refuses a file that is not SQLite, another program’s database, and a newer schema', () => {
    const dir = scratch();
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'not a database, but a text file long enough to have a header page\n'.repeat(20));
    expect(() => SqliteStore.open(sqlite!, text, 10)).toThrow(StoreFileError);
    expect(() => SqliteStore.open(sqlite!, text, 10)).toThrow(/is not a SQLite database/);

    const other = join(dir, 'other.sqlite');
    const db = new sqlite!.DatabaseSync(other);
    db.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY)');
    db.close();
    expect(() => SqliteStore.open(sqlite!, other, 10)).toThrow(/another program's SQLite database/);

    const newer = join(dir, 'newer.sqlite');
    const db2 = new sqlite!.DatabaseSync(newer);
    db2.exec('PRAGMA user_version = 99');
    db2.close();
    expect(() => SqliteStore.open(sqlite!, newer, 10)).toThrow(/written by a newer sign-cli \(schema 99\)/);
  });
});
