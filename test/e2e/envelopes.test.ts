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
  await new Promise((r) => setTimeout(r, 100));
  return { child, exit, stdout: () => stdout };
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
    await sandbox.control('/_sandbox/faults', { latency_ms: 1500 });
    const before = await sandbox.envelopeCount();
    try {
      const run = await createUntilSent(env, unique());
      run.child.kill('SIGINT');
      expect(await run.exit).toBe(130);
      expect(run.stdout()).toMatch(/created env_/);
      expect(await sandbox.envelopeCount()).toBe(before + 1);
    } finally {
      await sandbox.control('/_sandbox/faults', { latency_ms: 0 });
    }
  });
  it('a second Ctrl-C quits at once; re-running the same command finishes without a duplicate', async () => {
    await sandbox.control('/_sandbox/faults', { latency_ms: 1500 });
    const before = await sandbox.envelopeCount();
    const state = { SIGN_STATE_DIR: tempDir('sign-cli-resume-') };
    try {
      const file = unique();
      const run = await createUntilSent({ ...env, ...state }, file);
      run.child.kill('SIGINT');
      await new Promise((r) => setTimeout(r, 100));
      run.child.kill('SIGINT');
      expect(await run.exit).toBe(130);
      // The first request is still being processed by the service (1.5 s latency): the re-run reuses its key.
      const rerun = await runCli(['envelopes', 'create', '-f', file, '--verbose'], {
        env: { ...env, ...state },
      });
      expect(rerun.code).toBe(0);
      expect(rerun.stderr).toContain('resuming an earlier run');
      expect(await sandbox.envelopeCount()).toBe(before + 1);
    } finally {
      await sandbox.control('/_sandbox/faults', { latency_ms: 0 });
    }
  });
  it('refuses to run the same command twice at once (exit 2), since both could send the same envelopes', async () => {
    // The first run's answer is held long enough for a second process to start and look,
    // even on a loaded machine (1.5 s was not, with four test files at a time in CI).
    await sandbox.control('/_sandbox/faults', { latency_ms: 6000 });
    const state = { SIGN_STATE_DIR: tempDir('sign-cli-twice-') };
    try {
      const file = unique();
      const first = await createUntilSent({ ...env, ...state }, file);
      const second = await runCli(['envelopes', 'create', '-f', file], { env: { ...env, ...state } });
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(`already running (pid ${first.child.pid})`);
      expect(await first.exit).toBe(0);
      // Once it is done, the command runs again, and reports the envelope as already created.
      const again = await runCli(['envelopes', 'create', '-f', file], { env: { ...env, ...state } });
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/already created env_\w+ in test by an earlier run; not sent again/);
    } finally {
      await sandbox.control('/_sandbox/faults', { latency_ms: 0 });
    }
  });
});
