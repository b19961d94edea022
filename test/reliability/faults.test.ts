/**
 * 500 envelopes from NDJSON through a fault proxy (seeded): about 30 % of the
 * answers lost after the sandbox committed, 10 % of connections reset before
 * anything was forwarded, a few answers held past the client's timeout, and
 * proxy-made 429/502/503 with and without Retry-After. At most one re-run of
 * the same command, through the same proxy with the same faults, must leave
 * exactly 500 envelopes in the sandbox and no contract_id twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { startFaultProxy, worstWindow, type FaultProxy } from '../helpers/fault-proxy.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';
import { recordFigures } from './figures.js';
import { countEnvelopes, parseLines, seconds, summary, worstCreatedWindow, writeNdjson } from './support.js';

const SECTION = 'faults';
const N = 500;
const SEED = 20_261_122;
const RATES = {
  lostAfterCommit: 0.3,
  reset: 0.1,
  delay: 0.02,
  status429: 0.015,
  status502: 0.02,
  status503: 0.02,
};

let sandbox: SandboxProcess;
let proxy: FaultProxy;
beforeAll(async () => {
  sandbox = await startSandboxProcess({ args: ['--rate-limit', '6000'] });
  // Answers held 3 s against a client timeout of 2 s: the client gives up, the sandbox has committed.
  proxy = await startFaultProxy({
    target: sandbox.baseUrl,
    seed: SEED,
    rates: RATES,
    delayMs: 3_000,
    retryAfter: '1',
  });
});
afterAll(async () => {
  await proxy?.close();
  await sandbox?.stop();
});

describe('envelopes create through a faulty network', () => {
  it(`creates exactly ${N} envelopes, no duplicate, after at most one re-run through the same faults`, async () => {
    const work = tempDir('sign-cli-faults-');
    const file = writeNdjson(work, 'faults', N);
    const env = {
      SIGN_BASE_URL: proxy.url,
      SIGN_API_KEY: sandbox.apiKey,
      SIGN_STATE_DIR: tempDir('sign-cli-faults-state-'),
    };
    const args = [
      'envelopes',
      'create',
      '--ndjson',
      '-f',
      file,
      '--rate',
      '6000',
      '--json',
      '--timeout',
      '2',
      '--retries',
      '8',
    ];
    const started = Date.now();

    const first = await runCli(args, { env, timeoutMs: 150_000 });
    const firstWall = seconds(started);
    expect(first.signal, first.stderr.slice(-2000)).toBeNull();
    const firstSummary = summary(first.stderr);
    const runs = [first];
    // The re-run goes through the proxy too, with the same fault rates: the journal and the
    // Idempotency-Keys must make it finish the rest without a duplicate.
    if (first.code !== 0) runs.push(await runCli(args, { env, timeoutMs: 150_000 }));
    const last = runs.at(-1)!;
    const wall = seconds(started);

    const counts = await countEnvelopes(sandbox.baseUrl, sandbox.apiKey, 'REL-faults-');
    const state = await sandbox.control<{
      rate_limited: number;
      replayed: number;
      created: number;
      by_status: Record<string, number>;
    }>('/_sandbox/state');
    const fivexx = Object.entries(state.by_status)
      .filter(([status]) => status.startsWith('5'))
      .reduce((sum, [, n]) => sum + n, 0);
    const c = proxy.counters;
    recordFigures(SECTION, {
      'envelopes expected': N,
      'envelopes found': counts.found,
      'duplicate contract_ids': counts.duplicates,
      're-runs needed (through the proxy)': runs.length - 1,
      'first run: created/already/failed': firstSummary
        ? `${firstSummary.created}/${firstSummary.already}/${firstSummary.failed}`
        : 'no summary',
      'first run exit code': first.code ?? -1,
      'proxy requests': c.requests,
      'proxy: answers lost after commit': c.lostAfterCommit,
      'proxy: connections reset': c.reset,
      'proxy: answers held past timeout': c.delay,
      'proxy: 429/502/503 made': `${c.status429}/${c.status502}/${c.status503}`,
      'proxy: of which with Retry-After': c.withRetryAfter,
      'sandbox: replayed creates': state.replayed,
      'sandbox: 429 / 5xx': `${state.rate_limited} / ${fivexx}`,
      'worst 60 s: requests sent by the CLI': worstWindow(proxy.requestTimes),
      'worst 60 s: requests the sandbox accepted': worstWindow(proxy.acceptedTimes),
      'worst 60 s: envelopes created (created_at)': worstCreatedWindow(counts.envelopes),
      'first run wall time (s)': firstWall,
      'wall time (s)': wall,
    });

    expect(last.code, last.stderr.slice(-2000)).toBe(0);
    expect(counts.duplicates).toBe(0);
    expect(counts.found).toBe(N);
    expect(counts.distinct).toBe(N);

    // The faults really happened, in the proportions asked for.
    expect(c.lostAfterCommit / c.requests).toBeGreaterThan(0.2);
    expect(c.reset / c.requests).toBeGreaterThan(0.05);
    expect(c.status429 + c.status502 + c.status503).toBeGreaterThan(0);
    expect(c.withRetryAfter).toBeGreaterThan(0);
    expect(c.delay).toBeGreaterThan(0);

    // What the runs printed as created is what the sandbox holds: one id per input, the same in every run.
    const byInput = new Map<string, string>();
    for (const run of runs) {
      for (const line of parseLines(run.stdout)) {
        if (line.status !== 'created') continue;
        const id = line.envelope!.id;
        expect(byInput.get(line.input) ?? id, line.input).toBe(id);
        byInput.set(line.input, id);
      }
    }
    expect(byInput.size).toBe(N);
    const held = new Set(counts.envelopes.map((e) => e.id));
    expect([...byInput.values()].filter((id) => !held.has(id))).toEqual([]);
    // The CLI paced itself under --rate whatever the faults: never more than 6,000 in a minute.
    expect(worstWindow(proxy.requestTimes)).toBeLessThanOrEqual(6000);
    expect(state.rate_limited).toBe(0);
    // Bounded: each run is killed after 150 s (runCli), so the test ends within about 300 s.
  }, 320_000);
});
