/**
 * The built binary, spawned as a user runs it. Importing this builds dist/
 * first when src/ is newer (fresh-build.ts); in-process tests use
 * in-process.ts and paths.ts instead, and never wait for a build.
 */
import { spawn } from 'node:child_process';
import { ensureFreshBuild } from './fresh-build.js';
import { BIN, ROOT, tempDir, type CliResult } from './paths.js';

export { BIN, ROOT, tempDir, type CliResult } from './paths.js';

ensureFreshBuild();

let codeCacheDir: string | undefined;

/** The environment a user's shell would give, minus anything of ours that could leak in. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('SIGN_') && name !== 'FORCE_COLOR') env[name] = value;
  }
  // No keychain of the desktop the tests may run in: a test that wants one starts its own (secret-service.ts).
  delete env.DBUS_SESSION_BUS_ADDRESS;
  // Elsewhere the keychain needs no session: off, unless a test asks for it.
  if (process.platform !== 'linux') env.SIGN_KEYCHAIN = 'off';
  env.NO_COLOR = '1';
  env.SIGN_CONFIG_DIR ??= tempDir('sign-cli-config-');
  // Create journals stay out of the real state dir; tests sharing one pass SIGN_STATE_DIR.
  env.SIGN_STATE_DIR ??= tempDir('sign-cli-state-');
  // The launcher's code caches (src/cli/launch): one directory for the run's CLIs, not the home's.
  env.SIGN_CACHE_DIR ??= codeCacheDir ??= tempDir('sign-cli-cache-');
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** Runs the built binary as a user would, with the given stdin. */
export function runCli(
  args: string[],
  options: {
    env?: Record<string, string | undefined>;
    input?: string;
    cwd?: string;
    timeoutMs?: number;
  } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? ROOT,
      env: cleanEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}
