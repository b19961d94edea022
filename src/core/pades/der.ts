/**
 * A small reader of DER (and the BER that CMS writers emit: NSS writes
 * indefinite lengths, some write OCTET STRINGs in chunks),
 * enough for certificates, CMS SignedData and RFC 3161 tokens. Written here
 * rather than loaded from asn1js and pkijs: loading those two takes longer than
 * all of `verify` may take (bench/verify.mjs holds it to its start-up target).
 * Every read is bounded by its parent; a malformed input throws DerError,
 * which the verifier turns into "the CMS is not readable".
 */

export class DerError extends Error {
  override readonly name = 'DerError';
}

/** One TLV: its tag, and where its header and value sit in the buffer it came from. */
export interface Der {
  /** 0 universal, 1 application, 2 context, 3 private. */
  cls: number;
  constructed: boolean;
  /** Tag number within its class. */
  tag: number;
  buf: Uint8Array;
  /** Offset of the first header byte. */
  start: number;
  /** Offset of the first value byte. */
  valueStart: number;
  /** Offset after the last value byte. */
  end: number;
  /** Offset after the whole TLV: `end`, or after the end-of-contents octets of an indefinite length. */
  next: number;
}

export const TAG = {
  boolean: 1,
  integer: 2,
  bitString: 3,
  octetString: 4,
  null: 5,
  oid: 6,
  utf8String: 12,
  sequence: 16,
  set: 17,
  printableString: 19,
  t61String: 20,
  ia5String: 22,
  utcTime: 23,
  generalizedTime: 24,
  universalString: 28,
  bmpString: 30,
} as const;

/** The TLV at `offset`, which must end by `limit`. */
export function readDer(buf: Uint8Array, offset = 0, limit = buf.length): Der {
  if (offset + 2 > limit) throw new DerError('truncated');
  const first = buf[offset]!;
  let pos = offset + 1;
  let tag = first & 0x1f;
  if (tag === 0x1f) {
    tag = 0;
    for (let i = 0; ; i++) {
      if (pos >= limit || i > 3) throw new DerError('bad tag');
      const b = buf[pos++]!;
      tag = tag * 128 + (b & 0x7f);
      if (!(b & 0x80)) break;
    }
  }
  if (pos >= limit) throw new DerError('truncated');
  let length = buf[pos++]!;
  if (length === 0x80) {
    // BER's indefinite length (NSS writes CMS so): children up to the end-of-contents octets 00 00.
    if (!(first & 0x20)) throw new DerError('indefinite length on a primitive value');
    let at = pos;
    for (let i = 0; ; i++) {
      if (at + 2 > limit || i > 100_000) throw new DerError('truncated');
      if (buf[at] === 0 && buf[at + 1] === 0) break;
      at = readDer(buf, at, limit).next;
    }
    return {
      cls: first >> 6,
      constructed: true,
      tag,
      buf,
      start: offset,
      valueStart: pos,
      end: at,
      next: at + 2,
    };
  }
  if (length > 0x80) {
    const count = length & 0x7f;
    if (count > 4 || pos + count > limit) throw new DerError('bad length');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + buf[pos++]!;
  }
  if (pos + length > limit) throw new DerError('truncated');
  return {
    cls: first >> 6,
    constructed: (first & 0x20) !== 0,
    tag,
    buf,
    start: offset,
    valueStart: pos,
    end: pos + length,
    next: pos + length,
  };
}

/** The children of a constructed TLV. */
export function children(node: Der): Der[] {
  if (!node.constructed) throw new DerError('not constructed');
  const out: Der[] = [];
  let pos = node.valueStart;
  while (pos < node.end) {
    const child = readDer(node.buf, pos, node.end);
    out.push(child);
    pos = child.next;
  }
  return out;
}

/** The value bytes (no header). */
export const value = (node: Der): Uint8Array => node.buf.subarray(node.valueStart, node.end);
/** The whole TLV, header included: what a hash or a signature covers. */
export const encoded = (node: Der): Uint8Array => node.buf.subarray(node.start, node.next);

export function is(node: Der | undefined, tag: number, cls = 0): node is Der {
  return node !== undefined && node.cls === cls && node.tag === tag;
}

/** The children of a SEQUENCE (or SET), or DerError naming what was expected. */
export function sequence(node: Der | undefined, what: string): Der[] {
  if (!node || !node.constructed || node.cls !== 0 || (node.tag !== TAG.sequence && node.tag !== TAG.set))
    throw new DerError(`${what} is not a SEQUENCE`);
  return children(node);
}

