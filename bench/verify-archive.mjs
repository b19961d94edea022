// `envelopes verify <dir>` over the real-world corpus (../shared/pades-realworld or
// SIGN_PADES_CORPUS: 189 PDFs other software signed) in one process, next to poppler's pdfsig run
// once per file by a shell loop, as a person would verify a folder with it. Interleaved rounds
// (rotated each round, so a host whose speed drifts affects every command alike), each ratio the
// median of the per-round ratios to the pdfsig loop of the same round; the wall time and the CPU
// time (user + system, every thread and child) from GNU time, and the load average of the machine
// before and after (the machine is shared: a loaded one stretches every wall time).
// Two ways of sign-cli: the default (worker threads: one per eight files, up to one per core and
// four) and the command's own thread (SIGN_VERIFY_THREADS=0). Then memory against the number of
// files: the peak resident memory (GNU time's, of the process and all its threads) of the default
// run over one copy of the corpus, then three and nine copies in one run (hard links, or copies
// across file systems, made in TMPDIR and removed).
// Targets: the default run at most 1.5 times the pdfsig loop (aim: 1), and its peak memory over
// three and nine copies within 1.25 times that over one.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { BIN, ROOT, isolatedEnv } from './util.mjs';
import { median } from './interleaved.mjs';
import { HOST_TARGET, registryNode } from '../scripts/build/registry-node.mjs';

const ROUNDS = Number(process.env.BENCH_VERIFY_ARCHIVE_ROUNDS ?? 5);
const TARGET = 1.5;
const AIM = 1;
const FLAT = 1.25;
/** The copies of the corpus the memory is measured over, against one. */
const COPIES = [3, 9];
/** Runs per size of the memory measure: the highest peak of them is taken. */
const MEMORY_RUNS = Number(process.env.BENCH_VERIFY_ARCHIVE_MEMORY_RUNS ?? 3);
const CORPUS = process.env.SIGN_PADES_CORPUS || join(ROOT, '..', 'shared', 'pades-realworld');
const TIME = '/usr/bin/time';

const which = (command) => {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : null;
};

/** Every *.pdf under `dir`, relative to it. */
const pdfsUnder = (dir) =>
  readdirSync(dir, { recursive: true })
    .map(String)
    .filter((name) => name.toLowerCase().endsWith('.pdf'))
    .sort();

/**
 * One run under GNU time: wall ms, CPU ms (user + system) and peak RSS in MB (of the largest process
 * of the command). `exits`: the exit codes the command may end with (verify's 1: untrusted roots).
 */
