import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { BIN, ROOT, cleanEnv } from './cli.js';

export interface ListenerProcess {
  url: string;
  /** With --inspect: the inspector's URL (`http://127.0.0.1:<port>/`). */
  inspector?: string;
  child: ChildProcess;
  stdout: string[];
  stderr: string[];
  /** Waits until `predicate` holds for the stdout lines (bounded). */
  waitForStdout(predicate: (lines: string[]) => boolean, timeoutMs?: number): Promise<void>;
  waitForStderr(predicate: (lines: string[]) => boolean, timeoutMs?: number): Promise<void>;
  /** Ctrl-C (to the listener's process group when it has its own, as a terminal sends it); resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Spawns `sign-cli webhooks listen --port 0 ...` and waits for its "listening on" line. With
 * `ownGroup`, the listener leads a process group of its own, as a shell's foreground job does.
 */
export async function startListenerProcess(
  args: string[],
  env: Record<string, string | undefined> = {},
  { ownGroup = false }: { ownGroup?: boolean } = {},
): Promise<ListenerProcess> {
  const child = spawn(process.execPath, [BIN, 'webhooks', 'listen', '--port', '0', ...args], {
    cwd: ROOT,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: ownGroup,
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => stdout.push(line));
  const errLines = createInterface({ input: child.stderr });
  errLines.on('line', (line) => stderr.push(line));
  const inspecting = args.includes('--inspect');
  let inspector: string | undefined;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`listener did not start: ${stderr.join('\n')}`)), 45_000);
    let listening: string | undefined;
    errLines.on('line', (line) => {
      // The URLs are bold when colour is on: read the lines without their colour codes.
      const plain = line.replace(/\u001b\[[0-9;]*m/g, '');
      listening ??= /listening on (http:\/\/[^\s\u001b]+)/.exec(plain)?.[1];
      inspector ??= /inspect deliveries at (http:\/\/\S+)/.exec(plain)?.[1];
      if (listening && (!inspecting || inspector)) {
        clearTimeout(timer);
        resolve(listening);
      }
    });
    child.once('exit', (code) => reject(new Error(`listener exited with ${code}: ${stderr.join('\n')}`)));
  });
  const waitFor =
    (lines: string[]) =>
    async (predicate: (lines: string[]) => boolean, timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(lines)) {
        if (Date.now() > deadline)
          throw new Error(`timed out; stdout:\n${stdout.join('\n')}\nstderr:\n${stderr.join('\n')}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
  return {
    url,
    ...(inspector ? { inspector } : {}),
    child,
    stdout,
    stderr,
    waitForStdout: waitFor(stdout),
    waitForStderr: waitFor(stderr),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        if (ownGroup) process.kill(-child.pid!, 'SIGINT');
        else child.kill('SIGINT');
      }),
  };
}
