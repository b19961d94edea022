/**
 * poppler's pdfsig with an NSS database of the test's own (certutil, from
 * NSS's tools): the independent implementation PAdES signatures are checked
 * against. `.ci/run` installs poppler-utils and libnss3-tools, so in CI a
 * missing one fails; elsewhere the tests that need them are skipped, and say why.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { missingTools } from './system-tools.js';
import { tempDir } from './paths.js';

/** For describe.skipIf: true when pdfsig, certutil, pk12util or openssl is missing here. */
export const NO_PDFSIG = missingTools(
  ['pdfsig', 'certutil', 'pk12util', 'openssl'],
  'poppler-utils libnss3-tools openssl',
  'the PAdES interoperability tests',
);

export interface Pdfsig {
  /** The NSS database, as pdfsig's -nssdir takes it. */
  nssdir: string;
  /** pdfsig's report of a file (stdout and stderr together), trusting the CAs given to trust(). */
  check(file: string): string;
  /**
   * The same, run apart from this process: NSS asks the OCSP responder a certificate names, and
   * a sandbox in this process can answer only while this process is not blocked waiting.
   */
  checkOnline(file: string): Promise<string>;
}

/** An empty NSS database trusting the given CA certificates (PEM files) for signing. */
export function pdfsigTrusting(...caFiles: string[]): Pdfsig {
  const nssdir = `sql:${tempDir('sign-cli-nss-')}`;
  execFileSync('certutil', ['-N', '-d', nssdir, '--empty-password'], { stdio: 'ignore' });
  caFiles.forEach((file, i) =>
    execFileSync('certutil', ['-A', '-d', nssdir, '-n', `ca${i}`, '-t', 'CT,C,C', '-i', file], {
      stdio: 'ignore',
    }),
  );
  return {
    nssdir,
    check: (file) => {
      const run = spawnSync('pdfsig', ['-nssdir', nssdir, file], { encoding: 'utf8' });
      return `${run.stdout}${run.stderr}`;
    },
    checkOnline: (file) =>
      new Promise((resolve) => {
        execFile('pdfsig', ['-nssdir', nssdir, file], { encoding: 'utf8' }, (_error, stdout, stderr) =>
          resolve(`${stdout}${stderr}`),
        );
      }),
  };
}
