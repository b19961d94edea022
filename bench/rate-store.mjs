// Many runners, one key: three concurrent `envelopes create --ndjson` runs of the same key
// against `sandbox --rate-limit L`, each with `--rate L`. With a shared budget in Redis
// (--rate-store) their combined throughput, as a ratio of the limit, and the 429s; the
// baseline of the same run is the same three without the store (each paces alone).
// Needs redis-server (a Debian package): installed here when missing and possible.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { withRedisBench } from './redis.mjs';
import { BIN, ROOT, envelopesFile, spawnServer, stop } from './util.mjs';

// Issue 15's figures: 150 requests against a limit of 120, so the runs outlast one window.
const LIMIT = Number(process.env.BENCH_RATE_LIMIT ?? 120);
const EACH = Number(process.env.BENCH_RATE_EACH ?? 50);
const RUNS = 3;

/** Three runs at once; resolves with wall time, envelopes created and the sandbox's counters. */
async function threeRuns(dir, name, store) {
  const sandbox = await spawnServer([
    BIN,
    'sandbox',
    '--port',
    '0',
    '--json',
    '--data-dir',
    join(dir, `sandbox-${name}`),
    '--rate-limit',
    String(LIMIT),
  ]);
  const { base_url: baseUrl, api_key: apiKey } = JSON.parse(sandbox.firstLine);
  try {
    const env = {
      ...process.env,
      NO_COLOR: '1',
      CI: '1',
      SIGN_BASE_URL: baseUrl,
      SIGN_API_KEY: apiKey,
      SIGN_CONFIG_DIR: join(dir, 'config'),
      ...(store ? { SIGN_RATE_STORE: store } : {}),
    };
    const started = performance.now();
    const codes = await Promise.all(
      Array.from({ length: RUNS }, (_, i) => {
        const file = envelopesFile(dir, `${name}-${i}`, EACH, {
          title: `Rate bench ${name} ${i}`,
          contract: `RATE-${name}-${i}`,
        });
        const child = spawn(
          process.execPath,
          [
            BIN,
            'envelopes',
            'create',
            '--ndjson',
            '-f',
            file,
            '--rate',
            String(LIMIT),
            '--json',
            '--query',
            'status',
          ],
          {
            cwd: ROOT,
            env: { ...env, SIGN_STATE_DIR: join(dir, `state-${name}-${i}`) },
            stdio: ['ignore', 'ignore', 'ignore'],
          },
        );
        return new Promise((resolve) => child.on('close', resolve));
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const state = await (
      await fetch(`${baseUrl}/_sandbox/state`, { headers: { authorization: `Bearer ${apiKey}` } })
    ).json();
    return {
      codes,
      seconds,
      created: state.created,
      rateLimited: state.rate_limited,
      peak: state.rate_window_peak,
    };
  } finally {
    await stop(sandbox.child);
  }
}

export async function benchRateStore() {
  const name = `many runners, one key (${RUNS} runs x ${EACH} envelopes, --rate ${LIMIT} against sandbox --rate-limit ${LIMIT})`;
  return withRedisBench(name, 'sign-cli-bench-rate-', async ({ dir, url }) => {
    const rows = [];
    let ok;
    const alone = await threeRuns(dir, 'alone', undefined);
    const shared = await threeRuns(dir, 'shared', url);
    const ratio = (run) => run.created / (run.seconds / 60) / LIMIT;
    const line = (run) =>
      `${run.created} created in ${run.seconds.toFixed(1)} s, exits ${run.codes.join('/')}; 429s ${run.rateLimited}; most requests in a 60 s window ${run.peak}; throughput / limit ${ratio(run).toFixed(2)}`;
    rows.push(['baseline: each run paces alone', line(alone)]);
    rows.push(['--rate-store (one budget in Redis)', line(shared)]);
    rows.push([
      'combined throughput / limit, shared',
      `${ratio(shared).toFixed(2)} (target >= 0.95, with 0 429s and no window over ${LIMIT})`,
    ]);
    // Alone, the runs can beat 1.0 on a run this short: the sandbox lets the first window fill at once.
    rows.push([
      'shared / baseline wall time',
      `${(shared.seconds / alone.seconds).toFixed(2)} (the baseline bursts into its first window, then waits out 429s and RateLimit resets)`,
    ]);
    ok =
      shared.codes.every((c) => c === 0) &&
      shared.created === RUNS * EACH &&
      shared.rateLimited === 0 &&
      shared.peak <= LIMIT &&
      ratio(shared) >= 0.95;
    return { rows, ok };
  });
}
