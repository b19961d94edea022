/** `envelopes audit`, in process against an in-process sandbox: the trail as a table and JSON, --verify. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE } from '../../../helpers/envelopes.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';

let sandbox: TestSandbox;
let id: string;

beforeAll(async () => {
  sandbox = await startTestSandbox({ speed: 40 });
  id = (
    await runCommand(['envelopes', 'create', '-f', EXAMPLE, '--query', 'envelope.id'], { env: sandbox.env })
  ).stdout.trim();
  await runCommand(['envelopes', 'watch', id, '--interval', '0.1', '--json'], { env: sandbox.env });
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('envelopes audit', () => {
  it('in a pipe: one row per entry, every actor whole', async () => {
    const result = await runCommand(['envelopes', 'audit', id], { env: sandbox.env });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^#\s+TIME\s+EVENT\s+ACTOR\s+DETAIL$/);
    expect(result.stdout).toContain('envelope.created');
    expect(result.stdout).toContain('envelope.completed');
    expect(result.stdout).toMatch(/signer:sgn_\w+ \(Layla Haddad\)/);
  });

  it('--verify --json: the chain checked, hash_algorithm kept, one compact document in a pipe', async () => {
    const result = await runCommand(['envelopes', 'audit', id, '--verify', '--json'], { env: sandbox.env });
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    const trail = JSON.parse(result.stdout) as {
      hash_algorithm: string;
      head_hash: string;
      entries: { hash: string }[];
      verification: { valid: boolean };
    };
    expect(trail.hash_algorithm).toBe('sha256');
    expect(trail.verification.valid).toBe(true);
    expect(trail.head_hash).toBe(trail.entries.at(-1)!.hash);
  });

  it('--verify on a terminal says what was checked', async () => {
    const result = await runCommand(['envelopes', 'audit', id, '--verify'], {
      env: sandbox.env,
      tty: true,
      columns: 120,
    });
    expect(result.code).toBe(0);
    expect(result.stdout + result.stderr).toMatch(/verified/i);
  });

  it('an unknown envelope is exit 1', async () => {
    const result = await runCommand(['envelopes', 'audit', 'env_unknown', '--verify'], { env: sandbox.env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('HTTP 404');
  });
});
