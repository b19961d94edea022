// The shared create journal (`--journal-store`, a real redis-server on loopback), two measures:
// - what the journal costs one envelope, in process: take + record(sending) + record(created)
//   + release, as bulk.ts calls them, for the Redis journal and for the file journal (the
//   baseline), interleaved envelope by envelope; p50 and p95 of each, and the Redis journal's
//   extra cost at p50 (target < 1 ms);
// - three `envelopes create --ndjson` runners on one file and one store, each at the same
//   --rate, against one runner alone (the baseline): wall times, the speed-up, each runner's
//   share of what was sent, and what the sandbox holds (every line exactly once).
// The journals are TypeScript: esbuild bundles them into a temporary directory for this run.
// Needs redis-server (a Debian package): installed here when missing and possible.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { withRedisBench } from './redis.mjs';
import { BIN, ROOT, envelopesFile, spawnServer, stop } from './util.mjs';

const LINES = Number(process.env.BENCH_JOURNAL_LINES ?? 900);
// Per minute: 900 lines at 1,800/min is about 30 s for one runner, long enough that start-up is a small part.
const RATE = Number(process.env.BENCH_JOURNAL_RATE ?? 1800);
const OVERHEAD_N = Number(process.env.BENCH_JOURNAL_ENVELOPES ?? 2000);
const WARM_UP = 200;
const RUNNERS = 3;
const TARGET_MS = 1;

/** Both journals, bundled as the library build bundles the core (its dependencies inside, ESM). */
async function bundleJournals(dir) {
  const outfile = join(dir, 'journals.mjs');
  await esbuild.build({
    absWorkingDir: ROOT,
    stdin: {
      contents:
        "export { CreateJournal } from './src/core/journal/journal.ts';\nexport { RedisJournal } from './src/core/journal/redis-journal.ts';\nexport { createClient } from '@redis/client';\n",
      resolveDir: ROOT,
      sourcefile: 'bench-journals.ts',
      loader: 'ts',
    },
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    mainFields: ['module', 'main'],
    // @redis/client is CommonJS and calls require() for Node built-ins: an ESM bundle has none of its own.
    banner: {
      js: 'import { createRequire as __benchRequire } from "node:module"; const require = __benchRequire(import.meta.url);',
    },
    logLevel: 'warning',
  });
  return import(pathToFileURL(outfile).href);
}

/** The nearest-rank percentile of ascending `sorted`. */
const percentile = (sorted, p) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
const ms = (value) => `${value.toFixed(3)} ms`;

/** Per-envelope cost of each journal, the two interleaved so both see the same machine. */
async function overhead(dir, redisUrl) {
  const { CreateJournal, RedisJournal, createClient } = await bundleJournals(dir);
  const fingerprint = 'bench-fingerprint';
  mkdirSync(join(dir, 'state'), { mode: 0o700 });
  const file = new CreateJournal(join(dir, 'state', 'create-bench.jsonl'), fingerprint);
  const redis = await new RedisJournal({
    url: redisUrl,
    service: 'bench.invalid',
    environment: 'test',
    fingerprint,
  }).open();
  // The floor under the Redis journal: one bare round trip of the same client library.
  const client = createClient({ url: redisUrl });
  await client.connect();
  // As bulk.ts: take, then (a new input with a contract_id) the contract lookup, sending, the outcome, release.
  const envelope = async (journal, i) => {
    const id = `${i.toString(16).padStart(64, '0')}#1`;
    const base = { id, ref: `bench.ndjson:${i + 1}`, key: `bench-key-${i}` };
    const started = performance.now();
    await journal.take(id, { wait: false });
    const afterTake = performance.now();
    await journal.createdFor(`BENCH-${i}`);
    const afterLookup = performance.now();
    await journal.record({ ...base, state: 'sending' });
    await journal.record({
      ...base,
      state: 'created',
      envelope_id: `env_${i}`,
      contract_id: `BENCH-${i}`,
      at: new Date().toISOString(),
    });
    await journal.release(id);
    const done = performance.now();
    return { four: afterTake - started + (done - afterLookup), lookup: afterLookup - afterTake };
  };
  const times = { file: [], redis: [], fileLookup: [], redisLookup: [], ping: [] };
  try {
    for (let i = 0; i < WARM_UP + OVERHEAD_N; i++) {
      const f = await envelope(file, i);
      const r = await envelope(redis, i);
      const pinged = performance.now();
      await client.ping();
      const ping = performance.now() - pinged;
      if (i < WARM_UP) continue;
      times.file.push(f.four);
      times.redis.push(r.four);
      times.fileLookup.push(f.lookup);
      times.redisLookup.push(r.lookup);
      times.ping.push(ping);
    }
  } finally {
    file.close();
    await redis.close();
    await client.close();
  }
  for (const list of Object.values(times)) list.sort((a, b) => a - b);
  return {
    file: { p50: percentile(times.file, 0.5), p95: percentile(times.file, 0.95) },
    redis: { p50: percentile(times.redis, 0.5), p95: percentile(times.redis, 0.95) },
    lookup: { file: percentile(times.fileLookup, 0.5), redis: percentile(times.redisLookup, 0.5) },
    ping: percentile(times.ping, 0.5),
  };
}

