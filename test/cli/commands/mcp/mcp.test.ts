/**
 * `sign-cli mcp` in process: JSON-RPC lines on stdin, answers on stdout, the
 * in-process sandbox behind. The SDK's own client drives the built CLI in
 * test/e2e/mcp.test.ts; this checks the command's seams without spawning.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { tempDir } from '../../../helpers/paths.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.stop();
});

const request = (id: number, method: string, params: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });
const INITIALIZE = request(0, 'initialize', {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'test', version: '1' },
});
const INITIALIZED = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });

/** Runs the server over the given requests (stdin then ends) and returns its answers by id. */
async function serve(
  lines: string[],
  env: Record<string, string>,
  args: string[] = [],
  globals: string[] = [],
) {
  const result = await runCommand([...globals, 'mcp', '--root', tempDir(), ...args], {
    input: [INITIALIZE, INITIALIZED, ...lines].join('\n') + '\n',
    env,
  });
  const answers = new Map<number, { result?: Record<string, unknown>; error?: unknown }>();
  for (const line of result.stdout.split('\n').filter(Boolean)) {
    const message = JSON.parse(line) as { id?: number; result?: Record<string, unknown>; error?: unknown };
    if (typeof message.id === 'number') answers.set(message.id, message);
  }
  return { ...result, answers };
}

