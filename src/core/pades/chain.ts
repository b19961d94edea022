/**
 * Certificate paths (RFC 5280, the parts a document signature needs): from
 * the certificate that signed, issuer by issuer through the certificates the
 * CMS carries, to a trust anchor, every link's signature checked and every
 * certificate valid at one validation time. Anchors are the `--trust` files
 * and the roots Node trusts; the latter are found by the issuer's name and
 * parsed only when one can be the issuer, since parsing all 140-odd of them
 * took most of a run's time.
 */
import {
  issuedBy,
  parseCertificate,
  sameName,
  subjectOf,
  displayName,
  pemCertificates,
  type Certificate,
} from './x509.js';

export interface TrustAnchors {
  /** Anchors whose subject is (or may be) this name; the system's roots only when asked. */
  named(name: Uint8Array, system: boolean): Certificate[];
  /** Whether this very certificate is an anchor. */
  has(cert: Certificate, system: boolean): boolean;
}

/**
 * The roots Node trusts: its bundled (Mozilla) roots and NODE_EXTRA_CA_CERTS,
 * plus the operating system's store where this Node can read it
 * (tls.getCACertificates, Node 22.15+ and 23.5+); on older Nodes, the bundled ones.
 */
function systemRootsPem(): string[] {
  const tls = process.getBuiltinModule('node:tls') as typeof import('node:tls') & {
    getCACertificates?: (type?: 'default' | 'system') => string[];
  };
  if (typeof tls.getCACertificates !== 'function') return [...tls.rootCertificates];
  let system: string[] = [];
  try {
    system = tls.getCACertificates('system');
  } catch {
    // No readable system store (a minimal container): the default set stands.
  }
  return [...new Set([...tls.getCACertificates('default'), ...system])];
}

