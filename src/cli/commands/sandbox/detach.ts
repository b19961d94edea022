/**
 * `sign-cli sandbox --detach` and `sign-cli sandbox stop`: the sandbox in the
 * background, for a shell block pasted in one go (docker run -d, supabase
 * start). The parent starts the same command without --detach as a detached
 * child whose output goes to <data-dir>/sandbox.log, and returns only once the
 * child says it is listening with its credentials written, or has failed (its
 * last log line is the reason). `stop` ends the sandbox holding a data dir's
 * lock, and waits until it has let go.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignError } from '../../../core/errors.js';
import { isAlive, lockHolder } from '../../../core/journal/pid-lock.js';

/** Set in the child's environment: it reports readiness over IPC instead of staying attached. */
export const DETACHED_ENV = 'SIGN_SANDBOX_DETACHED';
/** How long a detached start may take before the parent gives up on it. */
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 10_000;

/** What the child sends once it listens: its own description (the API key included; this is a local pipe). */
export interface ReadyMessage {
  ready: true;
  pid: number;
  base_url: string;
  api_key: string;
  webhook_secret: string;
  webhook_public_key?: string;
  ca_file: string;
  data_dir: string;
  notices: string[];
}

export const logPath = (dataDir: string): string => join(dataDir, 'sandbox.log');

/** The tail of the child's log: why it stopped, when it did. */
function lastLogLine(dataDir: string): string {
  try {
    const lines = readFileSync(logPath(dataDir), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    return lines.at(-1) ?? '';
  } catch {
    return '';
  }
}

/**
 * Starts `argv` (this command, minus --detach and --json) detached; resolves
 * with the child's ready message. The child's stdout and stderr append to the
 * data dir's sandbox.log (0600).
 */
export function startDetached(
  launch: { command: string; args: readonly string[] },
  argv: readonly string[],
  dataDir: string,
  env: NodeJS.ProcessEnv,
): Promise<ReadyMessage> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const log = openSync(logPath(dataDir), 'a', 0o600);
  const child = spawn(launch.command, [...launch.args, ...argv], {
    detached: true,
    stdio: ['ignore', log, log, 'ipc'],
    env: { ...env, [DETACHED_ENV]: '1' },
  });
  closeSync(log);
  return new Promise<ReadyMessage>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      finish(
        new SignError(`the sandbox did not start within ${START_TIMEOUT_MS / 1000} s`, {
          hint: `see ${logPath(dataDir)}`,
        }),
      );
    }, START_TIMEOUT_MS);
    const finish = (outcome: ReadyMessage | Error) => {
      clearTimeout(timer);
      child.removeAllListeners();
      if (outcome instanceof Error) {
        reject(outcome);
        return;
      }
      // Let go of the child: it outlives this process.
      if (child.connected) child.disconnect();
      child.unref();
      resolve(outcome);
    };
    child.on('message', (message: unknown) => {
      if (message && typeof message === 'object' && (message as ReadyMessage).ready === true)
        finish(message as ReadyMessage);
    });
    child.on('error', (error) => finish(new SignError(`could not start the sandbox: ${error.message}`)));
    child.on('exit', (code) => {
      // The child's own error line says why (with its hint, when it has one).
      const reason = lastLogLine(dataDir).replace(/^error:\s*/, '');
      const message = `the sandbox stopped at start${code === null ? '' : ` (exit ${code})`}${reason ? `: ${reason}` : ''}`;
      finish(new SignError(message, reason.includes('(hint:') ? {} : { hint: `see ${logPath(dataDir)}` }));
    });
  });
}

/** In the detached child: tell the parent it is up, then let go of the pipe. */
export function reportReady(message: ReadyMessage): void {
  if (typeof process.send !== 'function') return;
  process.send(message, () => {
    if (process.connected) process.disconnect();
  });
}

/** The pid of the sandbox holding a data dir's lock, when one runs there (not this process). */
export function runningSandboxPid(dataDir: string): number | undefined {
  const pid = lockHolder(join(dataDir, 'sandbox.lock'));
  return pid === process.pid ? undefined : pid;
}

/**
 * Stops the sandbox on `dataDir` (SIGTERM: it closes cleanly, state kept);
 * resolves with its pid, or undefined when none runs there. Waits for the
 * process to end, so a start right after finds the port and the dir free.
 */
export async function stopSandbox(
  dataDir: string,
  sleep: (ms: number) => Promise<void>,
): Promise<number | undefined> {
  const pid = runningSandboxPid(dataDir);
  if (pid === undefined) return undefined;
  process.kill(pid, 'SIGTERM');
  for (let waited = 0; waited < STOP_TIMEOUT_MS; waited += 50) {
    if (!isAlive(pid)) return pid;
    await sleep(50);
  }
  throw new SignError(`the sandbox (pid ${pid}) did not stop within ${STOP_TIMEOUT_MS / 1000} s`, {
    hint: `kill ${pid}`,
  });
}

/** What a running sandbox wrote to its credentials.env, in the names of the `--json` line; undefined when unreadable. */
export async function readCredentials(
  dataDir: string,
): Promise<{ base_url: string; api_key: string; webhook_secret: string } | undefined> {
  const { readCredentialsFile } = await import('../../../sandbox/store/credentials-file.js');
  const { baseUrl, apiKey, webhookSecret } = readCredentialsFile(dataDir);
  return baseUrl && apiKey && webhookSecret
    ? { base_url: baseUrl, api_key: apiKey, webhook_secret: webhookSecret }
    : undefined;
}