/** CPU seconds a process has used so far, from /proc (Linux; clock ticks of 10 ms); NaN once it is gone. */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** The machine's busy and total CPU time so far, from /proc/stat (every process, not only this bench's). */
function machineCpu() {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  const total = ticks.reduce((sum, t) => sum + t, 0);
  return { busy: total - ticks[3] - ticks[4], total };
}

/** One `envelopes create` runner on a machine of its own (HOME, state, config); resolves with its output and time. */
function runner(dir, name, file, sandbox, store, started) {
  const home = join(dir, `home-${name}`);
  const env = { ...process.env };
  delete env.SIGN_RATE_STORE;
  delete env.SIGN_JOURNAL_STORE;
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
      String(RATE),
      '--json',
      '--journal-store',
      store,
    ],
    {
      cwd: ROOT,
      env: {
        ...env,
        NO_COLOR: '1',
        CI: '1',
        HOME: home,
        SIGN_STATE_DIR: join(home, 'state'),
        SIGN_CONFIG_DIR: join(home, 'config'),
        SIGN_BASE_URL: sandbox.baseUrl,
        SIGN_API_KEY: sandbox.apiKey,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  // A runner that hangs ends the bench with what it has, not never.
  const timer = setTimeout(() => child.kill('SIGKILL'), ((LINES / RATE) * 60 * 4 + 60) * 1000);
  // Its CPU time, read until it exits (a process's /proc entry goes with it).
  let cpu = 0;
  const sampler = setInterval(() => {
    const used = cpuSeconds(child.pid);
    if (!Number.isNaN(used)) cpu = used;
  }, 100);
  const lines = [];
  let stderr = '';
  createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      lines.push({ ...JSON.parse(line), at: performance.now() });
    } catch {
      // not an outcome line
    }
  });
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearInterval(sampler);
      // Its own sends, first to last: the pace it kept (start-up and the wait for others' claims left out).
      const sends = lines.filter((l) => l.status === 'created' && !l.skipped).map((l) => l.at);
      const pace = sends.length > 1 ? ((sends.length - 1) / (sends.at(-1) - sends[0])) * 60_000 : NaN;
      const match =
        /sent (\d+), created elsewhere (\d+): created (\d+)[^,]*(?:, already created (\d+))?, failed (\d+)/.exec(
          stderr,
        );
      resolve({
        code: code ?? signal,
        seconds: (performance.now() - started) / 1000,
        cpu,
        pace,
        lines,
        stderr,
        sent: match ? Number(match[1]) : NaN,
        elsewhere: match ? Number(match[2]) : NaN,
        failed: match ? Number(match[5]) : NaN,
      });
    });
  });
}

