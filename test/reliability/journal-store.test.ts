/**
 * Many runners, one journal (`--journal-store`): three `envelopes create
 * --ndjson` runs of the same 900-line file and key, each on a machine of its
 * own (fresh HOME and state directory), sharing only a real redis-server.
 * - All three at once: exactly 900 envelopes, each input sent by one runner
 *   only, the work split between them.
 * - One runner SIGKILLed after a third and started again on a fresh machine:
 *   what it held waits out its lease; still exactly 900, and it finishes.
 * - Redis stopped (SIGSTOP) for 10 s: runners stop sending and record what
 *   they had sent once it answers again; a re-run finishes: exactly 900.
 * - Redis SIGKILLed and started again from its AOF: what a runner reported
 *   created is still in the journal, so a re-run on a fresh machine sends
 *   none of it again; exactly 900.
 * The scenarios run one after the other: each keeps both cores busy.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/paths.js';
import { NO_REDIS, startRedis, type RedisProcess } from '../helpers/redis.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';
import { recordFigures } from './figures.js';
import {
  countEnvelopes,
  parseLines,
  seconds,
  sleep,
  spawnCli,
  writeNdjson,
  type CreateLine,
  type SpawnedCli,
} from './support.js';

const SECTION = 'journal-store';
const N = 900;
const RUNNERS = 3;
/** Per runner: three together take about 15 s for 900, long enough to be cut anywhere. */
const RATE = 1200;
/** The fault comes once this many envelopes were reported created (about a third). */
const AT = 300;
/** A re-run alone, after a fault: as fast as the sandbox allows. */
const RERUN_RATE = 6000;

const work = tempDir('sign-cli-journal-store-');
const cleanup: (() => Promise<void>)[] = [];
const children: SpawnedCli[] = [];
afterAll(async () => {
  for (const run of children)
    if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
  await Promise.all(children.map((run) => run.done.catch(() => undefined)));
  await Promise.all(cleanup.map((stop) => stop()));
  rmSync(work, { recursive: true, force: true });
});

let machines = 0;
/** A machine of its own: HOME, state and config directories no other runner sees. */
function freshMachine(): Record<string, string> {
  const home = join(work, `home-${++machines}`);
  return { HOME: home, SIGN_STATE_DIR: join(home, 'state'), SIGN_CONFIG_DIR: join(home, 'config') };
}

interface Scene {
  name: string;
  sandbox: SandboxProcess;
  redis: RedisProcess;
  file: string;
  prefix: string;
  /** Non-skipped created lines printed so far, by every runner of the scene. */
  created: number;
}

