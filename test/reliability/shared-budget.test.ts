/**
 * Many runners, one key (issue 15): three concurrent `envelopes create
 * --ndjson` runs of the same key, 50 envelopes each, `--rate 120` against
 * `sandbox --rate-limit 120`, sharing one budget in a real redis-server.
 * - With the store: 150 envelopes, no 429, no 60-second window over 120.
 * - Without it (the control): each run paces alone and the sandbox answers 429s.
 * - Redis killed mid-run: the runs finish on local pacing with exactly 150.
 * - One runner cut off from Redis (its connection killed): it paces alone at
 *   its share and rejoins; the others keep its share meanwhile, so still no
 *   window over the limit.
 * The three scenarios run at once (each with its own sandbox and Redis): each
 * takes about 75 s, the time 150 requests need at 120 a minute.
 */
import { createClient } from '@redis/client';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/paths.js';
import { NO_REDIS, startRedis, type RedisProcess } from '../helpers/redis.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';
import { recordFigures } from './figures.js';
import { countEnvelopes, parseLines, spawnCli, worstCreatedWindow, writeNdjson } from './support.js';

const RUNS = 3;
const EACH = 50;
const LIMIT = 120;
const TOTAL = RUNS * EACH;

interface Outcome {
  codes: (number | null)[];
  stderrs: string[];
  created: number;
  duplicates: number;
  rateLimited: number;
  peakWindow: number;
  worstCreatedWindow: number;
  /** Combined throughput, start of the runs to the last exit, as a fraction of the limit. */
  ratio: number;
  seconds: number;
}

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(cleanup.map((stop) => stop()));
});

/** Drops one runner's connection (CLIENT KILL), as a network blip between one runner and Redis would. */
async function cutOneRunner(url: string): Promise<void> {
  const raw = createClient({ url });
  await raw.connect();
  try {
    const list = await raw.sendCommand<string>(['CLIENT', 'LIST', 'TYPE', 'normal']);
    const me = Number(await raw.sendCommand<number>(['CLIENT', 'ID']));
    const ids = list
      .split('\n')
      .map((line) => Number(/\bid=(\d+)/.exec(line)?.[1]))
      .filter((id) => id > 0 && id !== me);
    await raw.sendCommand(['CLIENT', 'KILL', 'ID', String(ids[0])]);
  } finally {
    await raw.close();
  }
}

async function threeRuns(
  name: string,
  options: { store: boolean; killRedisAfter?: number; cutOneAfter?: number },
): Promise<Outcome> {
  const sandbox: SandboxProcess = await startSandboxProcess({ args: ['--rate-limit', String(LIMIT)] });
  cleanup.push(() => sandbox.stop());
  let redis: RedisProcess | undefined;
  if (options.store) {
    redis = await startRedis();
    cleanup.push(() => redis!.stop('SIGKILL'));
  }
  const dir = tempDir(`sign-cli-shared-${name}-`);
  const env = {
    SIGN_API_KEY: sandbox.apiKey,
    SIGN_BASE_URL: sandbox.baseUrl,
    ...(redis ? { SIGN_RATE_STORE: redis.url } : {}),
  };
  let lines = 0;
  const onLine = () => {
    lines++;
    if (options.killRedisAfter !== undefined && lines === options.killRedisAfter) void redis?.stop('SIGKILL');
    if (options.cutOneAfter !== undefined && lines === options.cutOneAfter) void cutOneRunner(redis!.url);
  };
  const started = Date.now();
  const runs = Array.from({ length: RUNS }, (_, i) =>
    spawnCli(
      [
        'envelopes',
        'create',
        '--ndjson',
        '-f',
        writeNdjson(dir, `${name}-${i + 1}`, EACH),
        '--rate',
        String(LIMIT),
        '--json',
      ],
      {
        env,
        timeoutMs: 240_000,
        onLine,
      },
    ),
  );
  const results = await Promise.all(runs.map((run) => run.done));
  const seconds = (Date.now() - started) / 1000;
  const state = await sandbox.control<{ rate_limited: number; rate_window_peak: number }>('/_sandbox/state');
  const counts = await countEnvelopes(sandbox.baseUrl, sandbox.apiKey, `REL-${name}-`);
  const createdLines = results.flatMap((r) => parseLines(r.stdout)).filter((l) => l.status === 'created');
  expect(createdLines.length).toBe(counts.distinct);
  return {
    codes: results.map((r) => r.code),
    stderrs: results.map((r) => r.stderr),
    created: counts.distinct,
    duplicates: counts.duplicates,
    rateLimited: state.rate_limited,
    peakWindow: state.rate_window_peak,
    worstCreatedWindow: worstCreatedWindow(counts.envelopes),
    ratio: Math.round((counts.distinct / (seconds / 60) / LIMIT) * 100) / 100,
    seconds: Math.round(seconds * 10) / 10,
  };
}

