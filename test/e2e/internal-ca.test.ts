/**
 * A service whose certificate comes from an internal CA (here self-signed, made
 * by openssl): refused, with NODE_EXTRA_CA_CERTS named as the fix; trusted once
 * NODE_EXTRA_CA_CERTS points at it. Node reads that variable at start-up, so
 * these run the built binary.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { missingTools } from '../helpers/system-tools.js';

/** openssl makes the certificate: a Debian package, installed by `.ci/run`; elsewhere the tests skip without it. */
const hasOpenssl = !missingTools(['openssl'], 'openssl', 'the internal CA tests');

const dir = tempDir('sign-cli-ca-');
const cert = join(dir, 'service.pem');
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  if (!hasOpenssl) return;
  const key = join(dir, 'service.key');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      '/CN=esign.internal',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  // Answers like the service does a key it does not know.
  server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_req, res) => {
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 'invalid_api_key', message: 'unknown API key' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

describe.skipIf(!hasOpenssl)('a service with an internal CA', () => {
  const env = () => ({
    SIGN_BASE_URL: baseUrl,
    SIGN_API_KEY: 'sk_test_internalca00000000000000001234',
    SIGN_RETRIES: '0',
  });

  it('is refused with NODE_EXTRA_CA_CERTS named as the fix', async () => {
    const keys = await runCli(['envelopes', 'list'], { env: env() });
    expect(keys.code).toBe(1);
    expect(keys.stderr).toMatch(
      /SELF_SIGNED_CERT.*certificate of 127\.0\.0\.1:\d+ is not valid.*set NODE_EXTRA_CA_CERTS to its certificate/,
    );
    const doctor = await runCli(['doctor'], { env: env() });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout + doctor.stderr).toMatch(/tls.*NODE_EXTRA_CA_CERTS/);
  });

  it("is trusted with NODE_EXTRA_CA_CERTS: the answer is the service's own (401, exit 3)", async () => {
    const keys = await runCli(['envelopes', 'list'], { env: { ...env(), NODE_EXTRA_CA_CERTS: cert } });
    expect(keys.stderr).not.toMatch(/certificate/);
    expect(keys.code).toBe(3);
    const doctor = await runCli(['doctor'], { env: { ...env(), NODE_EXTRA_CA_CERTS: cert } });
    expect(doctor.stdout + doctor.stderr).toMatch(/tls\s+.*certificate valid/);
    expect(doctor.stdout + doctor.stderr).toMatch(/answers like the signing service/);
  });
});
