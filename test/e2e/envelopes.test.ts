/**
 * `envelopes create` where a real process is the point: Ctrl-C (SIGINT) while
 * a request is in flight, a second Ctrl-C, and the same command started twice
 * at once. The built binary against a spawned sandbox. (Everything else about
 * create: test/cli/commands/envelopes/create.test.ts, in process.)
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';
import { startGateProxy, type GateProxy } from '../helpers/gate-proxy.js';

const EXAMPLE = join(ROOT, 'examples', 'envelope.json');
const example = () => JSON.parse(readFileSync(EXAMPLE, 'utf8')) as Record<string, unknown>;

let sandbox: SandboxProcess;
let env: Record<string, string>;
const work = tempDir('sign-cli-e2e-');

function writeJson(name: string, value: unknown): string {
  const path = join(work, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return path;
}

let uniques = 0;
/** The example envelope with a title and contract id of its own: the sandbox has not seen it, so a create really creates. */
function unique(): string {
  uniques++;
  const base = example();
  return writeJson(`unique-${uniques}.json`, {
    ...base,
    title: `${String(base.title)} #${uniques}`,
    contract_id: `${String(base.contract_id)}-${uniques}`,
  });
}

/**
 * Starts `envelopes create -f <file> --verbose` and resolves once its request
 * is on the wire (interrupting after a fixed delay is flaky on a loaded machine).
 */
async function createUntilSent(extraEnv: Record<string, string>, file: string) {
  const child = spawn(process.execPath, [BIN, 'envelopes', 'create', '-f', file, '--verbose'], {
    env: cleanEnv(extraEnv),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
  await new Promise<void>((resolve) => {
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
      if (stderr.includes('> POST')) resolve();
    });
  });
  /** Resolves once stderr holds `text` (the signal taken: "interrupting…"). */
  const stderrHas = async (text: string) => {
    while (!stderr.includes(text)) await new Promise((r) => setTimeout(r, 20));
  };
  return { child, exit, stdout: () => stdout, stderrHas };
}

/**
 * The sandbox behind a gate that holds every create until opened: the request is on the wire
 * and unanswered for as long as the test needs (a signal taken, another process run), on any
 * machine, where a latency of N seconds is a race with how fast the rest happens.
 */
async function heldCreates(): Promise<{ env: Record<string, string>; gate: GateProxy }> {
  const gate = await startGateProxy(
    sandbox.baseUrl,
    (req) => req.method === 'POST' && req.url === '/api/v1/envelopes',
  );
  gate.closeAt(1);
  return { env: { ...env, SIGN_BASE_URL: gate.url }, gate };
}

beforeAll(async () => {
  sandbox = await startSandboxProcess();
  env = { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey };
});

afterAll(async () => {
  await sandbox?.stop();
});

describe('envelopes create, as a process', () => {
  it('Ctrl-C waits for the request in flight, exits 130, and the envelope is created once', async () => {
    const before = await sandbox.envelopeCount();
    const { env: held, gate } = await heldCreates();
    try {
      const run = await createUntilSent(held, unique());
      run.child.kill('SIGINT');
      // The signal is taken while the answer is still held: only then does the service answer.
      await run.stderrHas('interrupting');
      gate.open();
      expect(await run.exit).toBe(130);
      expect(run.stdout()).toMatch(/created env_/);
      expect(await sandbox.envelopeCount()).toBe(before + 1);
    } finally {
      await gate.close();
    }
  });
  it('a second Ctrl-C quits at once; re-running the same command finishes without a duplicate', async () => {
    const before = await sandbox.envelopeCount();
    const state = { SIGN_STATE_DIR: tempDir('sign-cli-resume-') };
    const { env: held, gate } = await heldCreates();
    try {
      const file = unique();
      const run = await createUntilSent({ ...held, ...state }, file);
      run.child.kill('SIGINT');
      await run.stderrHas('interrupting');
      run.child.kill('SIGINT');
      // Quit with its request unanswered (the gate never opened for it).
      expect(await run.exit).toBe(130);
      // The request it left on the wire reaches the service now; the re-run reuses its key.
      gate.open();
      const rerun = await runCli(['envelopes', 'create', '-f', file, '--verbose'], {
        env: { ...held, ...state },
      });
      expect(rerun.code).toBe(0);
      expect(rerun.stderr).toContain('resuming an earlier run');
      expect(await sandbox.envelopeCount()).toBe(before + 1);
    } finally {
      await gate.close();
    }
  });
  it('refuses to run the same command twice at once (exit 2), since both could send the same envelopes', async () => {
    // The first run's answer is held until the second has started, looked and ended.
    const state = { SIGN_STATE_DIR: tempDir('sign-cli-twice-') };
    const { env: held, gate } = await heldCreates();
    try {
      const file = unique();
      const first = await createUntilSent({ ...held, ...state }, file);
      const second = await runCli(['envelopes', 'create', '-f', file], { env: { ...held, ...state } });
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(`already running (pid ${first.child.pid})`);
      gate.open();
      expect(await first.exit).toBe(0);
      // Once it is done, the command runs again, and reports the envelope as already created.
      const again = await runCli(['envelopes', 'create', '-f', file], { env: { ...held, ...state } });
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/already created env_\w+ in test by an earlier run; not sent again/);
    } finally {
      await gate.close();
    }
  });
});
