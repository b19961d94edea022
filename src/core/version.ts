import { readFileSync } from 'node:fs';

/** Inlined by the CLI bundle (scripts/build/build.mjs); absent in the library, which reads package.json. */
declare const __SIGN_CLI_VERSION__: string | undefined;

/** The package version, read once; the same relative path works from src/ and dist/. */
export const VERSION: string =
  typeof __SIGN_CLI_VERSION__ === 'string'
    ? __SIGN_CLI_VERSION__
    : (() => {
        try {
          const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
            version?: string;
          };
          return pkg.version ?? '0.0.0';
        } catch {
          return '0.0.0';
        }
      })();

export const USER_AGENT = `sign-cli/${VERSION} node/${process.versions.node} (${process.platform})`;
