/**
 * Commands run in process, from src: no build, no spawn (gh's
 * `iostreams.Test()`). `testIo()` gives in-memory streams that can claim to be
 * a terminal of a given width; `runCommand()` runs the CLI's `main()` with it
 * and returns what a spawned run would (exit code, stdout, stderr), so tests
 * written for the built binary read the same. `startTestSandbox()` starts the
 * sandbox in this process on an ephemeral port.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testIo as makeTestIo, type TestIo, type TestIoOptions } from '../../src/cli/process/memory-io.js';
import { main } from '../../src/cli/main.js';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/server.js';
import { BIN, type CliResult } from './paths.js';
import { controlCall } from './control.js';

/** An environment as cleanEnv() gives a spawned run, without touching process.env. */
export function testEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TMPDIR: process.env.TMPDIR,
    NO_COLOR: '1',
    SIGN_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'sign-cli-config-')),
    SIGN_STATE_DIR: mkdtempSync(join(tmpdir(), 'sign-cli-state-')),
    // No D-Bus session here, so no keychain on Linux; elsewhere the keychain needs none: off (cleanEnv does the same).
    ...(process.platform === 'linux' ? {} : { SIGN_KEYCHAIN: 'off' }),
  };
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** In-memory IO (src/cli/process/io.ts) with an environment of the test's own (testEnv) and the built CLI to relaunch. */
export function testIo(options: TestIoOptions & { env?: Record<string, string | undefined> } = {}): TestIo {
  return makeTestIo({
    ...options,
    env: testEnv(options.env),
    relaunch: { command: process.execPath, args: [BIN] },
  });
}

export interface CommandResult extends CliResult {
  io: TestIo;
}

/** Runs `sign-cli <args>` in process; `signal` stops it as Ctrl-C would. */
export async function runCommand(
  args: string[],
  options: TestIoOptions & {
    env?: Record<string, string | undefined>;
    signal?: AbortSignal;
    input?: string;
  } = {},
): Promise<CommandResult> {
  const io = testIo({ ...options, stdin: options.input ?? options.stdin });
  const code = await main(['node', 'sign-cli', ...args], io, options.signal ?? new AbortController().signal);
  return { code, signal: null, stdout: io.stdout.text, stderr: io.stderr.text, io };
}

export interface RunningCommand {
  io: TestIo;
  /** Resolves when the command ends, with what it printed. */
  done: Promise<CommandResult>;
  /** Ctrl-C, as the process's signal handler would give it. */
  interrupt(): void;
  /** Resolves once stdout or stderr holds `text` (a started server's line, a request on the wire). */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>;
}

