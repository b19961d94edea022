/**
 * A real redis-server for the shared rate budget tests, on a free port of
 * 127.0.0.1, with no persistence. redis-server is a Debian package, not an npm
 * one: `.ci/run` installs it and sets SIGN_REQUIRE_REDIS=1, so there a missing
 * server fails; elsewhere (`npm ci && npm test` on a bare machine) the tests
 * that need it are skipped, and say why.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

function findRedisServer(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

export const REDIS_SERVER = findRedisServer();
const required = process.env.SIGN_REQUIRE_REDIS === '1';
if (!REDIS_SERVER && required)
  throw new Error('SIGN_REQUIRE_REDIS=1 but redis-server is not installed (apt-get install redis-server)');
/** For describe.skipIf: true when the tests that need a Redis cannot run here. */
export const NO_REDIS = REDIS_SERVER === undefined;
if (NO_REDIS)
  console.warn(
    'redis-server is not installed: the shared rate budget tests are skipped (apt-get install redis-server)',
  );

export interface RedisProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** With `appendonly`: where the AOF is (the caller's `dir`, or a private one made here). */
  dir: string | undefined;
  /**
   * Stops the server and waits for its exit. A directory made here is removed
   * then, unless `keepDir` (to start it again from its AOF: pass the same
   * `port` and `dir`; that `dir` is then the caller's to remove).
   */
  stop(signal?: NodeJS.Signals, options?: { keepDir?: boolean }): Promise<void>;
}

/**
 * Starts redis-server (with `password`: it requires it) and resolves once it accepts connections.
 * `port`: that one (a server started again where a stopped one was), instead of a free one.
 * `appendonly`: appendonly yes, fsync every second, in `dir` (default a private temporary
 * directory): a server SIGKILLed and started again on the same port and `dir` has what it had.
 */
export async function startRedis(
  options: { password?: string; port?: number; appendonly?: boolean; dir?: string } = {},
): Promise<RedisProcess> {
  if (!REDIS_SERVER) throw new Error('redis-server is not installed');
  const madeDir =
    options.appendonly && options.dir === undefined
      ? mkdtempSync(join(tmpdir(), 'sign-cli-redis-'))
      : undefined;
  const dir = options.appendonly ? (options.dir ?? madeDir) : undefined;
  const removeDir = () => {
    if (madeDir) rmSync(madeDir, { recursive: true, force: true });
  };
  const persistence = dir
    ? ['--appendonly', 'yes', '--appendfsync', 'everysec', '--dir', dir]
    : ['--appendonly', 'no'];
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort());
    const auth = options.password === undefined ? [] : ['--requirepass', options.password];
    const child = spawn(
      REDIS_SERVER,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        ...persistence,
        '--loglevel',
        'warning',
        ...auth,
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let log = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
    const ready = await waitForPort(port, child);
    if (ready) {
      return {
        url:
          options.password === undefined
            ? `redis://127.0.0.1:${port}`
            : `redis://:${encodeURIComponent(options.password)}@127.0.0.1:${port}`,
        port,
        child,
        dir,
        stop: async (signal = 'SIGTERM', stopOptions = {}) => {
          await new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill(signal);
          });
          if (!stopOptions.keepDir) removeDir();
        },
      };
    }
    child.kill('SIGKILL');
    // Another process took the port between the probe and the start: try another.
    if (attempt >= 3 || options.port !== undefined) {
      removeDir();
      throw new Error(`redis-server did not start: ${log}`);
    }
  }
}

async function waitForPort(port: number, child: ChildProcess): Promise<boolean> {
  const { connect } = await import('node:net');
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) return false;
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}
