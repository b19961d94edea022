/**
 * API keys in the OS keychain: Secret Service on Linux (GNOME Keyring,
 * KWallet), Keychain on macOS, Credential Manager on Windows, through
 * @napi-rs/keyring (prebuilt N-API binaries of keyring-rs; no compiler
 * needed). gh keeps its tokens the same way, after reports of tokens left in
 * plain text. The config file keeps the profile's metadata and a reference
 * (service and account); the secret lives in the keychain only.
 *
 * The binding is a native addon, loaded only when a key is stored or read
 * there: a command whose key comes from SIGN_API_KEY never loads it.
 */
import { oneLine } from '../../core/envelope/text.js';

/** The keychain's service name for every sign-cli entry; the account is the profile's (profileAccount). */
export const KEYCHAIN_SERVICE = 'sign-cli';

/**
 * How long a keychain may take to answer before it is taken as absent, as gh
 * does (3 s): a keychain waiting for a prompt nobody can see (a headless
 * session) must not hang a command.
 */
const KEYCHAIN_TIMEOUT_MS = 3_000;

/** No keychain answered: the reason, on one line, for the warning that falls back to the file. */
export class KeychainUnavailableError extends Error {
  override readonly name = 'KeychainUnavailableError';
}

export interface Keychain {
  /** Where secrets go, for messages: "the Secret Service", "the macOS Keychain"… */
  readonly label: string;
  set(account: string, secret: string): Promise<void>;
  /** The secret, or null when the keychain has no such entry. */
  get(account: string): Promise<string | null>;
  /** True when an entry was deleted, false when there was none. */
  delete(account: string): Promise<boolean>;
}

/** What a profile's config entry holds in place of the key. */
export interface KeychainReference {
  service: string;
  account: string;
}

const LABELS: Partial<Record<NodeJS.Platform, string>> = {
  linux: 'the Secret Service',
  darwin: 'the macOS Keychain',
  win32: 'the Windows Credential Manager',
};

/**
 * The platform's keychain, or KeychainUnavailableError saying why there is
 * none. On Linux only the Secret Service counts: keyring-rs would otherwise
 * fall back to the kernel keyring, which forgets everything at logout or
 * reboot, so a key "stored" there would be lost. The Secret Service is found
 * through the D-Bus session in the command's environment: without one (a
 * server, a container, CI) there is no keychain, and the binding is not
 * even loaded.
 */
/** The binding's loader: an import of @napi-rs/keyring (a seam, so a missing module is tested without uninstalling it). */
export type KeychainBindingLoader = () => Promise<typeof import('@napi-rs/keyring')>;
const loadBinding: KeychainBindingLoader = () => import('@napi-rs/keyring');

/**
 * Why the binding did not load, in one line. The common case is an install without it (an offline
 * `npm install` skips the optional native module): Node's "Cannot find module" with its require
 * stack says nothing a user acts on.
 */
export function bindingProblem(error: unknown, platform: string, arch: string): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (
    code === 'MODULE_NOT_FOUND' ||
    code === 'ERR_MODULE_NOT_FOUND' ||
    /Cannot find (?:module|native binding)|Failed to load native binding/i.test(message)
  ) {
    return `no OS keychain module for ${platform}-${arch} (@napi-rs/keyring, an optional dependency, is not installed)`;
  }
  return `the OS keychain module did not load on ${platform}-${arch} (${oneLine(message.split('\n')[0]!).slice(0, 160)})`;
}

export async function openKeychain(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
  load: KeychainBindingLoader = loadBinding,
): Promise<Keychain> {
  const label = LABELS[platform] ?? 'the system keychain';
  if (env.SIGN_KEYCHAIN === 'off') throw new KeychainUnavailableError('SIGN_KEYCHAIN=off');
  if (platform === 'linux' && !env.DBUS_SESSION_BUS_ADDRESS) {
    throw new KeychainUnavailableError(
      'no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set), so no Secret Service',
    );
  }
  let binding: typeof import('@napi-rs/keyring');
  try {
    binding = await load();
  } catch (error) {
    throw new KeychainUnavailableError(bindingProblem(error, platform, process.arch));
  }
  const options = platform === 'linux' ? { linux: { store: 'secret-service' as const } } : undefined;
  const entry = (account: string) => new binding.AsyncEntry(KEYCHAIN_SERVICE, account, options);
  return {
    label,
    set: (account, secret) => answered(label, (signal) => entry(account).setPassword(secret, signal)),
    get: (account) => answered(label, (signal) => entry(account).getPassword(signal)),
    delete: (account) => answered(label, (signal) => entry(account).deleteCredential(signal)),
  };
}

/** One keychain call, bounded in time whether or not the binding stops it; any failure is a KeychainUnavailableError naming the keychain. */
async function answered<T>(label: string, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(
        new KeychainUnavailableError(
          `${label} did not answer: no answer within ${KEYCHAIN_TIMEOUT_MS / 1000} s`,
        ),
      );
    }, KEYCHAIN_TIMEOUT_MS);
  });
  // Raced below; once the call settles first it is never awaited, and must not count as unhandled.
  timedOut.catch(() => {});
  let work: Promise<T> | undefined;
  try {
    // Making the entry connects to D-Bus synchronously, and may throw (no reply): inside the try.
    work = call(controller.signal);
    return await Promise.race([work, timedOut]);
  } catch (error) {
    // The binding cannot cancel a call already under way (a D-Bus call waiting for an unlock
    // prompt nobody sees): it may run on in its thread, and would hold the process open if the
    // CLI waited for the event loop to empty; it does not (runProcess in main.ts exits).
    if (error instanceof KeychainUnavailableError) throw error;
    throw new KeychainUnavailableError(
      `${label} did not answer: ${oneLine((error as Error).message).slice(0, 200)}`,
    );
  } finally {
    clearTimeout(timer);
  }
}
