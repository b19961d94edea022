import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';
import { ensureFreshBuild } from '../helpers/fresh-build.js';

// These run the built dist/ (the package as installed): build it when src/ is newer.
ensureFreshBuild();

describe('sign-cli as a library', () => {
  it("is importable by its package name, from the built dist (the package's exports)", () => {
    const script = `import('sign-cli').then((m) => console.log(JSON.stringify([typeof m.SignClient, typeof m.validateEnvelope, typeof m.WebhookVerifier, typeof m.runBulk, m.maskKey('sk_live_0123456789abcdefghij')])))`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual(['function', 'function', 'function', 'function', 'sk_live_****ghij']);
  });
});
