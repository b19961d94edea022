/**
 * The standard security handler (ISO 32000-2 7.6.4): the file key from a password (the user's or
 * the owner's; the empty one first, as readers open such files without asking), and each object's
 * strings and streams decrypted with it: RC4 (R2 to R4), AES-128 (AESV2) and AES-256 (AESV3, R5
 * and R6). Left as written, as the standard says: the encryption dictionary itself,
 * cross-reference streams, a signature's /Contents (what it signed is the file's bytes), metadata
 * when /EncryptMetadata is false, and streams whose crypt filter is /Identity. Objects inside an
 * object stream are decrypted with their stream. Other handlers (public-key, /Adobe.PubSec) are
 * not decrypted here.
 */
import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import {
  dictOf,
  isDict,
  isName,
  isRef,
  isStream,
  isString,
  textOf,
  type PdfDict,
  type PdfStream,
  type PdfValue,
} from './pdf-objects.js';

/** Decrypts what object `num gen` holds. */
export type Decrypt = (value: PdfValue, num: number, gen: number) => PdfValue;

/** How a file's encryption was met: opened (with which password), or not. */
export type Encryption =
  | { state: 'none' }
  | { state: 'open'; password: 'empty' | 'given'; decrypt: Decrypt }
  | { state: 'locked'; why: 'password' | 'handler'; handler: string };

const PAD = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');

/** RC4, which OpenSSL 3 keeps only in its legacy provider. */
function rc4(key: Uint8Array, data: Uint8Array): Buffer {
  const s = new Uint8Array(256);
  for (let i = 0; i < 256; i++) s[i] = i;
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 255;
    j = (j + s[i]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
    out[n] = data[n]! ^ s[(s[i]! + s[j]!) & 255]!;
  }
  return out;
}

const md5 = (...parts: Uint8Array[]) => {
  const hash = createHash('md5');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

/** AES-CBC decryption with the IV in front and PKCS#5 padding; null when the data is not that. */
function aesDecrypt(key: Uint8Array, data: Uint8Array): Buffer | null {
  if (data.length < 32 || data.length % 16 !== 0) return null;
  try {
    const decipher = createDecipheriv(
      key.length === 32 ? 'aes-256-cbc' : 'aes-128-cbc',
      key,
      data.subarray(0, 16),
    );
    return Buffer.concat([decipher.update(data.subarray(16)), decipher.final()]);
  } catch {
    return null;
  }
}

function aesNoPadding(
  mode: 'encrypt' | 'decrypt',
  bits: 128 | 256,
  key: Uint8Array,
  iv: Uint8Array,
  data: Uint8Array,
): Buffer {
  const cipher =
    mode === 'encrypt'
      ? createCipheriv(`aes-${bits}-cbc`, key, iv)
      : createDecipheriv(`aes-${bits}-cbc`, key, iv);
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(data), cipher.final()]);
}

const bytesOf = (value: PdfValue | undefined) =>
  isString(value) ? Buffer.from(value.bytes) : Buffer.alloc(0);
const numberOf = (value: PdfValue | undefined, fallback: number) =>
  typeof value === 'number' ? value : fallback;

/** Algorithm 2: the file key of R2 to R4 from a password's first 32 bytes. */
function keyR4(password: Buffer, dict: PdfDict, id0: Buffer, length: number, r: number): Buffer {
  const padded = Buffer.concat([password.subarray(0, 32), PAD]).subarray(0, 32);
  const p = Buffer.alloc(4);
  p.writeInt32LE(numberOf(dict.entries.get('P'), 0) | 0);
  const parts = [padded, bytesOf(dict.entries.get('O')).subarray(0, 32), p, id0];
  if (r >= 4 && dict.entries.get('EncryptMetadata') === false) parts.push(Buffer.from([255, 255, 255, 255]));
  let key = md5(...parts);
  if (r >= 3) for (let i = 0; i < 50; i++) key = md5(key.subarray(0, length));
  return key.subarray(0, r === 2 ? 5 : length);
}

