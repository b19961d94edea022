// A real redis-server for the benchmarks that share state between runners (rate-store, journal):
// found on the PATH, or installed from the Debian package when missing and possible; started on
// a free port of 127.0.0.1 with no persistence.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The path of redis-server, installing it with apt-get when missing (as root or with sudo -n); undefined when it cannot be had. */
export function redisServer() {
  const find = () => {
    try {
      return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim() || undefined;
    } catch {
      return undefined;
    }
  };
  const found = find();
  if (found) return found;
  try {
    const sudo = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
    execFileSync(
      'sh',
      [
        '-c',
        `${sudo.join(' ')} apt-get update -qq && DEBIAN_FRONTEND=noninteractive ${sudo.join(' ')} apt-get install -y -qq redis-server`,
      ],
      { stdio: 'ignore' },
    );
  } catch {
    // not root, or no package source: the caller reports the benchmark as skipped
  }
  return find();
}

export const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/** Starts `binary` on a free port; resolves once it answers PING, with the child and its redis:// URL. */
export async function startRedis(binary) {
  const port = await freePort();
  const child = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 100; i++) {
    try {
      execFileSync(binary.replace(/redis-server$/, 'redis-cli'), ['-p', String(port), 'ping'], {
        stdio: 'ignore',
      });
      return { child, url: `redis://127.0.0.1:${port}` };
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  child.kill('SIGKILL');
  throw new Error('redis-server did not start');
}

/**
 * A benchmark that needs Redis: `measure({ dir, url })` with a redis-server and a scratch
 * directory of its own, both gone afterwards; skipped, and said so, where redis-server cannot be had.
 */
export async function withRedisBench(name, dirPrefix, measure) {
  const binary = redisServer();
  if (!binary)
    return {
      name,
      rows: [['skipped', 'redis-server is not installed and could not be (apt-get install redis-server)']],
      ok: true,
    };
  const dir = mkdtempSync(join(tmpdir(), dirPrefix));
  const redis = await startRedis(binary);
  try {
    const { rows, ok } = await measure({ dir, url: redis.url });
    return { name, rows, ok };
  } finally {
    redis.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}