/** Starts `sign-cli <args>` in process and returns at once: for servers, watchers, and Ctrl-C. */
export function startCommand(
  args: string[],
  options: TestIoOptions & { env?: Record<string, string | undefined>; input?: string } = {},
): RunningCommand {
  const io = testIo({ ...options, stdin: options.input ?? options.stdin });
  const controller = new AbortController();
  const done = main(['node', 'sign-cli', ...args], io, controller.signal).then((code) => ({
    code,
    signal: null,
    stdout: io.stdout.text,
    stderr: io.stderr.text,
    io,
  }));
  const waitFor = async (text: string | RegExp, timeoutMs = 60_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    const seen = () => {
      const all = io.stdout.text + io.stderr.text;
      return typeof text === 'string' ? all.includes(text) : text.test(all);
    };
    while (!seen()) {
      if (Date.now() > deadline)
        throw new Error(
          `no ${String(text)} within ${timeoutMs} ms; stdout: ${io.stdout.text} stderr: ${io.stderr.text}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return { io, done, interrupt: () => controller.abort(), waitFor };
}

export interface TestSandbox {
  baseUrl: string;
  apiKey: string;
  webhookSecret: string;
  dataDir: string;
  sandbox: RunningSandbox;
  /** The environment a command against it needs. */
  env: { SIGN_BASE_URL: string; SIGN_API_KEY: string };
  control<T = Record<string, unknown>>(path: string, body?: unknown): Promise<T>;
  /** How many envelopes the sandbox holds, of every account. */
  envelopeCount(): Promise<number>;
  /** A key of its own (`POST /_sandbox/keys`): another environment, account, scope or expiry. */
  mintKey(body: Record<string, unknown>): Promise<string>;
  stop(): Promise<void>;
}

/** The sandbox in this process, on an ephemeral port, with a data dir of its own. */
export async function startTestSandbox(options: Partial<SandboxOptions> = {}): Promise<TestSandbox> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'sign-cli-sandbox-'));
  const sandbox = await startSandbox({ port: 0, speed: 20, ...options, dataDir });
  const control = <T>(path: string, body?: unknown): Promise<T> =>
    controlCall<T>(sandbox.baseUrl, sandbox.apiKey, path, body);
  return {
    baseUrl: sandbox.baseUrl,
    apiKey: sandbox.apiKey,
    webhookSecret: sandbox.webhookSecret,
    dataDir,
    sandbox,
    env: { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey },
    control,
    envelopeCount: async () => (await control<{ envelopes: number }>('/_sandbox/state')).envelopes,
    mintKey: async (body) => (await control<{ key: string }>('/_sandbox/keys', body)).key,
    stop: (() => {
      let closing: Promise<void> | undefined;
      return () => (closing ??= sandbox.close());
    })(),
  };
}

export interface TestListener {
  url: string;
  /** With --inspect: the inspector's URL (`http://127.0.0.1:<port>/`). */
  inspector?: string;
  /** Complete lines written so far. */
  readonly stdout: string[];
  readonly stderr: string[];
  waitForStdout(predicate: (lines: string[]) => boolean, timeoutMs?: number): Promise<void>;
  waitForStderr(predicate: (lines: string[]) => boolean, timeoutMs?: number): Promise<void>;
  /** Ctrl-C; resolves with the exit code. */
  stop(): Promise<number | null>;
}

const completeLines = (text: string): string[] => {
  const lines = text.split('\n');
  lines.pop();
  return lines;
};

/** `sign-cli webhooks listen --port 0 …` in process, once its "listening on" line is out. */
export async function startListener(
  args: string[],
  env: Record<string, string | undefined> = {},
  terminal: { tty?: boolean; columns?: number } = {},
): Promise<TestListener> {
  const run = startCommand(['webhooks', 'listen', '--port', '0', ...args], { env, ...terminal });
  let stopped: Promise<CommandResult> | undefined;
  await Promise.race([
    run.waitFor(/listening on http:\/\/\S+/, 60_000),
    run.done.then((result) => {
      throw new Error(`listener exited with ${result.code}: ${result.stderr}`);
    }),
  ]);
  const started = run.io.stderr.text.replace(/\u001b\[[0-9;]*m/g, '');
  const url = /listening on (http:\/\/[^\s\u001b]+)/.exec(started)![1]!;
  const inspector = /inspect deliveries at (http:\/\/\S+)/.exec(started)?.[1];
  const waitFor =
    (lines: () => string[]) =>
    async (predicate: (lines: string[]) => boolean, timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(lines())) {
        if (Date.now() > deadline)
          throw new Error(`timed out; stdout:\n${run.io.stdout.text}\nstderr:\n${run.io.stderr.text}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
  const stdout = () => completeLines(run.io.stdout.text);
  const stderr = () => completeLines(run.io.stderr.text);
  return {
    url,
    ...(inspector ? { inspector } : {}),
    get stdout() {
      return stdout();
    },
    get stderr() {
      return stderr();
    },
    waitForStdout: waitFor(stdout),
    waitForStderr: waitFor(stderr),
    stop: async () => {
      if (!stopped) {
        run.interrupt();
        stopped = run.done;
      }
      return (await stopped).code;
    },
  };
}
