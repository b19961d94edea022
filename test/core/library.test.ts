import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';
import { ensureFreshBuild } from '../helpers/fresh-build.js';

// These run the built dist/ (the package as installed): build it when src/ is newer.
ensureFreshBuild();

describe('sign-cli as a library', () => {
  it("is importable by its package name, from the built dist (the package's exports)", () => {
    // runBulk is the CLI's, internal: the package does not offer it.
    const script = `import('esign-envelopes-cli').then((m) => console.log(JSON.stringify([typeof m.SignClient, typeof m.validateEnvelope, typeof m.WebhookVerifier, typeof m.verifyPdf, typeof m.runBulk])))`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual(['function', 'function', 'function', 'function', 'undefined']);
  });
});

describe('docs/library.md', () => {
  it('names every export of the library, and nothing the library does not export', () => {
    const index = readFileSync(join(ROOT, 'src', 'core', 'index.ts'), 'utf8');
    const exported = new Set<string>();
    for (const [, names] of index.matchAll(/export (?:type )?\{([^}]*)\}/g)) {
      for (const name of names!.split(',')) {
        const bare = name
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)
          .at(-1)!
          .trim();
        if (bare) exported.add(bare);
      }
    }
    expect(exported.size).toBeGreaterThan(20);
    const doc = readFileSync(join(ROOT, 'docs', 'library.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## The public API, name by name'));
    const documented = new Set([...section.matchAll(/`([A-Za-z_][\w]*)`/g)].map((m) => m[1]!));
    expect([...exported].filter((name) => !documented.has(name))).toEqual([]);
    // Anything else in code there is an option, a field or a value of an export, or the other entry point.
    const others = [...documented].filter((name) => !exported.has(name)).sort();
    expect(others).toEqual([
      'createEnvelope',
      'hint',
      'issues',
      'nothingSent',
      'onTrace',
      'openRedisBudget',
      'pacer',
      'paths',
      'proxy',
      'reason',
      'reasonData',
      'scheme',
      'sent',
    ]);
  });
});
