import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { BIN, ROOT, cleanEnv, tempDir } from './cli.js';
import { controlCall } from './control.js';

export interface SandboxProcess {
  baseUrl: string;
  apiKey: string;
  webhookSecret: string;
  dataDir: string;
  /** The first stdout line (`--json`), parsed: base_url, api_key, webhook_secret, and webhook_public_key with --signing ed25519. */
  first: Record<string, unknown>;
  child: ChildProcess;
  /** Calls a /_sandbox control endpoint with the sandbox's own key. */
  control<T = Record<string, unknown>>(path: string, body?: unknown): Promise<T>;
  envelopeCount(): Promise<number>;
  /** What it has written to stderr so far. */
  stderr(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Spawns `sign-cli sandbox --port 0 --json` and waits for its first stdout line. */
export async function startSandboxProcess(
  options: { dataDir?: string; args?: string[]; env?: Record<string, string | undefined> } = {},
): Promise<SandboxProcess> {
  const dataDir = options.dataDir ?? tempDir('sign-cli-sandbox-');
  const child = spawn(
    process.execPath,
    [BIN, 'sandbox', '--port', '0', '--json', '--data-dir', dataDir, ...(options.args ?? [])],
    {
      cwd: ROOT,
      env: cleanEnv(options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const first = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    const timer = setTimeout(() => reject(new Error(`sandbox did not start: ${stderr}`)), 45_000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${stderr}`)));
  });
  const info = JSON.parse(first) as { base_url: string; api_key: string; webhook_secret: string };
  const control = <T>(path: string, body?: unknown): Promise<T> =>
    controlCall<T>(info.base_url, info.api_key, path, body);
  return {
    baseUrl: info.base_url,
    apiKey: info.api_key,
    webhookSecret: info.webhook_secret,
    dataDir,
    first: JSON.parse(first) as Record<string, unknown>,
    child,
    control,
    stderr: () => stderr,
    envelopeCount: async () => (await control<{ envelopes: number }>('/_sandbox/state')).envelopes,
    stop: (signal = 'SIGTERM') =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}