/** Algorithms 4 and 5: whether `key` is the one the user password makes. */
function userKeyMatches(key: Buffer, dict: PdfDict, id0: Buffer, r: number): boolean {
  const u = bytesOf(dict.entries.get('U'));
  if (r === 2) return rc4(key, PAD).equals(u.subarray(0, 32));
  let value = rc4(key, md5(PAD, id0));
  for (let i = 1; i <= 19; i++)
    value = rc4(
      key.map((b) => b ^ i),
      value,
    );
  return value.equals(u.subarray(0, 16));
}

/** Algorithm 7's first half: the user password an owner password unlocks (R2 to R4). */
function userPasswordFromOwner(owner: Buffer, dict: PdfDict, length: number, r: number): Buffer {
  let key: Buffer = md5(Buffer.concat([owner.subarray(0, 32), PAD]).subarray(0, 32));
  if (r >= 3) for (let i = 0; i < 50; i++) key = md5(key.subarray(0, length));
  key = key.subarray(0, r === 2 ? 5 : length);
  let value: Buffer = bytesOf(dict.entries.get('O')).subarray(0, 32);
  if (r === 2) return rc4(key, value);
  for (let i = 19; i >= 0; i--)
    value = rc4(
      key.map((b) => b ^ i),
      value,
    );
  return value;
}

/** Algorithm 2.B (R6), or plain SHA-256 (R5): the hash a password and a salt make. */
function hashR6(password: Buffer, salt: Buffer, udata: Buffer, r: number): Buffer {
  let k = createHash('sha256').update(password).update(salt).update(udata).digest();
  if (r === 5) return k;
  for (let i = 0; ; i++) {
    const k1 = Buffer.concat(Array.from({ length: 64 }, () => Buffer.concat([password, k, udata])));
    const e = aesNoPadding('encrypt', 128, k.subarray(0, 16), k.subarray(16, 32), k1);
    let sum = 0;
    for (let j = 0; j < 16; j++) sum += e[j]!;
    k = createHash(['sha256', 'sha384', 'sha512'][sum % 3]!)
      .update(e)
      .digest();
    if (i >= 63 && e[e.length - 1]! <= i - 31) return k.subarray(0, 32);
  }
}

/** Algorithm 2.A (R5, R6): the file key, from the user or the owner password; null when neither opens it. */
function keyR6(password: string, dict: PdfDict, r: number): Buffer | null {
  const pw = Buffer.from(password.normalize('NFKC'), 'utf8').subarray(0, 127);
  const u = bytesOf(dict.entries.get('U'));
  const o = bytesOf(dict.entries.get('O'));
  const none = Buffer.alloc(0);
  const iv = Buffer.alloc(16);
  if (hashR6(pw, o.subarray(32, 40), u.subarray(0, 48), r).equals(o.subarray(0, 32)))
    return aesNoPadding(
      'decrypt',
      256,
      hashR6(pw, o.subarray(40, 48), u.subarray(0, 48), r),
      iv,
      bytesOf(dict.entries.get('OE')),
    );
  if (hashR6(pw, u.subarray(32, 40), none, r).equals(u.subarray(0, 32)))
    return aesNoPadding(
      'decrypt',
      256,
      hashR6(pw, u.subarray(40, 48), none, r),
      iv,
      bytesOf(dict.entries.get('UE')),
    );
  return null;
}

/** The file key that one of `passwords` opens, and which one; null when none does. */
function fileKey(dict: PdfDict, id0: Buffer, passwords: string[]): { key: Buffer; index: number } | null {
  const r = numberOf(dict.entries.get('R'), 2);
  const length = Math.max(5, Math.min(16, numberOf(dict.entries.get('Length'), 40) / 8));
  for (const [index, password] of passwords.entries()) {
    if (r >= 5) {
      const key = keyR6(password, dict, r);
      if (key) return { key, index };
      continue;
    }
    const bytes = Buffer.from(password, 'latin1');
    const asUser = keyR4(bytes, dict, id0, length, r);
    if (userKeyMatches(asUser, dict, id0, r)) return { key: asUser, index };
    const asOwner = keyR4(userPasswordFromOwner(bytes, dict, length, r), dict, id0, length, r);
    if (userKeyMatches(asOwner, dict, id0, r)) return { key: asOwner, index };
  }
  return null;
}

type Method = 'None' | 'V2' | 'AESV2' | 'AESV3';

