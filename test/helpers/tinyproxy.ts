/**
 * A real forward proxy for the proxy tests: tinyproxy (a Debian package, as a
 * corporate proxy would be something else that speaks the same HTTP), on a free
 * port of 127.0.0.1, in the foreground, its log read from its stdout. `.ci/run`
 * installs it, so in CI a missing tinyproxy fails; elsewhere the tests that
 * need it are skipped, and say why.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { missingTools } from './system-tools.js';
import { writeFileSync } from 'node:fs';
import { freePort } from './ports.js';
import { join } from 'node:path';
import { tempDir } from './paths.js';

/** For describe.skipIf: true when the tests that need a proxy cannot run here. */
export const NO_TINYPROXY = missingTools(['tinyproxy'], 'tinyproxy', 'the proxy tests');
const TINYPROXY = 'tinyproxy';

export interface ProxyProcess {
  url: string;
  /** The requests the proxy handled, as it logged them: `GET http://host:port/path`, `CONNECT host:443`. */
  requests(): string[];
  stop(): Promise<void>;
}

export async function startTinyproxy(): Promise<ProxyProcess> {
  const port = await freePort();
  const config = join(tempDir('sign-cli-tinyproxy-'), 'tinyproxy.conf');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'Listen 127.0.0.1',
      'Timeout 30',
      'LogLevel Info',
      'MaxClients 50',
      'Allow 127.0.0.1',
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(TINYPROXY, ['-d', '-c', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  const deadline = Date.now() + 60_000;
  while (!/Accepting connections/.test(log)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`tinyproxy did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => [...log.matchAll(/Request \(file descriptor \d+\): (\S+ \S+)/g)].map((m) => m[1]!),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
