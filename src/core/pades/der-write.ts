/**
 * DER written by hand (der.ts reads it): the few structures the core makes, a CMS's signed
 * attributes as the SET they are signed as, OCSP and timestamp requests, an OCSP response wrapped
 * from a CMS's basic response. Each function returns one TLV; DER's one encoding is kept (definite
 * lengths, minimal integers, no DEFAULT value written, times in whole seconds). It imports
 * nothing: shared by modules that different commands load, it stays in their chunks.
 */
/** One TLV: the tag byte, a definite length in its shortest form, the content. */
export function encode(tagByte: number, content: Uint8Array): Uint8Array {
  const n = content.length;
  const length: number[] = [];
  for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) length.unshift(rest & 0xff);
  const header = n < 0x80 ? [tagByte, n] : [tagByte, 0x80 | length.length, ...length];
  return Buffer.concat([Uint8Array.from(header), content]);
}

const bytes = (...parts: Uint8Array[]): Uint8Array => Buffer.concat(parts);

export const sequence = (...items: Uint8Array[]) => encode(0x30, bytes(...items));
export const set = (...items: Uint8Array[]) =>
  // A SET OF in DER is sorted by its elements' encodings.
  encode(0x31, bytes(...[...items].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))));
export const octetString = (value: Uint8Array) => encode(0x04, value);
export const nullValue = () => encode(0x05, new Uint8Array());
export const boolean = (value: boolean) => encode(0x01, Uint8Array.of(value ? 0xff : 0));
export const enumerated = (value: number) => encode(0x0a, Uint8Array.of(value));
/** A BIT STRING with no unused bits (a signature, a key). */
export const bitString = (value: Uint8Array) => encode(0x03, bytes(Uint8Array.of(0), value));
/** [n] EXPLICIT around one value (constructed, context class). */
export const explicit = (n: number, ...items: Uint8Array[]) => encode(0xa0 | n, bytes(...items));
/** [n] IMPLICIT of a primitive value (context class). */
export const implicitPrimitive = (n: number, value: Uint8Array) => encode(0x80 | n, value);

/** An INTEGER from its magnitude's bytes (big-endian, unsigned): made minimal and positive. */
export function unsignedInteger(magnitude: Uint8Array): Uint8Array {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  const body = trimmed.length === 0 ? Uint8Array.of(0) : trimmed;
  return encode(0x02, body[0]! & 0x80 ? bytes(Uint8Array.of(0), body) : body);
}

/** A small non-negative INTEGER. */
export function integer(value: number): Uint8Array {
  const out: number[] = [];
  let n = value;
  do {
    out.unshift(n & 0xff);
    n = Math.floor(n / 256);
  } while (n > 0);
  return unsignedInteger(Uint8Array.from(out));
}

export function objectIdentifier(dotted: string): Uint8Array {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const out: number[] = [];
  for (const arc of [first! * 40 + second!, ...rest]) {
    const chunk: number[] = [];
    let n = arc;
    do {
      chunk.unshift((n & 0x7f) | (chunk.length ? 0x80 : 0));
      n = Math.floor(n / 128);
    } while (n > 0);
    out.push(...chunk);
  }
  return encode(0x06, Uint8Array.from(out));
}

const twoDigits = (n: number) => String(n).padStart(2, '0');
const stamp = (d: Date) =>
  `${twoDigits(d.getUTCMonth() + 1)}${twoDigits(d.getUTCDate())}${twoDigits(d.getUTCHours())}${twoDigits(d.getUTCMinutes())}${twoDigits(d.getUTCSeconds())}Z`;

/** GeneralizedTime, whole seconds (what is finer is dropped). */
export const generalizedTime = (d: Date) =>
  encode(0x18, Buffer.from(`${String(d.getUTCFullYear()).padStart(4, '0')}${stamp(d)}`, 'latin1'));

/** RFC 5280's Time: UTCTime through 2049, GeneralizedTime from 2050. */
export const time = (d: Date) =>
  d.getUTCFullYear() < 2050
    ? encode(0x17, Buffer.from(`${twoDigits(d.getUTCFullYear() % 100)}${stamp(d)}`, 'latin1'))
    : generalizedTime(d);

/** AlgorithmIdentifier with NULL parameters (RSA and the hashes). */
export const algorithm = (oid: string) => sequence(objectIdentifier(oid), nullValue());

/** An Extension: its OID, critical only when true (DER omits the DEFAULT), and its DER value wrapped. */
export const extension = (oid: string, value: Uint8Array, critical = false) =>
  sequence(objectIdentifier(oid), ...(critical ? [boolean(true)] : []), octetString(value));
