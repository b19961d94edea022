/**
 * The shared create journal against a real redis-server: runners sharing it
 * create each input once between them, a dead runner's claim passes to
 * another with the key it journaled, another runner's failure is reported and
 * not repeated, journals of other services, environments and accounts (and
 * other applications' keys) are left alone, entries expire, and a store that
 * is unreachable or lost is said so, never with its password.
 */
import { randomUUID } from 'node:crypto';
import { createClient } from '@redis/client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { contentHash, runBulk, SharedOutcomeError, type BulkOutcome } from '../../src/core/journal/bulk.js';
import { systemClock, type Clock } from '../../src/core/clock.js';
import { StorageError } from '../../src/core/errors.js';
import {
  JOURNAL_KEY_PREFIX,
  RedisJournal,
  journalKeys,
  journalNamespace,
  openRedisJournal,
  type RedisJournalOptions,
} from '../../src/core/journal/redis-journal.js';
import { fakeService, inputs } from '../helpers/bulk-service.js';
import { NO_REDIS, startRedis, type RedisProcess } from '../helpers/redis.js';

/** The journal id of the first input with this title (as runBulk names it). */
const idOf = (title: string) => `${contentHash({ title })}#1`;
const titles = (n: number) => Array.from({ length: n }, (_, i) => `T${i + 1}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(NO_REDIS)('the shared create journal (real redis-server)', () => {
  let redis: RedisProcess;
  let raw: ReturnType<typeof createClient>;
  /** Each test's own service, so tests never see each other's journals. */
  let service: string;
  const journals: RedisJournal[] = [];
  /** Servers a test starts for itself (to stop, or to require a password). */
  const servers: RedisProcess[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    raw = createClient({ url: redis.url });
    await raw.connect();
  });
  afterAll(async () => {
    await raw?.close();
    await redis?.stop();
  });
  beforeEach(() => {
    service = `https://svc-${randomUUID()}`;
  });
  afterEach(async () => {
    await Promise.all(journals.splice(0).map((journal) => journal.close()));
    await Promise.all(servers.splice(0).map((server) => server.stop('SIGKILL')));
  });

  /** One runner's journal: the test's service, environment `test`, account `fp-a` unless told otherwise. */
  async function runner(options: Partial<RedisJournalOptions> = {}): Promise<RedisJournal> {
    const journal = new RedisJournal({
      url: redis.url,
      service,
      environment: 'test',
      fingerprint: 'fp-a',
      ...options,
    });
    journals.push(journal);
    return journal.open();
  }

  it('runners sharing the journal create every input exactly once between them, and say which were created elsewhere', async () => {
    const svc = fakeService({ delayMs: 5 });
    const [a, b] = await Promise.all([runner(), runner()]);
    const outcomes: BulkOutcome[][] = [[], []];
    const summaries = await Promise.all(
      [a, b].map((journal, i) =>
        runBulk({
          inputs: inputs(30),
          create: svc.create,
          concurrency: 3,
          journal,
          onOutcome: (o) => outcomes[i]!.push(o),
        }),
      ),
    );
    // Once each: not even a replayed request.
    expect([...svc.created].sort()).toEqual(titles(30).sort());
    expect(svc.calls).toBe(30);
    const [sa, sb] = summaries as [(typeof summaries)[0], (typeof summaries)[0]];
    expect(sa.created).toBeGreaterThan(0);
    expect(sb.created).toBeGreaterThan(0);
    expect(sa.created + sb.created).toBe(30);
    expect(sa.sent + sb.sent).toBe(30);
    expect(sa.skipped + sb.skipped).toBe(30);
    expect(sa.failed + sb.failed).toBe(0);
    // Each runner reports every input: what the other created, as skipped elsewhere.
    for (const [mine, theirs] of [
      [outcomes[0]!, outcomes[1]!],
      [outcomes[1]!, outcomes[0]!],
    ] as const) {
      expect(mine).toHaveLength(30);
      const createdHere = new Set(mine.filter((o) => o.status === 'created').map((o) => o.ref));
      const there = theirs.filter((o) => createdHere.has(o.ref));
      expect(there).toHaveLength(createdHere.size);
      for (const outcome of there) expect(outcome).toMatchObject({ status: 'skipped', elsewhere: true });
    }
  });

  it("a dead runner's claim passes to another when its lease ends, which sends with the key it journaled", async () => {
    const svc = fakeService();
    const id = idOf('T1');
    const key = 'key-of-the-dead-runner';
    const dead = await runner({ leaseMs: 500 });
    expect((await dead.take(id)).busy).toBeUndefined();
    await dead.record({ id, ref: 'batch.ndjson:1', key, state: 'sending' });
    // Its request reached the service; then it died: no outcome, no release, no renewal.
    await svc.create({ title: 'T1' }, { idempotencyKey: key, source: 'dead', beforeAttempt: () => {} });
    await dead.close();
    const next = await runner();
    expect((await next.take(id)).busy).toBe(true);
    const outcomes: BulkOutcome[] = [];
    const summary = await runBulk({
      inputs: inputs(1),
      create: svc.create,
      concurrency: 1,
      journal: next,
      // A claim that never ends would hold the run: the test fails instead of waiting for its timeout.
      stop: AbortSignal.timeout(10_000),
      onOutcome: (o) => outcomes.push(o),
    });
    // Sent again with the journaled key, so the service replays the envelope it made.
    expect(svc.received).toEqual([key, key]);
    expect(svc.created).toEqual(['T1']);
    expect(outcomes).toEqual([expect.objectContaining({ status: 'created', key })]);
    expect(summary).toMatchObject({ created: 0, alreadyCreated: 1, sent: 1, failed: 0 });
    const after = await next.take(id);
    await next.release(id);
    expect(after.own).toMatchObject({ state: 'created', key, envelope_id: 'env_1' });
  });

  it("another runner's recorded failure, seen after waiting, is reported as failed elsewhere and not sent again", async () => {
    const svc = fakeService();
    const id = idOf('T1');
    const holder = await runner();
    await holder.take(id);
    await holder.record({ id, ref: 'a.ndjson:1', key: 'k-holder', state: 'sending' });
    // The waiting runner's clock says when it is waiting for the holder's claim.
    let waiting!: () => void;
    const isWaiting = new Promise<void>((resolve) => (waiting = resolve));
    const clock: Clock = {
      now: () => systemClock.now(),
      sleep: (ms, signal) => {
        waiting();
        return systemClock.sleep(ms, signal);
      },
    };
    const waiter = await runner({ clock });
    const outcomes: BulkOutcome[] = [];
    const running = runBulk({
      inputs: inputs(1),
      create: svc.create,
      concurrency: 1,
      journal: waiter,
      onOutcome: (o) => outcomes.push(o),
    });
    // (A runner that did not wait, wrongly, ends its run instead.)
    await Promise.race([isWaiting, running]);
    await holder.record({ id, ref: 'a.ndjson:1', key: 'k-holder', state: 'failed', error: 'HTTP 422 bad' });
    const summary = await running;
    expect(summary).toMatchObject({
      failed: 1,
      failedElsewhere: 1,
      sent: 0,
      created: 0,
      notAttempted: false,
    });
    expect(svc.calls).toBe(0);
    expect(outcomes).toEqual([
      expect.objectContaining({ status: 'failed', key: 'k-holder', elsewhere: true }),
    ]);
    const error = (outcomes[0] as { error: unknown }).error;
    expect(error).toBeInstanceOf(SharedOutcomeError);
    expect((error as Error).message).toContain('HTTP 422 bad');
  });

  it("keeps services, environments and accounts apart, and never touches another application's keys", async () => {
    await raw.sendCommand(['SET', 'app:thing', 'theirs', 'PX', '600000']);
    await raw.set('sign-cli-other:x', 'kept');
    const base = { environment: 'live', fingerprint: 'fp-a' };
    const a = await runner(base);
    const otherService = await runner({ ...base, service: `${service}/other` });
    const otherEnvironment = await runner({ ...base, environment: 'test' });
    const otherAccount = await runner({ ...base, fingerprint: 'fp-b' });
    const created = idOf('T1');
    const held = idOf('T2');
    await a.take(created);
    await a.record({
      id: created,
      ref: 'r:1',
      key: 'k-a',
      state: 'created',
      envelope_id: 'env_a',
      contract_id: 'c-1',
    });
    expect((await a.take(held)).busy).toBeUndefined();
    // The claim is real: another runner of the same account waits for it.
    expect((await (await runner(base)).take(held)).busy).toBe(true);
    for (const journal of [otherService, otherEnvironment]) {
      expect(await journal.take(created)).toEqual({ own: undefined, others: [] });
      await journal.release(created);
      expect(await journal.take(held)).toEqual({ own: undefined, others: [] });
      await journal.release(held);
      expect(await journal.createdFor('c-1')).toBeUndefined();
    }
    // Another account in the same journal: never held up by A's claims, nothing of its own; A's
    // entry only as another key's, which runBulk asks the service about.
    expect(await otherAccount.take(held)).toEqual({ own: undefined, others: [] });
    await otherAccount.release(held);
    const seen = await otherAccount.take(created);
    await otherAccount.release(created);
    expect(seen.own).toBeUndefined();
    expect(seen.others).toEqual([expect.objectContaining({ fp: 'fp-a', key: 'k-a', state: 'created' })]);
    expect(await otherAccount.createdFor('c-1')).toBeUndefined();
    expect(await a.createdFor('c-1')).toMatchObject({ envelope_id: 'env_a' });

    const keys = await raw.keys('*');
    const ours = keys.filter((key) => key !== 'app:thing' && key !== 'sign-cli-other:x');
    expect(ours.length).toBeGreaterThan(0);
    for (const key of ours) expect(key.startsWith(JOURNAL_KEY_PREFIX)).toBe(true);
    expect(await raw.get('app:thing')).toBe('theirs');
    const ttl = await raw.pTTL('app:thing');
    expect(ttl).toBeGreaterThan(500_000);
    expect(ttl).toBeLessThanOrEqual(600_000);
    expect(await raw.get('sign-cli-other:x')).toBe('kept');
    expect(await raw.pTTL('sign-cli-other:x')).toBe(-1);
    await raw.del(['app:thing', 'sign-cli-other:x']);
  });

  it('keeps entries, contracts and meta for the retention from the last write, and a claim for its lease', async () => {
    const journal = await runner({ retentionMs: 120_000, leaseMs: 5_000 });
    const id = idOf('T1');
    await journal.take(id);
    await journal.record({
      id,
      ref: 'r:1',
      key: 'k',
      state: 'created',
      envelope_id: 'env_1',
      contract_id: 'c-1',
    });
    const keys = journalKeys(JOURNAL_KEY_PREFIX, journalNamespace(service, 'test'));
    for (const key of [keys.entries, keys.contracts, keys.meta]) {
      const ttl = await raw.pTTL(key);
      expect(ttl, key).toBeGreaterThan(100_000);
      expect(ttl, key).toBeLessThanOrEqual(120_000);
    }
    // The outcome gave the claim back.
    expect(await raw.exists(`${keys.claims}fp-a:${id}`)).toBe(0);
    const other = idOf('T2');
    await journal.take(other);
    const claimTtl = await raw.pTTL(`${keys.claims}fp-a:${other}`);
    expect(claimTtl).toBeGreaterThan(0);
    expect(claimTtl).toBeLessThanOrEqual(5_000);
    await journal.release(other);
    expect(await raw.exists(`${keys.claims}fp-a:${other}`)).toBe(0);
  });

  it("one runner's shorter retention never cuts the journal short for the others", async () => {
    const long = await runner({ retentionMs: 120_000 });
    const short = await runner({ retentionMs: 60_000 });
    await long.take(idOf('T1'));
    await long.record({ id: idOf('T1'), ref: 'r:1', key: 'k1', state: 'created', envelope_id: 'env_1' });
    await short.take(idOf('T2'));
    await short.record({ id: idOf('T2'), ref: 'r:2', key: 'k2', state: 'created', envelope_id: 'env_2' });
    const keys = journalKeys(JOURNAL_KEY_PREFIX, journalNamespace(service, 'test'));
    for (const key of [keys.entries, keys.meta]) expect(await raw.pTTL(key), key).toBeGreaterThan(100_000);
  });

  it('a runner whose claim ran out may not promise to send, and created is never undone by a late write', async () => {
    const stalled = await runner({ leaseMs: 300 });
    const other = await runner();
    const id = idOf('T1');
    await stalled.take(id);
    // Its renewals stop (a stalled event loop, say) and the lease runs out: another runner takes the input.
    (stalled as unknown as { stopRenewing(id: string): void }).stopRenewing(id);
    await sleep(400);
    const taken = await other.take(id);
    expect(taken.busy).toBeUndefined();
    const refused = await stalled.record({ id, ref: 'r:1', key: 'k-stalled', state: 'sending' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(StorageError);
    expect((refused as Error).message).toContain('ran out before it was sent');
    await other.record({ id, ref: 'r:1', key: 'k-other', state: 'sending' });
    await other.record({ id, ref: 'r:1', key: 'k-other', state: 'created', envelope_id: 'env_1' });
    // The stalled runner's late failure does not make it look unsent.
    await stalled.record({ id, ref: 'r:1', key: 'k-stalled', state: 'unknown', error: 'timeout' });
    const view = await other.take(id);
    await other.release(id);
    expect(view.own).toMatchObject({ state: 'created', envelope_id: 'env_1', key: 'k-other' });
  });

  it('an entry that is not JSON stops the run with a storage error, not a crash', async () => {
    const journal = await runner();
    const keys = journalKeys(JOURNAL_KEY_PREFIX, journalNamespace(service, 'test'));
    await raw.hSet(keys.entries, idOf('T1'), '{not json');
    const error = await journal.take(idOf('T1')).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(StorageError);
    expect((error as Error).message).toContain('is not JSON');
  });

  it('an unreachable store fails the open at once, naming the URL', async () => {
    // Nothing listens on port 1: the refusal is the answer (no retry loop to wait out: the test's
    // guard timeout would end one).
    const notes: string[] = [];
    const error = (await openRedisJournal({
      url: 'redis://127.0.0.1:1',
      service,
      environment: 'test',
      fingerprint: 'fp-a',
      onNote: (note) => notes.push(note),
    }).catch((e: unknown) => e)) as StorageError;
    expect(error).toBeInstanceOf(StorageError);
    expect(error.message).toContain('unreachable');
    expect(error.message).toContain('redis://127.0.0.1:1');
    // Never reached, so never "lost".
    expect(notes).toEqual([]);
  });

  it('lost mid-run: nothing new is taken or sent, and an outcome waits for the store to come back', async () => {
    const own = await startRedis();
    servers.push(own);
    const notes: string[] = [];
    const journal = await runner({
      url: own.url,
      timeoutMs: 500,
      recoverMs: 10_000,
      onNote: (note) => notes.push(note),
    });
    const id = idOf('T1');
    await journal.take(id);
    await journal.record({ id, ref: 'r:1', key: 'k-1', state: 'sending' });
    await own.stop('SIGKILL');

    const taken = (await journal.take(idOf('T2')).catch((e: unknown) => e)) as StorageError;
    expect(taken).toBeInstanceOf(StorageError);
    expect(taken.message).toMatch(/journal store redis:\/\/127\.0\.0\.1:\d+ lost/);
    // `sending` is the promise made before a request goes out: it fails at once.
    await expect(
      journal.record({ id: idOf('T2'), ref: 'r:2', key: 'k-2', state: 'sending' }),
    ).rejects.toThrow(StorageError);
    // The outcome of a request already sent waits for the store.
    let settled = false;
    const recorded = journal.record({ id, ref: 'r:1', key: 'k-1', state: 'created', envelope_id: 'env_1' });
    recorded.then(
      () => (settled = true),
      () => (settled = true),
    );
    await sleep(400);
    expect(settled).toBe(false);
    const back = await startRedis({ port: own.port });
    servers.push(back);
    await recorded;
    // Lost once, this run takes nothing more, even with the store back (it may have come back empty).
    await expect(journal.take(idOf('T3'))).rejects.toThrow(StorageError);
    const reader = await runner({ url: back.url });
    const after = await reader.take(id);
    await reader.release(id);
    expect(after.own).toMatchObject({ state: 'created', key: 'k-1', envelope_id: 'env_1' });
    // Said once each, however many reconnections failed in between.
    expect(notes).toEqual([
      expect.stringMatching(/^journal store redis:\/\/127\.0\.0\.1:\d+ lost \(/),
      `journal store ${own.url} back`,
    ]);
  });

  it('never puts the password of the URL in an error', async () => {
    const password = 'pw-7c1e-secret';
    const secured = await startRedis({ password });
    servers.push(secured);
    const options = { service, environment: 'test', fingerprint: 'fp-a' };
    const failures: StorageError[] = [];
    const wrong = 'pw-wrong-5d2a';
    for (const url of [
      `redis://:${wrong}@127.0.0.1:${secured.port}`,
      `redis://:${password}@127.0.0.1:1`,
      `redis://user:${password}@127.0.0.1:1`,
    ])
      failures.push((await openRedisJournal({ url, ...options }).catch((e: unknown) => e)) as StorageError);
    // Lost mid-run, with the right password.
    const journal = await runner({ url: secured.url, timeoutMs: 500 });
    await secured.stop('SIGKILL');
    failures.push((await journal.take(idOf('T1')).catch((e: unknown) => e)) as StorageError);
    for (const error of failures) {
      expect(error).toBeInstanceOf(StorageError);
      expect(error.message).toContain('****');
      for (const text of [error.message, error.path, error.hint ?? ''])
        for (const secret of [password, wrong]) expect(text).not.toContain(secret);
    }
  });
});
