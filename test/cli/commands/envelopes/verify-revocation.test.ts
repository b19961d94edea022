/**
 * `envelopes verify --revocation soft|require` and `--online`, against a CA run by OpenSSL whose
 * OCSP responder and CRL are served on 127.0.0.1 (OpenSSL makes every answer): a copy without
 * revocation data passes softly with a warning naming what is missing and fails when required;
 * with --online the status is fetched from the certificate's Authority Information Access (or its
 * CRL distribution point, when the responder does not answer), said on stderr, and the verdict
 * rests on it; a revoked signer fails with its date and reason; a bad --revocation is exit 2.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSignature, basePdf } from '../../../helpers/pdf-build.js';
import {
  NO_OPENSSL,
  Pki,
  signatureValue,
  withSignatureTimestamp,
  type Party,
} from '../../../helpers/openssl-pki.js';
import { DAY, OpenSslCa, serveCa } from '../../../helpers/openssl-ca.js';
import { tempDir } from '../../../helpers/paths.js';
import { runCommand } from '../../../helpers/in-process.js';

const dir = tempDir('sign-cli-verify-revocation-');
let ca: OpenSslCa;
let served: Awaited<ReturnType<typeof serveCa>>;
let silent: Server;
let silentUrl: string;
let pki: Pki;

/** A B-T copy (OpenSSL's CMS and TSA) of `signer`, written to a file; no revocation data in it. */
async function copyOf(signer: Party, tsa: Party): Promise<string> {
  const pdf = await addSignature(basePdf(), {
    field: 'Sig',
    sign: (bytes) => {
      const cms = pki.cms(bytes, signer, ca.party);
      return withSignatureTimestamp(cms, pki.timestamp(signatureValue(cms), tsa, ca.party));
    },
  });
  const file = join(dir, `${signer.name.replace(/\W+/g, '-')}.pdf`);
  writeFileSync(file, pdf);
  return file;
}

beforeAll(async () => {
  if (NO_OPENSSL) return;
  pki = new Pki(dir);
  ca = new OpenSslCa(dir, 'Online CA');
  served = await serveCa(ca, () => [new Date(Date.now() - 60_000), new Date(Date.now() + DAY)]);
  // A responder that takes the connection and never answers: only the timeout ends a request to it.
  silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}/ocsp`;
});

afterAll(async () => {
  await served?.stop();
  silent?.close();
});

const verify = (...args: string[]) => runCommand(['envelopes', 'verify', ...args, '--trust', ca.party.cert]);

describe.skipIf(NO_OPENSSL)('envelopes verify: revocation', () => {
  it('without revocation data: soft passes with a warning naming what is missing, require fails; --online fetches it and passes', async () => {
    const tsa = ca.issue('Online TSA', { kind: 'tsa', ocspUrl: `${served.url}/ocsp` });
    const signer = ca.issue('Online Signer', { ocspUrl: `${served.url}/ocsp` });
    const file = await copyOf(signer, tsa);

    const soft = await verify(file);
    expect(soft.code).toBe(0);
    expect(soft.stdout).toMatch(
      /revocation +! +unknown, accepted as revocation is checked softly: Online Signer: no OCSP response or CRL about it in the file/,
    );
    expect(soft.stdout).toMatch(
      /^Sig: PAdES B-T, not LTV-complete: the file holds no revocation data that shows Online Signer \(signer\) was good when it had to be; re-timestamp before \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z \(the certificate of Online TSA, on which its signature timestamp rests, expires then\)$/m,
    );
    expect(soft.stderr).toMatch(
      /^warning: Sig: revocation unknown, .*; --revocation require fails it, --online fetches what is missing$/m,
    );
    expect(served.requests).toEqual([]);

    const required = await verify(file, '--revocation', 'require');
    expect(required.code).toBe(1);
    expect(required.stdout.trimEnd().split('\n').at(-1)).toContain(
      'does not verify: revocation: unknown, and required: Online Signer: no OCSP response or CRL about it in the file',
    );

    const online = await verify(file, '--revocation', 'require', '--online', '--json');
    expect(online.code).toBe(0);
    const verdict = JSON.parse(online.stdout) as {
      online: { url: string; kind: string; certificate: string; ok: boolean }[];
      signatures: {
        revocation: {
          status: string;
          certificates: { certificate: string; status: string; source: string }[];
        };
        ltv: { level: string; complete: boolean };
      }[];
    };
    expect(verdict.online).toEqual([
      expect.objectContaining({
        url: `${served.url}/ocsp`,
        kind: 'ocsp',
        certificate: 'Online Signer',
        ok: true,
      }),
      expect.objectContaining({
        url: `${served.url}/ocsp`,
        kind: 'ocsp',
        certificate: 'Online TSA',
        ok: true,
      }),
    ]);
    expect(
      verdict.signatures[0]!.revocation.certificates.map((c) => [c.certificate, c.status, c.source]),
    ).toEqual([
      ['Online Signer', 'good', 'online'],
      ['Online TSA', 'good', 'online'],
    ]);
    // Fetched, not embedded: the copy itself is no more long-term than before.
    expect(verdict.signatures[0]!.ltv).toMatchObject({ level: 'B-T', complete: false });
    expect(served.requests).toEqual(['POST /ocsp', 'POST /ocsp']);

    const said = await verify(file, '--online');
    expect(said.stderr).toContain(
      `online: fetched an OCSP response for Online Signer from ${served.url}/ocsp`,
    );
  });

  it('--online: a signer revoked before it signed fails with its date and reason, from the CRL when the responder does not answer', async () => {
    const tsa = ca.issue('Crl TSA', { kind: 'tsa', crlUrl: `${served.url}/ca.crl` });
    const signer = ca.issue('Crl Signer', {
      notBefore: new Date(Date.now() - 3 * DAY),
      ocspUrl: silentUrl,
      crlUrl: `${served.url}/ca.crl`,
    });
    const revokedAt = new Date(Math.floor(Date.now() / 1000) * 1000 - DAY);
    ca.revoke(signer, revokedAt);
    const file = await copyOf(signer, tsa);
    const result = await runCommand([
      'envelopes',
      'verify',
      file,
      '--trust',
      ca.party.cert,
      '--online',
      '--timeout',
      '1',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `online: no OCSP response for Crl Signer from ${silentUrl}: ${silentUrl} did not answer within 1 s`,
    );
    expect(result.stderr).toContain(`online: fetched a CRL for Crl Signer from ${served.url}/ca.crl`);
    const when = revokedAt
      .toISOString()
      .replace('T', ' ')
      .replace(/\.\d{3}Z$/, 'Z');
    expect(result.stdout.trimEnd().split('\n').at(-1)).toContain(
      `revocation: Crl Signer was revoked on ${when} (keyCompromise)`,
    );
  });

  it('--online is for one file: with a directory it is exit 2, nothing fetched', async () => {
    const result = await runCommand(['envelopes', 'verify', dir, '--online']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '--online fetches revocation data for one file: give one file, not a directory',
    );
  });

  it('--revocation takes soft or require: anything else is exit 2, nothing read', async () => {
    const result = await runCommand([
      'envelopes',
      'verify',
      join(dir, 'absent.pdf'),
      '--revocation',
      'requir',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '--revocation "requir" is not one of soft, require; did you mean require?',
    );
  });
});
