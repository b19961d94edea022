/**
 * A real Secret Service for the keychain tests: a D-Bus session bus of its own
 * (dbus-daemon, socket in a temp dir) with gnome-keyring-daemon on it, its
 * login keyring created and unlocked with a throwaway password, its files in
 * the temp dir (XDG_DATA_HOME). secret-tool (libsecret) is the independent
 * peer that reads what sign-cli stored. `.ci/run` installs gnome-keyring and
 * libsecret-tools, so in CI a missing one fails; elsewhere the tests that need
 * them are skipped, and say why.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './paths.js';
import { missingTools } from './system-tools.js';

/** For describe.skipIf: true when the tests that need a Secret Service cannot run here. */
export const NO_SECRET_SERVICE = missingTools(
  ['dbus-daemon', 'gnome-keyring-daemon', 'secret-tool', 'dbus-send'],
  'dbus-daemon dbus-bin gnome-keyring libsecret-tools',
  'the keychain tests',
);

export interface SecretService {
  /** The environment a process needs to reach it (its bus, and XDG dirs in the temp dir). */
  env: Record<string, string>;
  /** The temp dir holding the bus socket and the keyring's files. */
  dir: string;
  /** The secret stored for these attributes, as libsecret's secret-tool reads it; null when there is none. */
  lookup(attributes: Record<string, string>): string | null;
  /** The attributes of every item whose attributes include these (secret-tool search --all). */
  search(attributes: Record<string, string>): string;
  /** Stops the keyring daemon (SIGSTOP): the bus is there, the Secret Service never answers; call the result to resume it. */
  freeze(): () => void;
  stop(): Promise<void>;
}

function stopped(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function until(what: string, ready: () => boolean, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`${what} did not start:\n${log()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function startSecretService(): Promise<SecretService> {
  const dir = tempDir('sign-cli-keyring-');
  const run = join(dir, 'run');
  mkdirSync(run, { mode: 0o700 });
  const address = `unix:path=${join(dir, 'bus')}`;
  let log = '';
  const bus = spawn(
    'dbus-daemon',
    ['--session', '--nofork', '--nopidfile', `--address=${address}`, '--print-address=1'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  bus.stdout.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  bus.stderr.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  await until(
    'dbus-daemon',
    () => log.includes(address) || bus.exitCode !== null,
    () => log,
  );
  const env = {
    DBUS_SESSION_BUS_ADDRESS: address,
    XDG_DATA_HOME: join(dir, 'data'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_CACHE_HOME: join(dir, 'cache'),
    XDG_RUNTIME_DIR: run,
  };
  const childEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, ...env };
  // --unlock reads the login keyring's password from stdin, creating the keyring unlocked.
  const keyring = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], {
    env: childEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  keyring.stdout.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  keyring.stderr.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  keyring.stdin.end('throwaway-test-password');
  const owned = () => {
    try {
      const reply = execFileSync(
        'dbus-send',
        [
          '--session',
          '--print-reply',
          '--dest=org.freedesktop.DBus',
          '/org/freedesktop/DBus',
          'org.freedesktop.DBus.NameHasOwner',
          'string:org.freedesktop.secrets',
        ],
        { env: childEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
      );
      return /boolean true/.test(reply);
    } catch {
      return false;
    }
  };
  await until(
    'gnome-keyring-daemon',
    () => owned() || keyring.exitCode !== null,
    () => log,
  );
  if (keyring.exitCode !== null) throw new Error(`gnome-keyring-daemon exited:\n${log}`);
  const secretTool = (args: string[]) =>
    execFileSync('secret-tool', args, { env: childEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const pairs = (attributes: Record<string, string>) => Object.entries(attributes).flat();
  return {
    env,
    dir,
    lookup: (attributes) => {
      try {
        return secretTool(['lookup', ...pairs(attributes)]);
      } catch {
        return null;
      }
    },
    search: (attributes) => {
      try {
        // secret-tool prints the attributes on stdout and the secrets' labels on stderr.
        return secretTool(['search', '--all', ...pairs(attributes)]);
      } catch {
        return '';
      }
    },
    freeze: () => {
      keyring.kill('SIGSTOP');
      return () => keyring.kill('SIGCONT');
    },
    stop: async () => {
      keyring.kill('SIGCONT');
      await stopped(keyring);
      await stopped(bus);
    },
  };
}