function measured(command, args, env, exits = [0]) {
  const report = join(env.TMPDIR, `time-${process.pid}.txt`);
  const started = process.hrtime.bigint();
  const result = spawnSync(TIME, ['-o', report, '-f', '%U %S %M', command, ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const lines = readFileSync(report, 'utf8').trim().split('\n');
  if (!exits.includes(result.status))
    throw new Error(
      `${command} ${args.join(' ')} exited with ${result.status}: ${String(result.stderr).slice(0, 500)}`,
    );
  const [user, system, kb] = lines.at(-1).split(' ').map(Number);
  return { ms, cpuMs: (user + system) * 1000, rssMb: kb / 1024 };
}

/** The corpus again, `copies` times, under `dir` (hard links where the file system allows, else copies). */
function replicate(files, dir, copies) {
  for (let copy = 1; copy <= copies; copy++)
    for (const file of files) {
      const to = join(dir, String(copy), file);
      mkdirSync(dirname(to), { recursive: true });
      try {
        linkSync(join(CORPUS, file), to);
      } catch {
        copyFileSync(join(CORPUS, file), to);
      }
    }
}

const fmt = (run) => `${(run.ms / 1000).toFixed(2)} s wall, ${(run.cpuMs / 1000).toFixed(2)} s CPU`;
const load = () => loadavg()[0].toFixed(1);

export async function benchVerifyArchive() {
  const name = `verify of an archive: ${CORPUS.replace(`${dirname(ROOT)}/`, '../')} in one run of sign-cli against pdfsig once per file (median of ${ROUNDS} interleaved rounds; ratio: median of the per-round ratios to the pdfsig loop)`;
  const missing = [
    existsSync(join(CORPUS, 'expected.tsv')) ? null : `no corpus at ${CORPUS} (set SIGN_PADES_CORPUS)`,
    which('pdfsig') ? null : 'pdfsig is not installed (apt-get install poppler-utils)',
    existsSync(TIME) ? null : `no GNU time at ${TIME} (apt-get install time)`,
  ].filter(Boolean);
  if (missing.length > 0) return { name, rows: [['not measured', missing.join('; ')]], ok: true };

  const dir = mkdtempSync(join(tmpdir(), 'sign-cli-bench-archive-'));
  const env = isolatedEnv(dir);
  try {
    const files = pdfsUnder(CORPUS);
    const loop = `find "$1" -name '*.pdf' | sort | while IFS= read -r f; do pdfsig "$f" >/dev/null 2>&1; done`;
    const pdfsig = (target) => measured('sh', ['-c', loop, 'sh', target], env);
    // As verify-many.ts counts them: one per eight files, up to one per core and four.
    const threads = Math.min(Math.floor(files.length / 8), availableParallelism(), 4);
    const rows = [
      [
        'PDFs',
        `${files.length}; the default run on ${threads} worker threads (one per eight files, up to one per core and four)`,
      ],
      ['load average (1 min) at the start', load()],
    ];
    let ok = true;
    for (const [node, label] of [
      [registryNode(HOST_TARGET, '24'), 'Node 24'],
      [process.execPath, `Node ${process.versions.node.split('.')[0]} (this machine)`],
    ]) {
      const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
      // Exit 1: most of the corpus's roots are not trusted here.
      const verify = (extra) =>
        measured(node, [BIN, 'envelopes', 'verify', CORPUS], { ...env, ...extra }, [0, 1]);
      const runs = [() => pdfsig(CORPUS), () => verify({}), () => verify({ SIGN_VERIFY_THREADS: '0' })];
      for (const run of runs) run(); // warm-up: the page cache, the code caches
      const times = runs.map(() => []);
      for (let round = 0; round < ROUNDS; round++)
        for (let k = 0; k < runs.length; k++) {
          const i = (k + round) % runs.length;
          times[i].push(runs[i]());
        }
      const summary = times.map((own) => ({
        ms: median(own.map((r) => r.ms)),
        cpuMs: median(own.map((r) => r.cpuMs)),
        rssMb: Math.max(...own.map((r) => r.rssMb)),
        ratio: median(own.map((r, round) => r.ms / times[0][round].ms)),
      }));
      const [base, pool, single] = summary;
      const met = pool.ratio <= TARGET;
      if (label === 'Node 24') ok &&= met;
      rows.push([
        `${label} (${version}): pdfsig once per file (baseline)`,
        `${fmt(base)}, peak ${base.rssMb.toFixed(0)} MB (one pdfsig)`,
      ]);
      rows.push([
        `${label} (${version}): sign-cli, ${threads} worker threads (the default)`,
        `${fmt(pool)}, peak ${pool.rssMb.toFixed(0)} MB  ratio ${pool.ratio.toFixed(2)}  (aim <= ${AIM.toFixed(2)}, target <= ${TARGET.toFixed(2)}${label === 'Node 24' ? '' : ', reported'}: ${pool.ratio <= AIM ? 'aim met' : met ? 'target met, aim not' : 'NOT met'})`,
      ]);
      rows.push([
        `${label} (${version}): sign-cli, the command's own thread (SIGN_VERIFY_THREADS=0)`,
        `${fmt(single)}, peak ${single.rssMb.toFixed(0)} MB  ratio ${single.ratio.toFixed(2)}`,
      ]);
    }

    // Memory against the number of files, on Node 24: the default run over one copy and over more.
    const most = Math.max(...COPIES);
    replicate(files, join(dir, 'copies'), most);
    const node24 = registryNode(HOST_TARGET, '24');
    const peak = (targets) =>
      Math.max(
        ...Array.from(
          { length: MEMORY_RUNS },
          () => measured(node24, [BIN, 'envelopes', 'verify', ...targets], env, [0, 1]).rssMb,
        ),
      );
    const copiesOf = (n) => Array.from({ length: n }, (_, i) => join(dir, 'copies', String(i + 1)));
    const one = peak(copiesOf(1));
    const peaks = COPIES.map((n) => [n, peak(copiesOf(n))]);
    const flat = peaks.every(([, mb]) => mb / one <= FLAT);
    ok &&= flat;
    rows.push([
      `Node 24: peak memory of the default run (highest of ${MEMORY_RUNS}): ${files.length} PDFs, then ${COPIES.map((n) => files.length * n).join(' and ')}`,
      `${one.toFixed(0)} MB, ${peaks.map(([, mb]) => `${mb.toFixed(0)} MB`).join(', ')}  ratios ${peaks.map(([, mb]) => (mb / one).toFixed(2)).join(', ')}  (target <= ${FLAT.toFixed(2)}: ${flat ? 'met' : 'NOT met'})`,
    ]);
    rows.push(['load average (1 min) at the end', load()]);
    return { name, rows, ok };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
