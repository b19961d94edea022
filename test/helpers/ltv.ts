/**
 * What a B-LT or B-LTA PDF carries, taken apart for independent checkers:
 * the DSS's certificates, OCSP responses and CRLs (DER), each signature's
 * signer serial, and the last document timestamp's token with the SHA-256 of
 * the bytes it covers (what `openssl ts -verify -digest` takes). Read with
 * the core's PDF reader, which is not what is being judged here.
 */
import { createHash } from 'node:crypto';
import { execFile, execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readPdf } from '../../src/core/pades/pdf-file.js';
import { dssContents } from '../../src/core/ltv/dss.js';
import { PdfUpdate } from '../../src/core/ltv/pdf-update.js';
import { findSignatures } from '../../src/core/pades/pdf-signatures.js';
import { encoded, readDer } from '../../src/core/pades/der.js';
import { parseSignedData, signerCertificate } from '../../src/core/pades/cms.js';

export interface DssContents {
  certificates: Buffer[];
  ocspResponses: Buffer[];
  crls: Buffer[];
}

/** The DSS of the file's last revision (empty lists when it has none), as the core's DSS writer reads it. */
export function dssOf(pdf: Uint8Array): DssContents {
  const held = dssContents(new PdfUpdate(readPdf(pdf)));
  const buffers = (list: Uint8Array[]) => list.map((der) => Buffer.from(der));
  return {
    certificates: buffers(held.certificates),
    ocspResponses: buffers(held.ocspResponses),
    crls: buffers(held.crls),
  };
}

/** Each signature of the file (document timestamps too): its field, whether it is a document timestamp, its CMS trimmed of padding, and its signer's serial. */
export function signaturesOf(pdf: Uint8Array) {
  const rev = readPdf(pdf).revisions.at(-1)!;
  return findSignatures(rev).map((s) => {
    const cms = Buffer.from(encoded(readDer(s.contents)));
    const data = parseSignedData(cms);
    return {
      field: s.field,
      documentTimestamp: s.documentTimestamp,
      byteRange: s.byteRange,
      cms,
      signerSerial: signerCertificate(data, data.signers[0]!)?.serial,
    };
  });
}

/** The last document timestamp's token and the SHA-256 (hex) of the bytes it covers. */
export function lastDocumentTimestamp(pdf: Uint8Array): { token: Buffer; digest: string; field: string } {
  const stamp = signaturesOf(pdf)
    .filter((s) => s.documentTimestamp)
    .at(-1);
  if (!stamp) throw new Error('no document timestamp in the file');
  const [a, b, c, d] = stamp.byteRange as [number, number, number, number];
  const digest = createHash('sha256')
    .update(pdf.subarray(a, a + b))
    .update(pdf.subarray(c, c + d))
    .digest('hex');
  return { token: stamp.cms, digest, field: stamp.field };
}

/** `openssl <args>` in `dir`, stdout and stderr together (a failing run throws, with both in its message). */
export function openssl(dir: string, ...args: string[]): string {
  return execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
}

/**
 * `openssl <args>`, stdout and stderr together, whatever its exit status: run apart from this
 * process, so that a sandbox in it can answer (`openssl ocsp -url`).
 */
export function opensslAll(dir: string, ...args: string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile('openssl', args, { cwd: dir, encoding: 'utf8' }, (_error, stdout, stderr) =>
      resolve(`${stdout}${stderr}`),
    );
  });
}

/** What OpenSSL says of an OCSP response (DER) about `certFile`, checked against `caFile`. */
export function opensslOcspStatus(
  dir: string,
  response: Uint8Array,
  caFile: string,
  certFile: string,
): string {
  const name = `response-${createHash('sha256').update(response).digest('hex').slice(0, 12)}.der`;
  writeFileSync(join(dir, name), response);
  // 2>&1: the verification line goes to stderr, the status to stdout. A year of skew: an archived response speaks for its own time.
  // `|| true`: a response about another certificate is "No status found", an exit status of 1.
  return execFileSync(
    'sh',
    [
      '-c',
      `openssl ocsp -respin "${name}" -issuer "${caFile}" -cert "${certFile}" -CAfile "${caFile}" -validity_period 31536000 2>&1 || true`,
    ],
    { cwd: dir, encoding: 'utf8' },
  );
}

/**
 * The B-T part of a B-LTA copy: its bytes up to the end of its first signature's byte range (the
 * revision that signature signed), as the signature left the file before the DSS and the
 * document timestamp were added.
 */
export function signedRevision(pdf: Buffer): Buffer {
  const [first] = signaturesOf(pdf);
  if (!first) throw new Error('no signature in the file');
  const [, , start, length] = first.byteRange as [number, number, number, number];
  return pdf.subarray(0, start + length);
}