/** The method of the crypt filter named `name` (/StmF, /StrF), as V4 and V5 name them. */
function methodOf(dict: PdfDict, name: PdfValue | undefined): Method {
  const v = numberOf(dict.entries.get('V'), 0);
  if (v < 4) return 'V2';
  const filterName = isName(name) ? name.name : 'Identity';
  if (filterName === 'Identity') return 'None';
  const filter = dictOf(dictOf(dict.entries.get('CF'))?.entries.get(filterName));
  const cfm = textOf(filter?.entries.get('CFM'));
  return cfm === 'AESV2' || cfm === 'AESV3' || cfm === 'V2' ? cfm : 'None';
}

/**
 * How the file's encryption is met: `encrypt` is its encryption dictionary (`encryptNum` the
 * object holding it, left as written), `id0` the first part of the trailer's /ID; the empty
 * password is tried first, then `password`.
 */
export function openEncryption(
  encrypt: PdfDict,
  encryptNum: number | null,
  id0: Uint8Array,
  password: string | undefined,
): Encryption {
  const handler = textOf(encrypt.entries.get('Filter')) ?? '?';
  if (handler !== 'Standard') return { state: 'locked', why: 'handler', handler };
  const passwords = password === undefined ? [''] : ['', password];
  const found = fileKey(encrypt, Buffer.from(id0), passwords);
  if (!found) return { state: 'locked', why: 'password', handler };
  const { key } = found;
  const streams = methodOf(encrypt, encrypt.entries.get('StmF'));
  const strings = methodOf(encrypt, encrypt.entries.get('StrF'));
  const metadata = encrypt.entries.get('EncryptMetadata') !== false;
  const objectKey = (num: number, gen: number, method: Method): Buffer => {
    if (method === 'AESV3') return key;
    const extra = Buffer.from([num & 255, (num >> 8) & 255, (num >> 16) & 255, gen & 255, (gen >> 8) & 255]);
    const salt = method === 'AESV2' ? Buffer.from('sAlT', 'latin1') : Buffer.alloc(0);
    return md5(key, extra, salt).subarray(0, Math.min(key.length + 5, 16));
  };
  const run = (data: Uint8Array, num: number, gen: number, method: Method): Uint8Array => {
    if (method === 'None') return data;
    const k = objectKey(num, gen, method);
    return method === 'V2' ? rc4(k, data) : (aesDecrypt(k, data) ?? data);
  };
  const decrypt: Decrypt = (value, num, gen) => {
    if (num === encryptNum) return value;
    const walk = (v: PdfValue, depth: number): PdfValue => {
      if (depth > 200 || typeof v !== 'object' || v === null || isRef(v)) return v;
      if (Array.isArray(v)) return v.map((item) => walk(item, depth + 1));
      if (isString(v)) return v.raw ? v : { kind: 'string', bytes: run(v.bytes, num, gen, strings) };
      if (isDict(v)) return walkDict(v, depth);
      if (isStream(v)) return walkStream(v, depth);
      return v;
    };
    const walkDict = (d: PdfDict, depth: number): PdfDict => {
      // A signature's /Contents is not encrypted: what it signs is the file's bytes, as written.
      const signature =
        d.entries.has('ByteRange') ||
        isName(d.entries.get('Type'), 'Sig') ||
        isName(d.entries.get('Type'), 'DocTimeStamp');
      const entries = new Map<string, PdfValue>();
      for (const [k, item] of d.entries)
        entries.set(k, signature && k === 'Contents' ? item : walk(item, depth + 1));
      return { kind: 'dict', entries };
    };
    const walkStream = (s: PdfStream, depth: number): PdfStream => {
      const type = s.dict.entries.get('Type');
      const filters = s.dict.entries.get('Filter');
      const crypt = Array.isArray(filters)
        ? filters.some((f) => isName(f, 'Crypt'))
        : isName(filters, 'Crypt');
      const plain = isName(type, 'XRef') || (isName(type, 'Metadata') && !metadata) || crypt;
      return {
        kind: 'stream',
        dict: walkDict(s.dict, depth),
        raw: plain ? s.raw : run(s.raw, num, gen, streams),
      };
    };
    return walk(value, 0);
  };
  return { state: 'open', password: found.index === 0 ? 'empty' : 'given', decrypt };
}