function figures(label: string, outcome: Outcome): void {
  recordFigures('shared-budget', {
    [`${label}: envelopes (of ${TOTAL})`]: outcome.created,
    [`${label}: duplicates`]: outcome.duplicates,
    [`${label}: 429s`]: outcome.rateLimited,
    [`${label}: most requests in a 60 s window (limit ${LIMIT})`]: outcome.peakWindow,
    [`${label}: combined throughput / limit`]: outcome.ratio,
    [`${label}: seconds`]: outcome.seconds,
  });
}

describe.skipIf(NO_REDIS)('many runners, one key: a shared rate budget in Redis', () => {
  it.concurrent('with --rate-store: 150 envelopes, no 429, no 60-second window over the limit', async () => {
    const outcome = await threeRuns('shared', { store: true });
    figures('shared', outcome);
    expect(outcome.codes).toEqual([0, 0, 0]);
    expect(outcome.created).toBe(TOTAL);
    expect(outcome.duplicates).toBe(0);
    expect(outcome.rateLimited).toBe(0);
    expect(outcome.peakWindow).toBeLessThanOrEqual(LIMIT);
    expect(outcome.worstCreatedWindow).toBeLessThanOrEqual(LIMIT);
    for (const stderr of outcome.stderrs) expect(stderr).not.toMatch(/rate store/);
  });

  it.concurrent(
    'the control, without a store: each run paces alone and the sandbox answers 429s',
    async () => {
      const outcome = await threeRuns('alone', { store: false });
      figures('alone (control)', outcome);
      expect(outcome.rateLimited).toBeGreaterThan(0);
      expect(outcome.peakWindow).toBeGreaterThan(LIMIT);
      // Even so, never a duplicate: every create carries its Idempotency-Key.
      expect(outcome.duplicates).toBe(0);
    },
  );

  it.concurrent(
    'Redis killed mid-run: one warning per run, local pacing, exactly 150 envelopes',
    async () => {
      const outcome = await threeRuns('killed', { store: true, killRedisAfter: 45 });
      figures('Redis killed after 45', outcome);
      expect(outcome.codes).toEqual([0, 0, 0]);
      expect(outcome.created).toBe(TOTAL);
      expect(outcome.duplicates).toBe(0);
      for (const stderr of outcome.stderrs) {
        const warnings = stderr.split('\n').filter((line) => /rate store/.test(line));
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(
          /rate store redis:\/\/127\.0\.0\.1:\d+ lost \(.+\); pacing locally at 1\/3 of the rate, as 3 runners were sharing it/,
        );
      }
    },
  );
  it.concurrent(
    'one runner cut off from Redis: it paces alone at its share and rejoins; still no window over the limit',
    async () => {
      const outcome = await threeRuns('cut', { store: true, cutOneAfter: 45 });
      figures('one runner cut off after 45', outcome);
      expect(outcome.codes).toEqual([0, 0, 0]);
      expect(outcome.created).toBe(TOTAL);
      expect(outcome.duplicates).toBe(0);
      expect(outcome.peakWindow).toBeLessThanOrEqual(LIMIT);
      const warned = outcome.stderrs.filter((stderr) => /rate store .* lost/.test(stderr));
      expect(warned).toHaveLength(1);
    },
  );
});
