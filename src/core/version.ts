import { readFileSync } from 'node:fs';

/** The package version, read once; the same relative path works from src/ and dist/. */
export const VERSION: string = (() => {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
})();

export const USER_AGENT = `sign-cli/${VERSION} node/${process.versions.node} (${process.platform})`;
