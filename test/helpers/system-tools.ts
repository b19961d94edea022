/**
 * Debian packages some tests need as real, independent peers (tinyproxy,
 * gnome-keyring and secret-tool, pdfsig and certutil, openssl): `.ci/run`
 * installs them, so in CI a missing one fails the run; elsewhere (`npm ci &&
 * npm test` on a bare machine) the tests that need them are skipped, and say why.
 */
import { execFileSync } from 'node:child_process';

/** Whether a command is on PATH. */
export function has(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const inCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';

/**
 * True when one of `commands` is missing here (for describe.skipIf): a failure
 * in CI, a one-line note elsewhere naming `what` is skipped and the packages to install.
 */
export function missingTools(commands: string[], packages: string, what: string): boolean {
  const missing = commands.filter((c) => !has(c));
  if (missing.length === 0) return false;
  if (inCi)
    throw new Error(
      `${missing.join(', ')} not installed, and CI needs ${missing.length === 1 ? 'it' : 'them'} (apt-get install ${packages})`,
    );
  console.warn(`${missing.join(', ')} not installed: ${what} are skipped (apt-get install ${packages})`);
  return true;
}
