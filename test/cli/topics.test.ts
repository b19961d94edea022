/** `sign-cli help environment` lists every variable src/ reads, and nothing it does not. */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT } from '../../src/cli/help/topics.js';
import { runCommand } from '../helpers/in-process.js';
import { ROOT } from '../helpers/paths.js';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const documented = new Set(ENVIRONMENT.flatMap((v) => v.name.split(/,\s*/)));

describe('help environment', () => {
  it('documents every variable src/ reads', () => {
    const read = new Set<string>();
    for (const file of sources(join(ROOT, 'src'))) {
      const text = readFileSync(file, 'utf8');
      // env.NAME, env['NAME'], and names handed to a reader as strings ('SIGN_RETRIES', 'https_proxy').
      for (const m of text.matchAll(
        /env\??\.([A-Z][A-Z0-9_]+)|env\[['"]([A-Z][A-Z0-9_]+)['"]\]|'((?:SIGN|NODE|HTTPS?|NO)_[A-Z_]+|https?_proxy|no_proxy)'/g,
      )) {
        read.add((m[1] ?? m[2] ?? m[3])!.toUpperCase());
      }
    }
    expect(read.size).toBeGreaterThan(15);
    // Not a user's to set: the marker of a detached sandbox's own child, and a line of credentials.env.
    const internal = new Set(['SIGN_SANDBOX_DETACHED', 'SIGN_SANDBOX_SIGNING_KEY']);
    expect([...read].filter((name) => !documented.has(name) && !internal.has(name)).sort()).toEqual([]);
  });

  it('prints each of them', async () => {
    const result = await runCommand(['help', 'environment']);
    expect(result.code).toBe(0);
    for (const name of documented) expect(result.stdout).toContain(name);
  });
});