/** The single child of an explicitly tagged [n]. */
export function explicit(node: Der): Der {
  const inner = children(node);
  if (inner.length !== 1) throw new DerError('an explicit tag holds one value');
  return inner[0]!;
}

export function oid(node: Der | undefined): string {
  if (!is(node, TAG.oid)) throw new DerError('not an OBJECT IDENTIFIER');
  const bytes = value(node);
  const parts: number[] = [];
  let n = 0;
  for (const b of bytes) {
    n = n * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      if (parts.length === 0) parts.push(n < 80 ? Math.floor(n / 40) : 2, n < 80 ? n % 40 : n - 80);
      else parts.push(n);
      n = 0;
    }
  }
  return parts.join('.');
}

/**
 * An INTEGER's value bytes as hex (for serial numbers, compared as written). One padded with a
 * byte that adds nothing (00 before a byte under 80, FF before one from 80) is not DER, and OpenSSL
 * and BouncyCastle (hence DSS) refuse the certificate or CMS that holds it: so does this reader.
 */
export function integerHex(node: Der | undefined): string {
  if (!is(node, TAG.integer)) throw new DerError('not an INTEGER');
  const bytes = value(node);
  if (bytes.length === 0) throw new DerError('an empty INTEGER');
  if (bytes.length > 1 && ((bytes[0] === 0 && bytes[1]! < 0x80) || (bytes[0] === 0xff && bytes[1]! >= 0x80)))
    throw new DerError('an INTEGER padded with a byte that adds nothing (not DER)');
  return Buffer.from(bytes).toString('hex');
}

/** A small INTEGER as a number. */
export function smallInteger(node: Der | undefined): number {
  if (!is(node, TAG.integer)) throw new DerError('not an INTEGER');
  const bytes = value(node);
  if (bytes.length > 6) throw new DerError('INTEGER too large');
  let n = (bytes[0] ?? 0) & 0x80 ? -1 : 0;
  for (const b of bytes) n = n * 256 + b;
  return n;
}

/** An OCTET STRING's bytes; a constructed one (BER, as some CMS writers chunk content) is joined. */
export function octets(node: Der | undefined): Uint8Array {
  if (!is(node, TAG.octetString)) throw new DerError('not an OCTET STRING');
  if (!node.constructed) return value(node);
  return Buffer.concat(children(node).map((chunk) => octets(chunk)));
}

/** A BIT STRING's bytes, its unused-bits count dropped. */
export function bits(node: Der | undefined): Uint8Array {
  if (!is(node, TAG.bitString)) throw new DerError('not a BIT STRING');
  return value(node).subarray(1);
}

/** UTCTime or GeneralizedTime as a Date. */
export function time(node: Der | undefined): Date {
  if (!node || node.cls !== 0 || (node.tag !== TAG.utcTime && node.tag !== TAG.generalizedTime))
    throw new DerError('not a time');
  const text = Buffer.from(value(node)).toString('latin1');
  const m = /^(\d{2}|\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?(?:[.,](\d+))?(Z|[+-]\d{4})?$/.exec(text);
  if (!m) throw new DerError(`bad time ${text}`);
  let year = Number(m[1]);
  if (node.tag === TAG.utcTime) year += year < 50 ? 2000 : 1900;
  const zone = !m[8] || m[8] === 'Z' ? 'Z' : `${m[8].slice(0, 3)}:${m[8].slice(3)}`;
  const date = new Date(
    `${String(year).padStart(4, '0')}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? '00'}${m[7] ? `.${m[7].slice(0, 3).padEnd(3, '0')}` : ''}${zone}`,
  );
  if (Number.isNaN(date.getTime())) throw new DerError(`bad time ${text}`);
  return date;
}

/** A directory string (the value of a name attribute) as text. */
export function directoryString(node: Der): string {
  const bytes = value(node);
  switch (node.tag) {
    case TAG.bmpString:
      return Buffer.from(bytes).swap16().toString('utf16le');
    case TAG.universalString: {
      let text = '';
      for (let i = 0; i + 3 < bytes.length; i += 4)
        text += String.fromCodePoint(
          ((bytes[i]! << 24) | (bytes[i + 1]! << 16) | (bytes[i + 2]! << 8) | bytes[i + 3]!) >>> 0,
        );
      return text;
    }
    case TAG.t61String:
      return Buffer.from(bytes).toString('latin1');
    default:
      return Buffer.from(bytes).toString('utf8');
  }
}