async function scene(name: string, redisOptions: { appendonly?: boolean } = {}): Promise<Scene> {
  const sandbox = await startSandboxProcess({
    dataDir: mkdtempSync(join(work, 'sandbox-')),
    args: ['--rate-limit', '6000'],
  });
  cleanup.push(() => sandbox.stop());
  const redis = await startRedis(redisOptions);
  const s: Scene = {
    name,
    sandbox,
    redis,
    file: writeNdjson(work, name, N),
    prefix: `REL-${name}-`,
    created: 0,
  };
  const dir = redis.dir;
  cleanup.push(async () => {
    // SIGKILL ends a stopped server too; the scene's current server, which a restart replaces.
    await s.redis.stop('SIGKILL');
    // Started again on its AOF, the directory is this test's to remove.
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return s;
}

/** One runner on a fresh machine; `onCreated` sees the scene's running count of created lines. */
function runner(s: Scene, onCreated?: (count: number) => void, rate = RATE): SpawnedCli {
  const run = spawnCli(['envelopes', 'create', '--ndjson', '-f', s.file, '--json', '--rate', String(rate)], {
    env: {
      ...freshMachine(),
      SIGN_BASE_URL: s.sandbox.baseUrl,
      SIGN_API_KEY: s.sandbox.apiKey,
      SIGN_JOURNAL_STORE: s.redis.url,
    },
    timeoutMs: 150_000,
    onLine: (line) => {
      if (!line.includes('"status":"created"') || line.includes('"skipped":true')) return;
      s.created++;
      onCreated?.(s.created);
    },
  });
  children.push(run);
  return run;
}

/** `sent 312, created elsewhere 588: created 312 in test, failed 0` */
function split(
  stderr: string,
): { sent: number; elsewhere: number; created: number; failed: number } | undefined {
  const match =
    /sent ([\d,]+), created elsewhere ([\d,]+): created ([\d,]+)(?: in [a-z?]+)?(?:, already created [\d,]+)?, failed ([\d,]+)/.exec(
      stderr,
    );
  if (!match) return undefined;
  const n = (text: string) => Number(text.replace(/,/g, ''));
  return { sent: n(match[1]!), elsewhere: n(match[2]!), created: n(match[3]!), failed: n(match[4]!) };
}

/** Lines of inputs this run sent and the service acknowledged (not found in the journal). */
const sentCreated = (result: CliResult): CreateLine[] =>
  parseLines(result.stdout).filter((line) => line.status === 'created' && !line.skipped);

/** Exactly the inputs, each once: contract ids and titles both distinct. */
async function census(s: Scene) {
  const counts = await countEnvelopes(s.sandbox.baseUrl, s.sandbox.apiKey, s.prefix);
  return { ...counts, titles: new Set(counts.envelopes.map((e) => e.title)).size };
}

const state = (s: Scene) =>
  s.sandbox.control<{ created: number; replayed: number; envelopes: number }>('/_sandbox/state');

/** Every envelope a runner reported created is in the sandbox, under its input's contract id, once. */
async function reportedAreThere(s: Scene, results: CliResult[]): Promise<number> {
  const { envelopes } = await census(s);
  const byId = new Map(envelopes.map((e) => [e.id, e]));
  const perContract = new Map<string, number>();
  for (const e of envelopes)
    perContract.set(e.contract_id ?? '', (perContract.get(e.contract_id ?? '') ?? 0) + 1);
  let reported = 0;
  for (const line of results.flatMap(sentCreated)) {
    const envelope = byId.get(line.envelope!.id);
    expect(envelope, `${line.input}: ${line.envelope!.id} is not in the sandbox`).toBeDefined();
    expect(perContract.get(envelope!.contract_id ?? '')).toBe(1);
    reported++;
  }
  return reported;
}

/** A runner that stopped with the store: exit 1, the storage error said, no outcome left unrecorded. */
function storeLostOrDone(s: Scene, result: CliResult): void {
  expect([0, 1]).toContain(result.code);
  if (result.code === 1) expect(result.stderr).toMatch(/journal store redis:\/\/127\.0\.0\.1:\d+ lost/);
  else expect(split(result.stderr)?.failed).toBe(0);
  // The store came back within the 30 s an outcome waits for it: every outcome was recorded.
  expect(result.stderr).not.toMatch(/could not be recorded/);
}

/**
 * After the fault, one runner alone on a fresh machine finishes: it finds in
 * the journal everything a runner reported created (sends none of it again)
 * and creates exactly what is missing.
 */
async function rerunFinishes(s: Scene, results: CliResult[], before: { found: number }) {
  const started = Date.now();
  const rerun = await runner(s, undefined, RERUN_RATE).done;
  const took = seconds(started);
  const after = await census(s);
  const rerunSplit = split(rerun.stderr);
  expect(rerun.code).toBe(0);
  const rerunLines = new Map(parseLines(rerun.stdout).map((line) => [line.input, line]));
  for (const line of results.flatMap(sentCreated))
    expect([line.input, rerunLines.get(line.input)]).toMatchObject([
      line.input,
      { status: 'created', skipped: true, elsewhere: true, envelope: { id: line.envelope!.id } },
    ]);
  expect(rerunSplit!.created + before.found).toBe(N);
  expect(after).toMatchObject({ found: N, distinct: N, duplicates: 0, titles: N });
  return {
    sent: rerunSplit!.sent,
    created: rerunSplit!.created,
    took,
    found: after.found,
    duplicates: after.duplicates,
  };
}

describe.skipIf(NO_REDIS)(
  `${RUNNERS} runners, one journal in Redis: each of ${N} inputs created once`,
  () => {
    it(`three at once: exactly ${N} envelopes, each input sent by one runner, the work split`, async () => {
      const s = await scene('jshared');
      const started = Date.now();
      const runs = Array.from({ length: RUNNERS }, () => runner(s));
      const results = await Promise.all(runs.map((run) => run.done));
      const took = seconds(started);
      const splits = results.map((r) => split(r.stderr));
      const counts = await census(s);
      const sandboxState = await state(s);
      console.log(
        `journal-store, three at once: sent ${splits.map((x) => x?.sent).join(' / ')} in ${took} s; ${counts.found} envelopes`,
      );
      recordFigures(SECTION, {
        [`three at once: envelopes (of ${N})`]: counts.found,
        'three at once: duplicates': counts.duplicates,
        'three at once: sent by each runner': splits.map((x) => x?.sent ?? '?').join(' / '),
        'three at once: requests replayed by the service': sandboxState.replayed,
        'three at once: seconds': took,
      });
      expect(results.map((r) => r.code)).toEqual([0, 0, 0]);
      expect(counts).toMatchObject({ found: N, distinct: N, duplicates: 0, titles: N });
      for (const x of splits) expect(x?.sent).toBeGreaterThan(0);
      expect(splits.reduce((sum, x) => sum + (x?.sent ?? 0), 0)).toBe(N);
      expect(results.reduce((sum, r) => sum + sentCreated(r).length, 0)).toBe(N);
      // Every runner reports every input: its own, and the others' as created elsewhere.
      for (const [i, r] of results.entries()) {
        const lines = parseLines(r.stdout);
        expect(lines).toHaveLength(N);
        expect(lines.filter((l) => l.skipped && (l as { elsewhere?: boolean }).elsewhere)).toHaveLength(
          N - splits[i]!.sent,
        );
      }
      // No input was sent twice: the service never had to replay one.
      expect(sandboxState).toMatchObject({ created: N, replayed: 0 });
    });

    it(`one runner SIGKILLed after ~${AT} and started again on a fresh machine: exactly ${N}, it finishes`, async () => {
      const s = await scene('jkilled');
      const started = Date.now();
      let restarted: SpawnedCli | undefined;
      let killedAt = 0;
      const runs: SpawnedCli[] = [];
      const onCreated = (count: number) => {
        if (count < AT || killedAt > 0) return;
        killedAt = count;
        runs[0]!.child.kill('SIGKILL');
        restarted = runner(s);
      };
      runs.push(runner(s, onCreated), runner(s, onCreated), runner(s, onCreated));
      const [killed, ...others] = await Promise.all(runs.map((run) => run.done));
      expect(restarted, 'the kill never came').toBeDefined();
      const again = await restarted!.done;
      const took = seconds(started);
      const counts = await census(s);
      const sandboxState = await state(s);
      const splits = [...others, again].map((r) => split(r.stderr));
      console.log(
        `journal-store, one killed: killed runner printed ${sentCreated(killed!).length}, then sent ${splits.map((x) => x?.sent).join(' / ')} (the restarted last) in ${took} s`,
      );
      recordFigures(SECTION, {
        [`one SIGKILLed after ${killedAt}, restarted: envelopes (of ${N})`]: counts.found,
        'one SIGKILLed, restarted: duplicates': counts.duplicates,
        'one SIGKILLed, restarted: created by the killed runner before': sentCreated(killed!).length,
        'one SIGKILLed, restarted: sent by the others / the restarted': splits
          .map((x) => x?.sent ?? '?')
          .join(' / '),
        'one SIGKILLed, restarted: requests replayed by the service': sandboxState.replayed,
        'one SIGKILLed, restarted: seconds': took,
      });
      expect(killed!.signal).toBe('SIGKILL');
      expect([...others.map((r) => r.code), again.code]).toEqual([0, 0, 0]);
      expect(counts).toMatchObject({ found: N, distinct: N, duplicates: 0, titles: N });
      await reportedAreThere(s, [killed!, ...others, again]);
      // Every input was reported created by someone (sent, or replayed after the killed runner's lost answer).
      const reported = new Set([killed!, ...others, again].flatMap(sentCreated).map((line) => line.input));
      expect(reported.size).toBe(N);
    });

    it('Redis stopped (SIGSTOP) for 10 s mid-run: no duplicate; what was reported is there; a re-run finishes', async () => {
      const s = await scene('jstopped');
      const started = Date.now();
      let stoppedAt = 0;
      let resumed: Promise<void> | undefined;
      const onCreated = (count: number) => {
        if (count < AT || stoppedAt > 0) return;
        stoppedAt = count;
        s.redis.child.kill('SIGSTOP');
        resumed = sleep(10_000).then(() => void s.redis.child.kill('SIGCONT'));
      };
      const runs = Array.from({ length: RUNNERS }, () => runner(s, onCreated));
      const results = await Promise.all(runs.map((run) => run.done));
      expect(resumed, 'the stop never came').toBeDefined();
      await resumed;
      const took = seconds(started);
      const before = await census(s);
      expect(before.duplicates).toBe(0);
      for (const result of results) storeLostOrDone(s, result);
      const reported = await reportedAreThere(s, results);

      const rerun = await rerunFinishes(s, results, before);
      console.log(
        `journal-store, Redis stopped at ${stoppedAt}: exits ${results.map((r) => r.code).join(' ')}, ${before.found} envelopes after ${took} s; the re-run sent ${rerun.sent}, created ${rerun.created} in ${rerun.took} s`,
      );
      recordFigures(SECTION, {
        [`Redis stopped 10 s after ${stoppedAt}: exit codes`]: results.map((r) => r.code).join(' '),
        'Redis stopped: envelopes when the runners stopped': before.found,
        'Redis stopped: reported created, all there': reported,
        'Redis stopped: the re-run sent / created': `${rerun.sent} / ${rerun.created}`,
        'Redis stopped: envelopes after the re-run, duplicates': `${rerun.found}, ${rerun.duplicates}`,
        'Redis stopped: seconds (runs, re-run)': `${took}, ${rerun.took}`,
      });
    });

    it('Redis SIGKILLed mid-run and started again from its AOF: nothing reported created is lost from the journal', async () => {
      const s = await scene('jaof', { appendonly: true });
      const dir = s.redis.dir!;
      const started = Date.now();
      let killedAt = 0;
      let back: Promise<void> | undefined;
      const onCreated = (count: number) => {
        if (count < AT || killedAt > 0) return;
        killedAt = count;
        const port = s.redis.port;
        back = s.redis
          .stop('SIGKILL', { keepDir: true })
          .then(() => sleep(2_000))
          .then(async () => {
            s.redis = await startRedis({ port, appendonly: true, dir });
          });
      };
      const runs = Array.from({ length: RUNNERS }, () => runner(s, onCreated));
      const results = await Promise.all(runs.map((run) => run.done));
      expect(back, 'the kill never came').toBeDefined();
      await back;
      const took = seconds(started);
      const before = await census(s);
      expect(before.duplicates).toBe(0);
      for (const result of results) storeLostOrDone(s, result);
      const reported = await reportedAreThere(s, results);

      const rerun = await rerunFinishes(s, results, before);
      console.log(
        `journal-store, Redis SIGKILLed at ${killedAt}: exits ${results.map((r) => r.code).join(' ')}, ${before.found} envelopes after ${took} s; the re-run sent ${rerun.sent}, created ${rerun.created} in ${rerun.took} s`,
      );
      recordFigures(SECTION, {
        [`Redis SIGKILLed after ${killedAt}, back from its AOF: exit codes`]: results
          .map((r) => r.code)
          .join(' '),
        'Redis SIGKILLed: envelopes when the runners stopped': before.found,
        'Redis SIGKILLed: reported created, all there': reported,
        'Redis SIGKILLed: the re-run sent / created': `${rerun.sent} / ${rerun.created}`,
        'Redis SIGKILLed: envelopes after the re-run, duplicates': `${rerun.found}, ${rerun.duplicates}`,
        'Redis SIGKILLed: seconds (runs, re-run)': `${took}, ${rerun.took}`,
      });
    });
  },
);
