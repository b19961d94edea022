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
import { PassThrough, Writable } from 'node:stream';
import { systemClock, type Clock } from '../../src/core/clock.js';
import type { Io } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.js';
import { BIN, type CliResult } from './cli.js';

export interface TestStream extends Writable {
  text: string;
  isTTY: boolean;
  columns: number | undefined;
}

function memoryStream(tty: boolean, columns?: number): TestStream {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      stream.text += String(chunk);
      done();
    },
  }) as TestStream;
  stream.text = '';
  stream.isTTY = tty;
  stream.columns = tty ? (columns ?? 80) : undefined;
  return stream;
}

export interface TestIoOptions {
  /** What stdin holds (ended at once); default empty. */
  stdin?: string;
  /** stdout (and stderr) a terminal this wide; default: a pipe. */
  tty?: boolean;
  columns?: number;
  /** The environment; default: none of the user's (no SIGN_*, NO_COLOR=1, a config and state dir of the test's own). */
  env?: Record<string, string | undefined>;
  clock?: Clock;
}

export type TestIo = Io & { stdout: TestStream; stderr: TestStream };

/** An environment as cleanEnv() gives a spawned run, without touching process.env. */
export function testEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TMPDIR: process.env.TMPDIR,
    NO_COLOR: '1',
    SIGN_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'sign-cli-config-')),
    SIGN_STATE_DIR: mkdtempSync(join(tmpdir(), 'sign-cli-state-')),
  };
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

export function testIo(options: TestIoOptions = {}): TestIo {
  const stdin = new PassThrough() as PassThrough & { isTTY?: boolean };
  stdin.isTTY = options.tty === true;
  stdin.end(options.stdin ?? '');
  return {
    stdin,
    stdout: memoryStream(options.tty === true, options.columns),
    stderr: memoryStream(options.tty === true, options.columns),
    env: testEnv(options.env),
    clock: options.clock ?? systemClock,
    relaunch: { command: process.execPath, args: [BIN] },
  };
}

export interface CommandResult extends CliResult {
  io: TestIo;
}

/** Runs `sign-cli <args>` in process; `signal` stops it as Ctrl-C would. */
export async function runCommand(args: string[], options: TestIoOptions & { signal?: AbortSignal; input?: string } = {}): Promise<CommandResult> {
  const io = testIo({ ...options, stdin: options.input ?? options.stdin });
  const code = await main(['node', 'sign-cli', ...args], io, options.signal ?? new AbortController().signal);
  return { code, signal: null, stdout: io.stdout.text, stderr: io.stderr.text, io };
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
  stop(): Promise<void>;
}

/** The sandbox in this process, on an ephemeral port, with a data dir of its own. */
export async function startTestSandbox(options: { speed?: number } = {}): Promise<TestSandbox> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sign-cli-sandbox-'));
  const sandbox = await startSandbox({ dataDir, port: 0, speed: options.speed ?? 20 });
  const control = async <T>(path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${sandbox.baseUrl}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  return {
    baseUrl: sandbox.baseUrl,
    apiKey: sandbox.apiKey,
    webhookSecret: sandbox.webhookSecret,
    dataDir,
    sandbox,
    env: { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey },
    control,
    stop: () => sandbox.close(),
  };
}