interface Indexed {
  der: Uint8Array;
  subject: Uint8Array | undefined;
  /** The subject's bytes in hex: a root is found by them first. */
  subjectHex: string | undefined;
  parsed?: Certificate | null;
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/**
 * Node's roots, indexed once a process: a run over many files (`envelopes verify <dir>`) would
 * otherwise read all 140-odd PEMs again for each, and fold their names again (sameName keeps its
 * folding per name's bytes). They do not change while the process runs; what is kept is their
 * DER and what was parsed of them, a few hundred KB.
 */
let systemRootIndex: Indexed[] | undefined;
const systemRootsIndexed = (): Indexed[] =>
  (systemRootIndex ??= systemRootsPem()
    .flatMap((pem) => pemCertificates(pem))
    .map((der) => {
      const subject = subjectOf(der);
      return { der, subject, subjectHex: subject && hex(subject) };
    }));

/** Anchors from DER certificates (`--trust`) and, unless `systemRoots` is false, Node's roots. */
export function trustAnchors(explicit: Uint8Array[], systemRoots = true): TrustAnchors {
  const given = explicit.map((der) => parseCertificate(der));
  const systemIndex = (): Indexed[] => (systemRoots ? systemRootsIndexed() : []);
  const parse = (entry: Indexed): Certificate | null => {
    if (entry.parsed === undefined) {
      try {
        entry.parsed = parseCertificate(entry.der);
      } catch {
        entry.parsed = null;
      }
    }
    return entry.parsed;
  };
  return {
    named(name, withSystem) {
      const wanted = hex(name);
      const fromSystem = (withSystem ? systemIndex() : []).filter(
        (e) => e.subject && (e.subjectHex === wanted || sameName(e.subject, name)),
      );
      return [
        ...given.filter((c) => sameName(c.subject, name)),
        ...fromSystem.map(parse).filter((c): c is Certificate => c !== null),
      ];
    },
    has(cert, withSystem) {
      const der = Buffer.from(cert.der);
      return (
        given.some((c) => der.equals(c.der)) ||
        (withSystem &&
          systemIndex().some((e) => e.subject && sameName(e.subject, cert.subject) && der.equals(e.der)))
      );
    },
  };
}

export interface ChainResult {
  ok: boolean;
  /** Leaf first, anchor last, when a path was found. */
  path: Certificate[];
  detail: string;
}

const day = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Builds the path from `leaf` to an anchor (issuers taken from `pool` and the anchors) and validates it at `at`. */
export function validateChain(
  leaf: Certificate,
  pool: Certificate[],
  anchors: TrustAnchors,
  at: Date,
  allowWeak = false,
): ChainResult {
  // The given anchors first: Node's roots are read only when they are needed.
  const path =
    findPath([leaf], pool, anchors, false, 0, allowWeak) ??
    findPath([leaf], pool, anchors, true, 0, allowWeak);
  if (!path) {
    const issuer = pool.find((c) => c !== leaf && sameName(c.subject, leaf.issuer));
    const top = issuer ? findTop(issuer, pool) : leaf;
    return {
      ok: false,
      path: [],
      detail: `not to a trusted root: ${issuer ? `its issuer ${displayName(top)} is not among the trusted certificates` : `the certificate of its issuer is neither in the signature nor among the trusted certificates`}`,
    };
  }
  for (const [i, cert] of path.entries()) {
    const who = i === 0 ? "the signer's certificate" : `${displayName(cert)}'s certificate`;
    if (cert.unknownCritical.length > 0)
      return {
        ok: false,
        path,
        detail: `${who} has a critical extension this check does not understand (${cert.unknownCritical.join(', ')})`,
      };
    if (at < cert.notBefore)
      return {
        ok: false,
        path,
        detail: `${who} was not yet valid at the validation time ${day(at)} (valid from ${day(cert.notBefore)})`,
      };
    if (at > cert.notAfter)
      return {
        ok: false,
        path,
        detail: `${who} had expired at the validation time ${day(at)} (valid until ${day(cert.notAfter)})`,
      };
    if (i === 0) continue;
    const anchor = i === path.length - 1;
    // An anchor is trusted as given, but one that says it is not a CA may not issue.
    if (!cert.ca && !(anchor && !cert.basicConstraints))
      return {
        ok: false,
        path,
        detail: `${who} is not a CA certificate (basic constraints), yet it issued ${displayName(path[i - 1]!)}'s`,
      };
    if (cert.keyUsage && !cert.keyUsage.keyCertSign)
      return { ok: false, path, detail: `${who} may not sign certificates (key usage)` };
    if (cert.pathLength !== undefined && i - 1 > cert.pathLength)
      return {
        ok: false,
        path,
        detail: `${who} allows ${cert.pathLength} intermediate CA certificates below it; the path has ${i - 1}`,
      };
  }
  return { ok: true, path, detail: `to a trusted root (${displayName(path.at(-1)!)})` };
}

/** The furthest issuer reachable within the pool, for naming the missing root. */
function findTop(cert: Certificate, pool: Certificate[]): Certificate {
  let top = cert;
  for (let i = 0; i < 8; i++) {
    const next = pool.find(
      (c) => c !== top && sameName(c.subject, top.issuer) && !sameName(top.subject, top.issuer),
    );
    if (!next) break;
    top = next;
  }
  return top;
}

/** Depth-first through the candidate issuers, anchors first. */
function findPath(
  path: Certificate[],
  pool: Certificate[],
  anchors: TrustAnchors,
  system: boolean,
  depth: number,
  allowWeak: boolean,
): Certificate[] | null {
  const current = path.at(-1)!;
  if (anchors.has(current, system)) return path;
  if (depth > 8) return null;
  for (const anchor of anchors.named(current.issuer, system)) {
    if (issuedBy(current, anchor, allowWeak)) return [...path, anchor];
  }
  for (const candidate of pool) {
    if (
      path.includes(candidate) ||
      !sameName(candidate.subject, current.issuer) ||
      !issuedBy(current, candidate, allowWeak)
    )
      continue;
    const found = findPath([...path, candidate], pool, anchors, system, depth + 1, allowWeak);
    if (found) return found;
  }
  return null;
}
