// Listener throughput: verified events per second from `sign-cli webhooks listen --json`
// against a bare node:http server (reads the body, answers 200) measured in the same run,
// and the listener's memory after 100,000+ distinct events.
//
// The load comes from wrk (one thread, 64 connections), not from a Node client: an
// undici generator needs about a core of its own and, on a small host, takes it from the
// server being measured, unevenly (on a 2-core host: 0.65 with it, 0.80 with wrk, which
// needs about half a core; printed below). wrk cannot sign, so each round's deliveries
// are signed beforehand (distinct ids, one file per round) and bench/wrk-post.lua rotates
// through them; both servers get the very same requests. Rounds alternate which server
// goes first, and the headline is the median of the per-round ratios.
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { newStandardSecret, signStandard } from '../dist/core/index.js';
import { benchInspect } from './listener-inspect.mjs';
import { BIN, ROOT, rssMb, spawnServer, stop } from './util.mjs';

const ROUNDS = Number(process.env.BENCH_LISTENER_ROUNDS ?? 7);
const SECONDS = Number(process.env.BENCH_LISTENER_SECONDS ?? 3);
/** Connections wrk keeps busy (BENCH_LISTENER_CONNECTIONS to change). */
const CONNECTIONS = Number(process.env.BENCH_LISTENER_CONNECTIONS ?? 64);
const WARMUP_SECONDS = 2;
const WARMUP_EVENTS = 20_000;
const LUA = join(ROOT, 'bench', 'wrk-post.lua');

/** Finds wrk; installs it with apt-get when missing and running as root (Debian/Ubuntu). */
function ensureWrk() {
  const found = () => spawnSync('wrk', ['-v'], { encoding: 'utf8' }).error === undefined;
  if (found()) return { ok: true };
  const hint =
    'the listener bench needs wrk: `sudo apt-get install wrk` (Debian/Ubuntu) or `brew install wrk` (macOS)';
  if (process.platform !== 'linux' || process.getuid?.() !== 0 || spawnSync('apt-get', ['--version']).error)
    return { ok: false, hint };
  console.error('bench: installing wrk with apt-get (running as root)…');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  spawnSync('apt-get', ['install', '-y', '-qq', 'wrk'], { stdio: 'inherit', env });
  return found() ? { ok: true } : { ok: false, hint };
}

