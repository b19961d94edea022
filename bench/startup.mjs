// Start-up time: the wall time of five everyday commands, run through the
// launcher users run (bin/sign-cli.js), next to `node -e 0` measured in the
// same run. Rounds are interleaved (baseline, then each command, again and
// again) so a host whose speed drifts affects all of them alike; each figure is
// the median of its runs and each ratio is a ratio of medians.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, ROOT } from './util.mjs';

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 15);
const WARMUP = 2;

/** [label, argv after the launcher, target ratio to `node -e 0`] */
const COMMANDS = [
  ['sign-cli --version', ['--version'], 1.2],
  ['sign-cli --help', ['--help'], 1.5],
  ['sign-cli keys list --local', ['keys', 'list', '--local'], 1.8],
  ['sign-cli envelopes validate examples/envelope.json', ['envelopes', 'validate', 'examples/envelope.json'], 2.0],
  ['sign-cli envelopes create -f examples/envelope.json --dry-run', ['envelopes', 'create', '-f', 'examples/envelope.json', '--dry-run'], 2.0],
];

function timed(args, env) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) {
    throw new Error(`${args.join(' ')} exited with ${result.status ?? result.signal}: ${String(result.stderr).slice(0, 500)}`);
  }
  return ms;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export async function benchStartup() {
  const home = mkdtempSync(join(tmpdir(), 'sign-cli-bench-startup-'));
  // A user's environment without our variables; config and state in a scratch dir.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SIGN_') && name !== 'FORCE_COLOR'));
  Object.assign(env, { NO_COLOR: '1', CI: '1', SIGN_CONFIG_DIR: join(home, 'config'), SIGN_STATE_DIR: join(home, 'state') });
  try {
    // One stored profile, so `keys list --local` reads a real config file and draws a table.
    const add = spawnSync(process.execPath, [BIN, 'keys', 'add', 'bench', '--stdin', '--offline', '--expires', '2099-01-01'], { cwd: ROOT, env, input: 'sk_test_benchstartup0000000000001234\n' });
    if (add.status !== 0) throw new Error(`keys add failed: ${add.stderr}`);

    const baseline = ['-e', '0'];
    const all = [baseline, ...COMMANDS.map(([, args]) => [BIN, ...args])];
    for (let i = 0; i < WARMUP; i++) for (const args of all) timed(args, env);
    const times = all.map(() => []);
    for (let round = 0; round < RUNS; round++) {
      // Rotate the order each round: no command always follows the same one.
      for (let k = 0; k < all.length; k++) {
        const i = (k + round) % all.length;
        times[i].push(timed(all[i], env));
      }
    }
    const base = median(times[0]);
    const rows = [['node -e 0 (baseline)', `${base.toFixed(1)} ms`]];
    let ok = true;
    COMMANDS.forEach(([label, , target], index) => {
      const ms = median(times[index + 1]);
      const ratio = ms / base;
      const met = ratio <= target;
      ok &&= met;
      rows.push([label, `${ms.toFixed(1)} ms  ratio ${ratio.toFixed(2)}  (target <= ${target.toFixed(1)}: ${met ? 'met' : 'NOT met'})`]);
    });
    return { name: `start-up (median of ${RUNS} interleaved runs each, ratio to node -e 0)`, rows, ok };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
