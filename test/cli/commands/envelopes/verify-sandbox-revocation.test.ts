/**
 * The sandbox's own revocations, as `envelopes verify` judges its copies: `POST
 * /_sandbox/revocations`, then the copies checked offline (what they carry still says good, as it
 * did when they were signed) and with `--online` (the responder they name says revoked now). A
 * signer revoked after its signature timestamp passes and says why; one revoked before it signed
 * fails with the date and the reason. Speed 1: the copies' times and the responder's are real
 * time, which verify's clock is.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../../../helpers/paths.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';

/** Two journeys at speed 1 and several verifications: on a loaded machine, minutes. */
const SLOW = { timeout: 180_000 };

let sandbox: TestSandbox;
const dataDir = tempDir('sign-cli-revoked-');
const dir = tempDir('sign-cli-revoked-files-');
const caFile = join(dataDir, 'ca.pem');
beforeAll(async () => {
  sandbox = await startTestSandbox({ speed: 1, dataDir });
});
afterAll(async () => {
  await sandbox?.stop();
});

/** A signed copy of a new envelope, saved under `name`. */
async function signedCopy(name: string): Promise<string> {
  const env = sandbox.env;
  const created = await runCommand(
    ['envelopes', 'create', '-f', join(ROOT, 'examples', 'envelope.json'), '--new', '--query', 'envelope.id'],
    { env },
  );
  const file = join(dir, name);
  const downloaded = await runCommand(
    ['envelopes', 'download', created.stdout.trim(), '-o', file, '--wait'],
    {
      env,
    },
  );
  expect(downloaded.code, downloaded.stderr).toBe(0);
  return file;
}

interface Verdict {
  valid: boolean;
  signatures: {
    timestamp: { time: string | null } | null;
    ltv: { level: string } | null;
    checks: { check: string; ok: boolean; detail: string; failure?: string }[];
  }[];
  online: unknown[] | null;
}

async function verify(file: string, ...flags: string[]) {
  const run = await runCommand(['envelopes', 'verify', file, '--trust', caFile, ...flags], {
    env: sandbox.env,
  });
  const json = await runCommand(['envelopes', 'verify', file, '--trust', caFile, '--json', ...flags], {
    env: sandbox.env,
  });
  return { ...run, verdict: JSON.parse(json.stdout) as Verdict };
}

const revocationCheck = (verdict: Verdict) =>
  verdict.signatures[0]!.checks.find((c) => c.check === 'revocation')!;

/** The date as verify writes it in a revocation's words (its day, UTC). */
const day = (iso: string) => iso.slice(0, 10);

describe('the sandbox revokes its signing certificate', SLOW, () => {
  it('after a copy was timestamped: the copy passes online and says the timestamp proved it good then', async () => {
    const file = await signedCopy('before.pdf');
    const offline = await verify(file);
    expect(offline.code, offline.stdout + offline.stderr).toBe(0);
    expect(offline.verdict.signatures[0]!.ltv?.level).toBe('B-LTA');

    const revoked = await sandbox.control<{ revoked_at: string }>('/_sandbox/revocations', {
      certificate: 'signing',
      reason: 'keyCompromise',
    });
    // Offline, the copy says what it said: the responses it carries are of its signing time.
    expect((await verify(file)).code).toBe(0);
    const online = await verify(file, '--online');
    expect(online.code, online.stdout + online.stderr).toBe(0);
    const check = revocationCheck(online.verdict);
    expect(check.ok).toBe(true);
    expect(check.detail).toContain(`revoked on ${day(revoked.revoked_at)}`);
    expect(check.detail).toMatch(/after the signature timestamp/);
    expect(online.stderr).toMatch(
      /online: fetched an OCSP response for .* from http:\/\/127\.0\.0\.1:\d+\/_sandbox\/ocsp/,
    );
    expect(readFileSync(file).length).toBeGreaterThan(0);
  });

  it('before a copy was signed: the copy fails online, "revoked on <date> (keyCompromise)", under soft and require', async () => {
    const file = await signedCopy('revoked-before.pdf');
    const signedAt = (await verify(file)).verdict.signatures[0]!.timestamp!.time!;
    // Its key known compromised from just before the copy was timestamped, recorded now.
    const at = new Date(new Date(signedAt).getTime() - 1000).toISOString();
    await sandbox.control('/_sandbox/revocations', { certificate: 'signing', at, reason: 'keyCompromise' });
    expect((await verify(file)).code).toBe(0);
    for (const policy of ['soft', 'require']) {
      const online = await verify(file, '--online', '--revocation', policy);
      expect(online.code).toBe(1);
      const check = revocationCheck(online.verdict);
      expect(check).toMatchObject({ ok: false, failure: 'revoked' });
      expect(check.detail).toContain(`revoked on ${day(at)}`);
      expect(check.detail).toContain('(keyCompromise)');
      expect(online.stdout).toMatch(/revoked on \d{4}-\d{2}-\d{2}[^\n]*\(keyCompromise\)/);
    }
  });
});