/** Writes `count` signed deliveries with distinct ids, one per line, for bench/wrk-post.lua. */
async function writeDeliveries(path, secret, count, prefix) {
  const out = createWriteStream(path);
  const now = Math.floor(Date.now() / 1000);
  for (let i = 0; i < count; i++) {
    const id = `evt_${prefix}${i.toString(36).padStart(8, '0')}`;
    const body = JSON.stringify({
      id,
      type: 'signer.signed',
      timestamp: new Date().toISOString(),
      data: {
        envelope_id: `env_${i}`,
        contract_id: 'CTR-1',
        envelope_status: 'sent',
        signer: { id: 'sgn_1', name: 'Layla Haddad', channel: 'email', order: 1, status: 'signed' },
      },
    });
    const headers = signStandard(secret, id, now, body);
    if (!out.write(`${id}\t${headers['webhook-timestamp']}\t${headers['webhook-signature']}\t${body}\n`))
      await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return count;
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}

/** One wrk run against a server; returns its rate, answers, and wrk's and the server's CPU (in cores). */
function runWrk(server, file, seconds) {
  const serverCpu = cpuSeconds(server.child.pid);
  // `times` after wrk gives the CPU wrk used (the shell's children): the generator's share.
  const script = 'wrk "$@"; status=$?; times; exit $status';
  const args = [
    '-c',
    script,
    'wrk',
    '-t1',
    `-c${CONNECTIONS}`,
    `-d${seconds}s`,
    '-s',
    LUA,
    `${server.url}/webhooks`,
    '--',
    file,
  ];
  const run = spawnSync('bash', args, { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`wrk failed (${run.status}): ${run.stderr || run.stdout}`);
  const text = run.stdout;
  const number = (re) => Number(re.exec(text)?.[1] ?? NaN);
  const requests = number(/(\d+) requests in ([\d.]+)(m?s)/);
  const elapsed = (() => {
    const m = /\d+ requests in ([\d.]+)(m?s)/.exec(text);
    return m ? Number(m[1]) / (m[2] === 'ms' ? 1000 : 1) : seconds;
  })();
  const [, user = '0m0s', sys = '0m0s'] = /\n(\d+m[\d.]+s) (\d+m[\d.]+s)\s*$/.exec(text) ?? [];
  const toSeconds = (t) => Number(/(\d+)m/.exec(t)[1]) * 60 + Number(/m([\d.]+)s/.exec(t)[1]);
  const socketErrors =
    /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/
      .exec(text)
      ?.slice(1)
      .map(Number)
      .reduce((a, b) => a + b, 0) ?? 0;
  return {
    perSecond: number(/Requests\/sec:\s+([\d.]+)/),
    requests,
    failed: number(/Non-2xx or 3xx responses: (\d+)/) || 0,
    socketErrors,
    generatorCores: (toSeconds(user) + toSeconds(sys)) / elapsed,
    serverCores: (cpuSeconds(server.child.pid) - serverCpu) / elapsed,
    elapsed,
  };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const cores = (values) => `${median(values).toFixed(2)} core`;

export async function benchListener() {
  const title = `webhooks listen under wrk (-t1 -c${CONNECTIONS}, ${ROUNDS} alternating rounds of ${SECONDS} s)`;
  const wrk = ensureWrk();
  if (!wrk.ok) return { name: title, rows: [['not run', wrk.hint]], ok: false };

  const dir = mkdtempSync(join(tmpdir(), 'sign-cli-bench-listener-'));
  const secret = newStandardSecret();
  const bare = await spawnServer([`${ROOT}bench/bare-server.mjs`]);
  // The listener's event lines go to /dev/null: it still formats and writes every one.
  const listener = await spawnServer(
    [BIN, 'webhooks', 'listen', '--port', '0', '--json'],
    { SIGN_WEBHOOK_SECRET: secret },
    { stdout: 'ignore' },
  );
  try {
    const warmFile = join(dir, 'warm.tsv');
    await writeDeliveries(warmFile, secret, WARMUP_EVENTS, 'w');
    runWrk(bare, warmFile, WARMUP_SECONDS);
    const warm = runWrk(listener, warmFile, WARMUP_SECONDS);
    const rssWarm = rssMb(listener.child.pid);
    // Enough distinct deliveries per round that the listener never sees an id twice.
    const perRound = Math.max(20_000, Math.ceil(warm.perSecond * SECONDS * 2));

    const bareRuns = [];
    const listenerRuns = [];
    let distinct = WARMUP_EVENTS;
    let repeated = false;
    let firstRound;
    for (let round = 0; round < ROUNDS; round++) {
      const file = join(dir, `round-${round}.tsv`);
      await writeDeliveries(file, secret, perRound, `r${round}_`);
      firstRound ??= file;
      const order = round % 2 === 0 ? ['bare', 'listener'] : ['listener', 'bare'];
      for (const which of order) {
        const result = runWrk(which === 'bare' ? bare : listener, file, SECONDS);
        if (which === 'bare') bareRuns.push(result);
        else {
          listenerRuns.push(result);
          distinct += Math.min(result.requests, perRound);
          repeated ||= result.requests > perRound;
        }
      }
    }
    const rssAfter = rssMb(listener.child.pid);
    // Redeliveries of ids already seen: duplicates, and memory must still not grow.
    runWrk(listener, firstRound, 1);
    const rssAfterDuplicates = rssMb(listener.child.pid);

    // The listener with and without --inspect, on a Node with node:sqlite (listener-inspect.mjs).
    await stop(bare.child);
    const inspect = await benchInspect({
      dir,
      secret,
      rounds: ROUNDS,
      seconds: SECONDS,
      warmFile,
      runWrk,
      deliveriesFor: async (round, scale = 1) => {
        const file = join(dir, `inspect-${round}.tsv`);
        await writeDeliveries(file, secret, perRound * scale, `i${round}_`);
        return file;
      },
    });

    const ratios = listenerRuns.map((run, i) => run.perSecond / bareRuns[i].perSecond).sort((a, b) => a - b);
    const ratio = median(ratios);
    const rates = (runs) => runs.map((run) => run.perSecond);
    const answered = listenerRuns.reduce((n, run) => n + run.requests, 0);
    const failed = [...bareRuns, ...listenerRuns].reduce((n, run) => n + run.failed + run.socketErrors, 0);
    return {
      name: title,
      rows: [
        [
          'bare node:http (baseline), median / best',
          `${Math.round(median(rates(bareRuns)))} / ${Math.round(Math.max(...rates(bareRuns)))} req/s (server ${cores(bareRuns.map((r) => r.serverCores))}, wrk ${cores(bareRuns.map((r) => r.generatorCores))})`,
        ],
        [
          'webhooks listen --json, median / best',
          `${Math.round(median(rates(listenerRuns)))} / ${Math.round(Math.max(...rates(listenerRuns)))} verified events/s (server ${cores(listenerRuns.map((r) => r.serverCores))}, wrk ${cores(listenerRuns.map((r) => r.generatorCores))})`,
        ],
        [
          'ratio listener / baseline, median of rounds',
          `${ratio.toFixed(2)} (target >= 0.70; rounds ranged ${ratios[0].toFixed(2)}-${ratios.at(-1).toFixed(2)})`,
        ],
        [
          'answers',
          `${answered} deliveries to the listener, ${failed} non-2xx or socket errors in all; ids ${repeated ? 'REPEATED within a round (raise the per-round count)' : 'distinct'}`,
        ],
        ['listener RSS after warm-up', `${rssWarm} MB`],
        [`listener RSS after ${distinct} distinct events`, `${rssAfter} MB (target < 150 MB)`],
        ['listener RSS after 1 s of duplicates', `${rssAfterDuplicates} MB`],
        ...inspect.rows,
      ],
      ok: failed === 0 && !repeated && ratio >= 0.7 && rssAfter < 150 && inspect.ok,
    };
  } finally {
    await stop(bare.child);
    await stop(listener.child);
    rmSync(dir, { recursive: true, force: true });
  }
}
