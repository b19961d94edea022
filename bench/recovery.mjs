// Pacing after a burst of 429s: a bulk create runs at 6,000/min against the
// sandbox; after a few seconds at full pace (the baseline, measured in the
// same run) the sandbox answers a burst of requests with 429, then none.
// Reports how long after the last 429 the run is back at its full pace
// (target: within one 60-second window), and that it kept under the limit.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { BIN, ROOT, spawnServer, stop } from './util.mjs';

const RATE = 6000;
const ENVELOPES = Number(process.env.BENCH_RECOVERY_ENVELOPES ?? 4000);
const BURST = Number(process.env.BENCH_RECOVERY_BURST ?? 40);
const WARMUP_LINES = 400;
const BIN_MS = 1000;

function ndjsonFile(dir, n) {
  const base = JSON.parse(readFileSync(join(ROOT, 'examples', 'envelope.json'), 'utf8'));
  delete base.webhook_url;
  const lines = [];
  for (let i = 0; i < n; i++)
    lines.push(JSON.stringify({ ...base, title: `Recovery ${i}`, contract_id: `REC-${i}` }));
  const path = join(dir, 'recovery.ndjson');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** Answers per second in the BIN_MS window ending at each arrival. */
function rateAt(arrivals, index) {
  const end = arrivals[index];
  let start = index;
  while (start > 0 && end - arrivals[start - 1] < BIN_MS) start--;
  return ((index - start + 1) * 1000) / BIN_MS;
}

export async function benchRecovery() {
  const dir = mkdtempSync(join(tmpdir(), 'sign-cli-bench-'));
  const rows = [];
  let ok;
  try {
    const sandbox = await spawnServer([
      BIN,
      'sandbox',
      '--port',
      '0',
      '--json',
      '--data-dir',
      join(dir, 'sandbox'),
      '--rate-limit',
      String(RATE),
    ]);
    const { base_url: baseUrl, api_key: apiKey } = JSON.parse(sandbox.firstLine);
    const control = async (path, body) =>
      (
        await fetch(`${baseUrl}${path}`, {
          method: body ? 'POST' : 'GET',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: body && JSON.stringify(body),
        })
      ).json();
    const file = ndjsonFile(dir, ENVELOPES);
    const env = {
      ...process.env,
      NO_COLOR: '1',
      CI: '1',
      SIGN_BASE_URL: baseUrl,
      SIGN_API_KEY: apiKey,
      SIGN_STATE_DIR: join(dir, 'state'),
      SIGN_CONFIG_DIR: join(dir, 'config'),
    };
    const child = spawn(
      process.execPath,
      [BIN, 'envelopes', 'create', '--ndjson', '-f', file, '--rate', String(RATE), '--json'],
      { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const arrivals = [];
    let burstAt;
    let last429 = 0;
    let seen429 = 0;
    // Watch the sandbox's 429 count to know when the burst really ended.
    const watcher = setInterval(async () => {
      const state = await control('/_sandbox/state').catch(() => undefined);
      const count = state?.by_status?.['429'] ?? 0;
      if (count > seen429) {
        seen429 = count;
        last429 = performance.now();
      }
    }, 50);
    createInterface({ input: child.stdout }).on('line', () => {
      arrivals.push(performance.now());
      if (arrivals.length === WARMUP_LINES) {
        burstAt = performance.now();
        void control('/_sandbox/faults', { fail_before_commit: BURST, fail_status: 429 });
      }
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    clearInterval(watcher);
    const state = await control('/_sandbox/state');
    await stop(sandbox.child);

    // Baseline: the pace over the warm-up, first answer excluded (start-up).
    const warm = arrivals.slice(50, WARMUP_LINES);
    const baseline = ((warm.length - 1) * 1000) / (warm.at(-1) - warm[0]);
    const afterBurst = arrivals.map((at, i) => ({ at, i })).filter(({ at }) => at > last429);
    const back = afterBurst.find(
      ({ i, at }) => at - last429 >= BIN_MS && rateAt(arrivals, i) >= 0.95 * baseline,
    );
    const lowest = Math.min(
      ...afterBurst.filter(({ at }) => at - last429 >= BIN_MS).map(({ i }) => rateAt(arrivals, i)),
    );
    const recoverySeconds = back ? (back.at - last429) / 1000 : Number.POSITIVE_INFINITY;
    const burstSeconds = (last429 - burstAt) / 1000;
    rows.push([
      'full pace before the burst (baseline)',
      `${baseline.toFixed(1)}/s = ${((baseline * 60) / RATE).toFixed(3)} of ${RATE}/min`,
    ]);
    rows.push(['burst', `${seen429} x 429 over ${burstSeconds.toFixed(1)} s`]);
    rows.push([
      'slowest 1 s after the burst',
      `${lowest.toFixed(1)}/s = ${(lowest / baseline).toFixed(2)} of the baseline`,
    ]);
    rows.push([
      'back to full pace (>= 0.95 of baseline)',
      back ? `${recoverySeconds.toFixed(1)} s after the last 429 (target <= 60 s)` : 'never, within the run',
    ]);
    rows.push([
      'envelopes',
      `${state.envelopes}/${ENVELOPES} created; exit ${code}; ${state.rate_limited} x 429 from the limit itself`,
    ]);
    ok = recoverySeconds <= 60 && state.envelopes === ENVELOPES && code === 0 && state.rate_limited === 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { name: `pacing after a burst of 429s (limit ${RATE}/min)`, rows, ok };
}
