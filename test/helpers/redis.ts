/**
 * A real redis-server for the shared rate budget tests, on a free port of
 * 127.0.0.1, with no persistence. redis-server is a Debian package, not an npm
 * one: `.ci/run` installs it and sets SIGN_REQUIRE_REDIS=1, so there a missing
 * server fails; elsewhere (`npm ci && npm test` on a bare machine) the tests
 * that need it are skipped, and say why.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
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
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts redis-server (with `password`: it requires it) and resolves once it accepts connections. */
export async function startRedis(options: { password?: string } = {}): Promise<RedisProcess> {
  if (!REDIS_SERVER) throw new Error('redis-server is not installed');
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
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
        '--appendonly',
        'no',
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
        stop: (signal = 'SIGTERM') =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill(signal);
          }),
      };
    }
    child.kill('SIGKILL');
    // Another process took the port between the probe and the start: try another.
    if (attempt >= 3) throw new Error(`redis-server did not start: ${log}`);
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