/** `count` runners at once on one file, one store and a sandbox of their own; resolves with their results and the sandbox's counts. */
async function runners(dir, name, count, store) {
  const sandbox = await spawnServer([
    BIN,
    'sandbox',
    '--port',
    '0',
    '--json',
    '--data-dir',
    join(dir, `sandbox-${name}`),
    '--rate-limit',
    '100000',
  ]);
  const { base_url: baseUrl, api_key: apiKey } = JSON.parse(sandbox.firstLine);
  const control = async (path) =>
    (await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${apiKey}` } })).json();
  try {
    const file = envelopesFile(dir, name, LINES, {
      title: `Journal bench ${name}`,
      contract: `JOURNAL-${name}`,
    });
    const machineBefore = machineCpu();
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        runner(dir, `${name}-${i}`, file, { baseUrl, apiKey }, store, started),
      ),
    );
    const machineAfter = machineCpu();
    const state = await control('/_sandbox/state');
    const { data } = await control('/_sandbox/envelopes');
    // Sent twice: a second request with the same key (replayed), or an envelope for a contract that has one already.
    const repeated = data.length - new Set(data.map((e) => e.contract_id)).size;
    return {
      results,
      seconds: Math.max(...results.map((r) => r.seconds)),
      // Cores busy on average, whoever used them: a machine near its core count bounds the speed-up, not the journal.
      coresBusy:
        ((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) *
        availableParallelism(),
      envelopes: state.envelopes,
      replayed: state.replayed,
      repeated,
      duplicates: state.replayed + repeated,
    };
  } finally {
    await stop(sandbox.child);
  }
}

const describeRunner = (r) =>
  `${r.seconds.toFixed(1)} s, exit ${r.code}; sent ${r.sent}${Number.isNaN(r.pace) ? '' : ` at ${Math.round(r.pace)}/min`}, created elsewhere ${r.elsewhere}, failed ${r.failed}; CPU ${r.cpu.toFixed(1)} s`;
const describeMachine = (run) =>
  `machine busy ${run.coresBusy.toFixed(2)} of ${availableParallelism()} cores (every process on it)`;

export async function benchJournal() {
  const name = `shared create journal (--journal-store): per-envelope cost, and ${RUNNERS} runners x ${LINES} lines at --rate ${RATE}/min each`;
  return withRedisBench(name, 'sign-cli-bench-journal-', async ({ dir, url }) => {
    const rows = [];
    let ok;
    const cost = await overhead(dir, url);
    const extra = cost.redis.p50 - cost.file.p50;
    rows.push([
      `file journal (baseline), ${OVERHEAD_N} envelopes: p50 / p95`,
      `${ms(cost.file.p50)} / ${ms(cost.file.p95)} per envelope (take + record sending + record created + release)`,
    ]);
    rows.push([
      `Redis journal on loopback, ${OVERHEAD_N} envelopes: p50 / p95`,
      `${ms(cost.redis.p50)} / ${ms(cost.redis.p95)} per envelope`,
    ]);
    rows.push([
      'Redis minus file at p50',
      `${ms(extra)} per envelope (target < ${TARGET_MS} ms: ${extra < TARGET_MS ? 'met' : 'NOT met'})`,
    ]);
    rows.push([
      'one bare Redis round trip (PING), p50',
      `${ms(cost.ping)}: the Redis journal makes 3 per envelope (take, sending, the outcome with the claim's release)`,
    ]);
    rows.push([
      'contract lookup (createdFor), p50',
      `file ${ms(cost.lookup.file)}, Redis ${ms(cost.lookup.redis)}: one more call for a new input with a contract_id`,
    ]);

    const one = await runners(dir, 'one', 1, url);
    const three = await runners(dir, 'three', RUNNERS, url);
    rows.push([
      'one runner (baseline)',
      `${describeRunner(one.results[0])}; ${one.envelopes} envelopes in the sandbox; ${describeMachine(one)}`,
    ]);
    const sentInAll = three.results.reduce((sum, r) => sum + r.sent, 0);
    three.results.forEach((r, i) =>
      rows.push([
        `${RUNNERS} runners: runner ${i + 1}`,
        `${describeRunner(r)}; share of sent ${((r.sent / sentInAll) * 100).toFixed(1)} %`,
      ]),
    );
    const speedUp = one.seconds / three.seconds;
    rows.push([
      `${RUNNERS} runners: wall time`,
      `${three.seconds.toFixed(1)} s against ${one.seconds.toFixed(1)} s alone: speed-up ${speedUp.toFixed(2)} (${RUNNERS} would be each runner pacing at its full --rate); ${describeMachine(three)}`,
    ]);
    rows.push([
      `${RUNNERS} runners: envelopes in the sandbox`,
      `${three.envelopes} of ${LINES} lines (target exactly ${LINES}); sent in all ${sentInAll}`,
    ]);
    rows.push([
      'duplicates',
      `${three.duplicates} with ${RUNNERS} runners (${three.replayed} sent again with their key, ${three.repeated} contracts created twice), ${one.duplicates} alone (target 0)`,
    ]);
    ok =
      extra < TARGET_MS &&
      three.duplicates === 0 &&
      one.duplicates === 0 &&
      three.envelopes === LINES &&
      one.envelopes === LINES &&
      [...one.results, ...three.results].every((r) => r.code === 0);
    return { rows, ok };
  });
}
