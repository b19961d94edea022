// Start-up time: the wall time of five everyday commands, on the Node users run (Node 24 from
// the registry) first, then on this machine's Node, each next to `node -e 0` of the same Node
// in the same run; then the single executable (dist/exe, built again if older than the CLI)
// next to the bare start of the Node it carries. Every binary is first dropped from the page
// cache (evictFromPageCache). Rounds are interleaved (baseline, then each command, again and
// again) so a host whose speed drifts affects all of them alike; each time is the median of its
// runs, and each ratio is the median of the per-round ratios (a command's run over the baseline's
// run of the same round), as the listener bench does: on a shared VM whose speed moves by a
// quarter within a minute, a ratio of medians moved by 0.2 between identical runs.
import { execFileSync, spawnSync } from 'node:child_process';
import { interleaved } from './interleaved.mjs';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, ROOT } from './util.mjs';
import { HOST_TARGET, registryNode } from '../scripts/build/registry-node.mjs';
import { EXE_NODE_VERSION } from '../scripts/build/build-exe-settings.mjs';

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 21);
const WARMUP = 2;
/** The Node users run, measured first (SIGN_BENCH_NODE=24 by default; a version or range of the registry's). */
const USERS_NODE = process.env.SIGN_BENCH_NODE ?? '24';

/** [label, argv after the launcher, target ratio to `node -e 0`] (issue 27's targets). */
const COMMANDS = [
  ['--version', ['--version'], 1.15],
  ['--help', ['--help'], 1.3],
  ['keys list --local', ['keys', 'list', '--local'], 1.5],
  ['envelopes validate examples/envelope.json', ['envelopes', 'validate', 'examples/envelope.json'], 1.6],
  [
    'envelopes create -f examples/envelope.json --dry-run',
    ['envelopes', 'create', '-f', 'examples/envelope.json', '--dry-run'],
    1.6,
  ],
];
/** The single executable: --help within 1.2 of its Node's bare start; the others reported. */
const EXE_TARGETS = { '--help': 1.2 };

/** How many modules of the bundle each command loads on `node` (require.cache at exit; undefined if not reported). */
function moduleCounts(node, env) {
  return COMMANDS.map(([, args]) => {
    const result = spawnSync(node, ['--import', join(ROOT, 'bench', 'count-modules.mjs'), BIN, ...args], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
    });
    const match = /sign-cli modules loaded: (\d+)/.exec(result.stderr ?? '');
    return match ? Number(match[1]) : undefined;
  });
}

/** Rows for one runtime: its baseline, then each command's time and ratio against its target (and modules loaded). */
function rowsFor(label, measured, commands, modules = []) {
  const [base, ...rest] = measured;
  const rows = [[`${label}: node -e 0 (baseline)`, `${base.ms.toFixed(1)} ms`]];
  let ok = true;
  commands.forEach(([name, , target], i) => {
    const { ratio } = rest[i];
    const verdict =
      target === undefined
        ? ''
        : `  (target <= ${target.toFixed(2)}: ${ratio <= target ? 'met' : 'NOT met'})`;
    if (target !== undefined) ok &&= ratio <= target;
    const loaded = modules[i] === undefined ? '' : `  ${modules[i]} modules`;
    rows.push([
      `${label}: sign-cli ${name}`,
      `${rest[i].ms.toFixed(1)} ms  ratio ${ratio.toFixed(2)}${verdict}${loaded}`,
    ]);
  });
  return { rows, ok };
}

export async function benchStartup() {
  const home = mkdtempSync(join(tmpdir(), 'sign-cli-bench-startup-'));
  // A user's environment without our variables; config and state in a scratch dir.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('SIGN_') && name !== 'FORCE_COLOR' && name !== 'NODE_COMPILE_CACHE',
    ),
  );
  Object.assign(env, {
    NO_COLOR: '1',
    CI: '1',
    SIGN_CONFIG_DIR: join(home, 'config'),
    SIGN_STATE_DIR: join(home, 'state'),
    SIGN_CACHE_DIR: join(home, 'cache'),
    TMPDIR: join(home, 'tmp'),
  });
  mkdirSync(env.TMPDIR);
  try {
    // One stored profile, so `keys list --local` reads a real config file and draws a table.
    const add = spawnSync(
      process.execPath,
      [BIN, 'keys', 'add', 'bench', '--stdin', '--offline', '--expires', '2099-01-01'],
      { cwd: ROOT, env, input: 'sk_test_benchstartup0000000000001234\n' },
    );
    if (add.status !== 0) throw new Error(`keys add failed: ${add.stderr}`);

    const nodes = [
      [registryNode(HOST_TARGET, USERS_NODE), `Node ${USERS_NODE}`],
      [process.execPath, `Node ${process.versions.node.split('.')[0]} (this machine)`],
    ];
    const rows = [];
    let ok = true;
    for (const [node, name] of nodes) {
      const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
      const measured = interleaved(
        [[node, ['-e', '0']], ...COMMANDS.map(([, args]) => [node, [BIN, ...args]])],
        env,
        { runs: RUNS, warmup: WARMUP },
      );
      const result = rowsFor(`${name} (${version})`, measured, COMMANDS, moduleCounts(node, env));
      rows.push(...result.rows);
      ok &&= result.ok;
    }

    // The single executable, against the bare start of the Node it carries.
    const exe = join(ROOT, 'dist', 'exe', `sign-cli-${HOST_TARGET}`);
    // Built again when the CLI was built after it: the executable measured is this source's.
    const stale =
      !existsSync(exe) || statSync(exe).mtimeMs < statSync(join(ROOT, 'dist', 'cli', 'main.cjs')).mtimeMs;
    if (stale)
      execFileSync(process.execPath, [join(ROOT, 'scripts', 'build', 'build-exe.mjs')], {
        env: { ...process.env, SIGN_EXE_TARGETS: HOST_TARGET },
        stdio: 'inherit',
      });
    const exeNode = registryNode(HOST_TARGET, EXE_NODE_VERSION);
    const exeCommands = COMMANDS.map(([name, args]) => [name, args, EXE_TARGETS[name]]);
    const measured = interleaved(
      [[exeNode, ['-e', '0']], ...exeCommands.map(([, args]) => [exe, args])],
      env,
      { runs: RUNS, warmup: WARMUP },
    );
    const result = rowsFor(`single executable (Node ${EXE_NODE_VERSION})`, measured, exeCommands);
    rows.push(
      ...result.rows.map(([label, value]) => [
        label.replace(': node -e 0 (baseline)', `: its node -e 0 (baseline)`).replace(': sign-cli ', ': '),
        value,
      ]),
    );
    ok &&= result.ok;
    return {
      name: `start-up (median of ${RUNS} interleaved rounds each; ratio: median of the per-round ratios to node -e 0 of the same Node)`,
      rows,
      ok,
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
