/**
 * HMAC (RFC 2104) with the key's two padded blocks prepared once, so each
 * message costs two one-shot `crypto.hash` calls over plain buffers instead of
 * building a `crypto.Hmac` object (a stream, keyed anew through OpenSSL every
 * time). On the listener's hot path this is the cheaper of the two (bench/listener.mjs
 * measures the listener), and is checked against `createHmac` in test/core/hmac.test.ts.
 */
import { hash } from 'node:crypto';

export type HmacDigest = 'sha256' | 'sha512';

const BLOCK_BYTES: Record<HmacDigest, number> = { sha256: 64, sha512: 128 };

export class PreparedHmac {
  /** key XOR ipad, one block: the start of the inner hash's input. */
  private readonly innerPad: Buffer;
  /** key XOR opad, one block: the start of the outer hash's input. */
  private readonly outerPad: Buffer;

  constructor(
    readonly digest: HmacDigest,
    key: Buffer,
  ) {
    const blockBytes = BLOCK_BYTES[digest];
    // RFC 2104: a key longer than a block is replaced by its hash; a shorter one is zero-padded.
    const block = Buffer.alloc(blockBytes);
    (key.length > blockBytes ? hash(digest, key, 'buffer') : key).copy(block);
    this.innerPad = Buffer.alloc(blockBytes);
    this.outerPad = Buffer.alloc(blockBytes);
    for (let i = 0; i < blockBytes; i++) {
      this.innerPad[i] = block[i]! ^ 0x36;
      this.outerPad[i] = block[i]! ^ 0x5c;
    }
  }

  /** The HMAC of `prefix` (UTF-8) followed by `body`. */
  mac(prefix: string, body: Buffer): Buffer {
    const inner = hash(
      this.digest,
      Buffer.concat([this.innerPad, Buffer.from(prefix, 'utf8'), body]),
      'buffer',
    );
    return hash(this.digest, Buffer.concat([this.outerPad, inner]), 'buffer');
  }
}
