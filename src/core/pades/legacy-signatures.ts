/**
 * adbe.x509.rsa_sha1 (ISO 32000-1 12.8.3.2): no CMS, a PKCS#1 v1.5 signature (an OCTET STRING in
 * /Contents) over the digest of the signed bytes, the signer's certificate first in /Cert. Old
 * Acrobat wrote it with SHA-1, later ones with SHA-256 and up (the DigestInfo inside the signature
 * names the hash). Verified as any other signature; SHA-1 then fails as a policy.
 */
import { publicDecrypt, createPublicKey } from 'node:crypto';
import { TAG, is, octets, oid, readDer, sequence, DerError } from './der.js';
import { validateChain } from './chain.js';
import { HASHES, WEAK_HASHES } from './hashes.js';
import { digestOf, weakDetail } from './cms.js';
import { displayName, parseCertificate, type Certificate } from './x509.js';
import { signingPurpose } from './cms-signature.js';
import type { Steps } from './pdf-budget.js';
import type { PdfSignature } from './pdf-signatures.js';
import type { VerifyContext } from './verdicts.js';
import { add, digestSteps, iso, signedContent, type Base, type Ranges } from './signature-base.js';

/** node:crypto's RSA_PKCS1_PADDING: the CLI bundle loads node:crypto's functions lazily, not its objects. */
const RSA_PKCS1_PADDING = 1;

/** The signature value: the OCTET STRING's content, or the bytes as written when they are not one. */
function signatureValue(contents: Uint8Array): Uint8Array {
  try {
    const node = readDer(contents);
    if (is(node, TAG.octetString)) return octets(node);
  } catch {
    // Not DER: the raw signature, zero padding and all (publicDecrypt needs the modulus's length).
  }
  return contents;
}

/** The hash and digest a PKCS#1 v1.5 signature holds (its DigestInfo), recovered with the public key. */
function recoverDigest(
  cert: Certificate,
  value: Uint8Array,
): { hash: string | undefined; oid: string; digest: Uint8Array } {
  const key = createPublicKey({ key: Buffer.from(cert.spki), format: 'der', type: 'spki' });
  const size = Math.ceil((key.asymmetricKeyDetails?.modulusLength ?? value.length * 8) / 8);
  const info = publicDecrypt({ key, padding: RSA_PKCS1_PADDING }, value.subarray(0, size));
  const [algorithm, digest] = sequence(readDer(info), 'the DigestInfo');
  const id = oid(sequence(algorithm, 'its algorithm')[0]);
  return { hash: HASHES[id], oid: id, digest: octets(digest) };
}

/** An adbe.x509.rsa_sha1 signature's checks, after its byte ranges. */
export function* checkX509Signature(
  ctx: VerifyContext,
  signature: PdfSignature,
  base: Base,
  ranges: Ranges,
): Steps<Base> {
  let certs: Certificate[];
  try {
    certs = signature.certificates.map((der) => parseCertificate(der));
  } catch (error) {
    add(
      base,
      'signature',
      false,
      `/Cert holds a certificate that is not readable (${error instanceof DerError ? error.message : 'unreadable'})`,
    );
    return base;
  }
  const cert = certs[0];
  if (!cert) {
    add(
      base,
      'signature',
      false,
      "adbe.x509.rsa_sha1 without the signer's certificate in /Cert: it cannot be verified",
    );
    return base;
  }
  base.signer = displayName(cert);
  let recovered;
  try {
    recovered = recoverDigest(cert, signatureValue(signature.contents));
  } catch {
    add(
      base,
      'signature',
      false,
      'the signature does not verify with the certificate in /Cert (not an RSA PKCS#1 signature of it)',
    );
    return base;
  }
  const { hash } = recovered;
  if (!hash || hash === 'shake256') {
    add(base, 'digest', false, `digest algorithm ${recovered.oid} is not supported`);
    return base;
  }
  const digests = new Map([[hash, yield* digestSteps(ctx.pdf, ranges, hash, ctx.file.meter)]]);
  const matches = digestOf(signedContent(ctx.pdf, ranges, digests), hash).equals(recovered.digest);
  if (!matches)
    add(
      base,
      'digest',
      false,
      `${hash} of the signed bytes differs from the one signed: the document changed`,
    );
  else if (WEAK_HASHES.has(hash) && !ctx.allowWeak) add(base, 'digest', false, weakDetail(hash), 'weak');
  else add(base, 'digest', true, `${hash} of the signed bytes matches`);
  add(
    base,
    'signature',
    matches,
    matches
      ? `valid (RSA PKCS#1 v1.5 with ${hash}, adbe.x509.rsa_sha1), by ${displayName(cert)}`
      : 'the signature holds the digest of other bytes',
  );
  const claimed = base.signing_time;
  add(
    base,
    'timestamp',
    true,
    'none (adbe.x509.rsa_sha1 carries no timestamp): the chain is validated at ' +
      (ctx.at === 'claimed'
        ? 'the time the signer claims (/M)'
        : ctx.at instanceof Date
          ? 'the time asked for'
          : 'the current time'),
  );
  const at =
    ctx.at === 'claimed' ? (claimed ? new Date(claimed) : null) : ctx.at instanceof Date ? ctx.at : ctx.now;
  if (ctx.at === 'claimed') base.validation_time = 'claimed';
  if (at === null) add(base, 'certificate chain', false, 'no claimed signing time (/M) to validate at');
  else {
    base.validated_at = iso(at);
    const chain = validateChain(cert, [...certs, ...ctx.extraCertificates], ctx.anchors, at, ctx.allowWeak);
    add(base, 'certificate chain', chain.ok, chain.detail);
    ctx.evidence.set(signature, {
      signer: { leaf: cert, path: chain.path, at },
      signerProof: ctx.at === undefined ? null : 'the time asked for',
      stamp: null,
    });
  }
  const purpose = signingPurpose(cert);
  add(base, 'certificate purpose', purpose.ok, purpose.detail);
  add(base, 'signing certificate', true, 'none (adbe.x509.rsa_sha1 has no signed attributes)');
  return base;
}
