/**
 * docs/library.md is executable: every ```ts block is type-checked against the
 * package's published types (imported by its name, `esign-envelopes-cli`, as a user
 * would) and run against a real sandbox. A misuse the types must catch is
 * checked too.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, cleanEnv } from '../helpers/cli.js';
import { NO_REDIS, startRedis } from '../helpers/redis.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';

const blocks = [
  ...readFileSync(join(ROOT, 'docs', 'library.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g),
].map((m) => m[1]!);
/** Inside the package, so `import 'esign-envelopes-cli'` resolves through its own exports, as in a user's project. */
const dir = mkdtempSync(join(ROOT, '.docs-examples-'));
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
  },
};

function typecheck(files: string[]): { status: number | null; output: string } {
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ ...TSCONFIG, files }));
  const result = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(dir, 'tsconfig.json')],
    { encoding: 'utf8' },
  );
  return { status: result.status, output: result.stdout + result.stderr };
}

let sandbox: SandboxProcess;
beforeAll(async () => {
  sandbox = await startSandboxProcess({ args: ['--speed', '40'] });
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('docs/library.md', () => {
  it('has examples, and each type-checks against the published types', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    const files = blocks.map((code, i) => {
      writeFileSync(join(dir, `example-${i + 1}.mts`), code);
      return `example-${i + 1}.mts`;
    });
    const result = typecheck(files);
    expect(result.output).toBe('');
    expect(result.status).toBe(0);
  });

  it('the types refuse a misspelt or wrongly typed envelope at compile time', () => {
    writeFileSync(
      join(dir, 'misuse.mts'),
      `import { SignClient } from 'esign-envelopes-cli';\nconst client = new SignClient({ baseUrl: 'http://127.0.0.1:4010' });\nawait client.createEnvelope({ titel: 'x', signers: 'nope' });\nconst e = await client.getEnvelope('env_1');\nconst n: number = e.status;\n`,
    );
    const result = typecheck(['misuse.mts']);
    expect(result.status).not.toBe(0);
    expect(result.output).toMatch(/misuse\.mts\(3,/);
    expect(result.output).toMatch(/misuse\.mts\(5,/);
  });

  it.each([
    [1, /^env_\w+ sent true true$/m],
    [2, /^true completed verified \d+ entries$/m],
    [3, /^refused key 401 key_refused$/m],
    [4, /^verified msg_1\nrefused forgery: signature_mismatch$/m],
    [5, /^true true$/m],
    [7, /^1 true voided voided 0$/m],
    [8, /^\S+ valid\nvalid false$/m],
  ])(
    'example %i runs against the sandbox and prints what it says',
    (n, expected) => {
      const result = runExample(n);
      expect(result.stderr.replace(/^.*: is not among the values sign-cli knows.*\n?/gm, '')).toBe('');
      expect(result.status).toBe(0);
      expect(result.stdout).toMatch(expected);
    },
    70_000,
  );

  it.skipIf(NO_REDIS)(
    'example 6 shares the budget through a real redis-server',
    async () => {
      const redis = await startRedis();
      try {
        const result = runExample(6, { SIGN_RATE_STORE: redis.url });
        expect(result.stderr).toBe('');
        expect(result.status).toBe(0);
        expect(result.stdout).toMatch(/^shared true$/m);
      } finally {
        await redis.stop();
      }
    },
    70_000,
  );
});

function runExample(n: number, env: Record<string, string> = {}) {
  const js = ts.transpileModule(blocks[n - 1]!, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const file = join(dir, `run-${n}.mjs`);
  writeFileSync(file, js);
  return spawnSync(process.execPath, [file], {
    cwd: dir,
    encoding: 'utf8',
    env: cleanEnv({ SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey, ...env }),
    timeout: 60_000,
  });
}