describe('sign-cli mcp (in process)', () => {
  it('answers every request it read before stdin ended, then exits 0; stdout holds only JSON-RPC', async () => {
    const { code, answers, stdout, stderr } = await serve(
      [request(1, 'tools/list'), request(2, 'tools/call', { name: 'list_keys', arguments: {} })],
      sandbox.env,
    );
    expect(code).toBe(0);
    expect(stderr).toMatch(/sign-cli mcp: serving on stdio/);
    expect(
      stdout
        .split('\n')
        .filter(Boolean)
        .every((line) => JSON.parse(line).jsonrpc === '2.0'),
    ).toBe(true);
    expect((answers.get(1)!.result!.tools as unknown[]).length).toBe(13);
    const keys = answers.get(2)!.result!;
    expect(keys.isError).toBeUndefined();
    expect(JSON.stringify(keys.structuredContent)).toMatch(/sk_test_\*{4}/);
    expect(stdout).not.toContain(sandbox.apiKey.slice('sk_test_'.length));
  });

  it('refuses a live write without --allow-live, as a tool error naming the flag', async () => {
    const live = await sandbox.mintKey({ environment: 'live' });
    const call = request(1, 'tools/call', {
      name: 'void_envelope',
      arguments: { id: 'env_x', reason: 'test' },
    });
    const refused = await serve([call], { ...sandbox.env, SIGN_API_KEY: live });
    expect(refused.answers.get(1)!.result).toMatchObject({ isError: true });
    expect(JSON.stringify(refused.answers.get(1)!.result)).toMatch(/--allow-live/);
    // With the flag the void is tried for real: the service answers 404 for an unknown envelope.
    const allowed = await serve([call], { ...sandbox.env, SIGN_API_KEY: live }, ['--allow-live']);
    expect(JSON.stringify(allowed.answers.get(1)!.result)).toMatch(/404|not found/i);
    expect(JSON.stringify(allowed.answers.get(1)!.result)).not.toMatch(/--allow-live/);
  });

  it('turns a failed command into a tool error with its message, not a protocol error', async () => {
    const { answers } = await serve(
      [request(1, 'tools/call', { name: 'get_envelope', arguments: { id: 'env_nope' } })],
      sandbox.env,
    );
    expect(answers.get(1)!.error).toBeUndefined();
    expect(answers.get(1)!.result).toMatchObject({ isError: true });
    expect(JSON.stringify(answers.get(1)!.result)).toMatch(/404/);
  });

  it('takes no argument for an option: an id that starts with a dash is refused, a reason that does is the reason', async () => {
    const { answers } = await serve(
      [
        request(1, 'tools/call', { name: 'get_envelope', arguments: { id: '--verbose' } }),
        request(2, 'tools/call', { name: 'void_envelope', arguments: { id: 'env_nope', reason: '--yes' } }),
      ],
      sandbox.env,
    );
    expect(answers.get(1)!.result).toMatchObject({ isError: true });
    expect(JSON.stringify(answers.get(1)!.result)).toMatch(/an id: a letter or digit/);
    // The void reached the service with its reason: the service's 404, not a usage error.
    expect(JSON.stringify(answers.get(2)!.result)).toMatch(/404/);
  });

  it('counts a key that is not positively a test key as live', async () => {
    const { answers } = await serve(
      [request(1, 'tools/call', { name: 'void_envelope', arguments: { id: 'env_x', reason: 'test' } })],
      { ...sandbox.env, SIGN_API_KEY: 'sk_other_0123456789abcdef0123' },
    );
    expect(answers.get(1)!.result).toMatchObject({ isError: true });
    expect(JSON.stringify(answers.get(1)!.result)).toMatch(
      /not a test key \(environment other\).*--allow-live/,
    );
  });

  it("runs every tool with the server's own connection: a global --base-url reaches the commands", async () => {
    const { answers } = await serve(
      [request(1, 'tools/call', { name: 'list_keys', arguments: {} })],
      { SIGN_API_KEY: sandbox.apiKey },
      [],
      ['--base-url', sandbox.baseUrl],
    );
    expect(answers.get(1)!.result!.isError).toBeUndefined();
    expect(JSON.stringify(answers.get(1)!.result)).toMatch(/sk_test_\*{4}/);
  });

  it("filters list_envelopes by since (the service's created_after) and says what the service said of a bad filter", async () => {
    const { answers } = await serve(
      [
        request(1, 'tools/call', { name: 'list_envelopes', arguments: { since: '2099-01-01' } }),
        request(2, 'tools/call', { name: 'list_envelopes', arguments: { status: 'bogus' } }),
        request(3, 'tools/call', { name: 'list_envelopes', arguments: { since: 'yesterday' } }),
      ],
      sandbox.env,
    );
    expect(answers.get(1)!.result!.structuredContent).toMatchObject({ envelopes: [] });
    expect(answers.get(2)!.result).toMatchObject({ isError: true });
    expect(JSON.stringify(answers.get(2)!.result)).toMatch(/bogus/);
    expect(answers.get(3)!.result).toMatchObject({ isError: true });
    expect(JSON.stringify(answers.get(3)!.result)).toMatch(/since must be a date/);
  });

  it('refuses a download whose .part file is a link (it would carry the copy out of the root)', async () => {
    const root = tempDir();
    const outside = join(tempDir(), 'victim.txt');
    writeFileSync(outside, 'keep me');
    symlinkSync(outside, join(root, 'x.pdf.part'));
    const result = await runCommand(['mcp', '--root', root], {
      input:
        [
          INITIALIZE,
          INITIALIZED,
          request(1, 'tools/call', {
            name: 'download_signed_copy',
            arguments: { id: 'env_x', path: 'x.pdf' },
          }),
        ].join('\n') + '\n',
      env: sandbox.env,
    });
    expect(result.stdout).toMatch(/x\.pdf\.part is a symbolic link/);
    expect(readFileSync(outside, 'utf8')).toBe('keep me');
  });

  it('refuses a directory for verify_pdf: one file per call, never a whole folder verified', async () => {
    const root = tempDir();
    mkdirSync(join(root, 'archive'));
    writeFileSync(join(root, 'archive', 'a.pdf'), 'not read');
    const result = await runCommand(['mcp', '--root', root], {
      input:
        [
          INITIALIZE,
          INITIALIZED,
          request(1, 'tools/call', { name: 'verify_pdf', arguments: { path: 'archive' } }),
        ].join('\n') + '\n',
      env: sandbox.env,
    });
    const answer = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as {
      result: Record<string, unknown>;
    };
    expect(answer.result).toMatchObject({ isError: true });
    expect(JSON.stringify(answer.result)).toMatch(/archive is a directory; give a file in it/);
  });

  it('exits 2 when --root is not a directory', async () => {
    const result = await runCommand(['mcp', '--root', join(tempDir(), 'missing')], { env: sandbox.env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--root .*missing is not a directory/);
  });
});
