/**
 * Node's Web Crypto for the certificate and CMS libraries (@peculiar/x509,
 * pkijs), and PEM to DER. The global, not node:crypto's `webcrypto` export:
 * the CLI bundle loads node:crypto's functions lazily, not its objects.
 */
import type { webcrypto as WebCrypto } from 'node:crypto';
import type * as Pkijs from 'pkijs';

/**
 * Node's Web Crypto. A function, not a constant read at load: reading `globalThis.crypto`
 * loads Node's crypto internals, and `verify` imports pemToDer at start-up.
 */
export function webcrypto(): WebCrypto.Crypto {
  return (globalThis as unknown as { crypto: WebCrypto.Crypto }).crypto;
}

/** Tells pkijs to sign and verify with Node's Web Crypto (its engine is process-wide). */
export function usePkijsWithNodeCrypto(pkijs: typeof Pkijs): void {
  pkijs.setEngine(
    'node',
    new pkijs.CryptoEngine({
      name: 'node',
      crypto: webcrypto(),
    }),
  );
}

/** The DER bytes of one PEM block (its armour lines and whitespace dropped). */
export function pemToDer(pem: string): Uint8Array {
  return new Uint8Array(Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64'));
}
