/**
 * `sign-cli mcp` under the MCP Inspector's CLI (`npx @modelcontextprotocol/inspector --cli`, the
 * devDependency, nothing downloaded): a client built on the SDK's v2 packages, which lists the tools
 * before every call and rejects a result its tool's outputSchema does not allow (core/mcp/
 * toolOutputValidation.ts in the Inspector's repository: Ajv over `structuredContent`, the call
 * failing with "Structured content does not match…" or Ajv's message). Every one of the 13 tools is
 * called against a spawned sandbox; each must come back a result, not an error, and each result is
 * checked again here against the schema tools/list published, by a strict Ajv (the Inspector skips a
 * schema it cannot compile; this does not).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import {
  closedObjects,
  oneSignerEnvelope,
  outputChecker,
  runInspector,
  type ListedTool,
} from '../helpers/mcp.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';

let sandbox: SandboxProcess;
let receiver: Receiver;
let root: string;
let home: string;
/** What the server the Inspector starts gets, and nothing else of this process's environment. */
let serverEnv: Record<string, string>;
/** A completed envelope, one still waiting (to void), and an event of the first (to resend). */
let completed: string;
let waiting: string;
let eventId: string;

const cli = async (args: string[]) => {
  const run = await runCli(args, { env: serverEnv, timeoutMs: 60_000 });
  expect(run.code, run.stderr).toBe(0);
  return run.stdout.trim();
};

const envelope = (contract: string, email?: string) => oneSignerEnvelope(contract, receiver.url, email);

beforeAll(async () => {
  sandbox = await startSandboxProcess({ args: ['--speed', '40'] });
  receiver = await startReceiver();
  root = tempDir('sign-cli-inspector-root-');
  home = tempDir('sign-cli-inspector-home-');
  serverEnv = {
    SIGN_BASE_URL: sandbox.baseUrl,
    SIGN_API_KEY: sandbox.apiKey,
    SIGN_WEBHOOK_SECRET: sandbox.webhookSecret,
    SIGN_CONFIG_DIR: tempDir('sign-cli-config-'),
    SIGN_STATE_DIR: tempDir('sign-cli-state-'),
    SIGN_CACHE_DIR: tempDir('sign-cli-cache-'),
    NO_COLOR: '1',
  };
  const file = join(root, 'first.json');
  writeFileSync(file, JSON.stringify(envelope('INSP-1')));
  completed = await cli(['envelopes', 'create', '-f', file, '--query', 'envelope.id']);
  writeFileSync(file, JSON.stringify(envelope('INSP-2', 'omar+noview@example.com')));
  waiting = await cli(['envelopes', 'create', '-f', file, '--query', 'envelope.id']);
  // --wait: back once the sandbox's signers have signed (at --speed 40, seconds).
  await cli(['envelopes', 'download', completed, '--wait', '-o', join(root, 'first.pdf')]);
  await receiver.waitFor((d) => d.length > 0);
  eventId = (await cli(['webhooks', 'deliveries', '--envelope', completed, '--json', '--query', 'event_id']))
    .split('\n')[0]!
    .replace(/"/g, '');
  writeFileSync(join(root, 'ca.pem'), readFileSync(join(sandbox.dataDir, 'ca.pem')));
});

afterAll(async () => {
  await receiver?.close();
  await sandbox?.stop();
});

const inspect = (method: string[]) => runInspector({ root, env: serverEnv, home, method });

describe('sign-cli mcp, through the MCP Inspector CLI', () => {
  it('lists 13 tools and answers each of them with a result its published outputSchema allows', async () => {
    // --strict: the Inspector's portability lint of every schema fails the listing on an error
    // (its warnings, `type: ["string", "null"]` and `additionalProperties: {}`, are legal JSON Schema).
    const listed = await inspect(['--strict', '--method', 'tools/list']);
    expect(listed.code, listed.stderr + listed.stdout).toBe(0);
    const tools = (JSON.parse(listed.stdout) as { tools: ListedTool[] }).tools;
    expect(tools).toHaveLength(13);
    for (const tool of tools) expect(closedObjects(tool.outputSchema), tool.name).toEqual([]);
    const check = outputChecker(tools);

    const calls: [string, Record<string, string>][] = [
      ['sample_envelope', {}],
      ['validate_envelope', { envelope: JSON.stringify(envelope('INSP-3')) }],
      ['create_envelope', { envelope: JSON.stringify(envelope('INSP-4')) }],
      ['get_envelope', { id: completed }],
      ['list_envelopes', { limit: '1' }],
      ['void_envelope', { id: waiting, reason: 'sent by mistake' }],
      ['audit_envelope', { id: completed }],
      ['download_signed_copy', { id: completed, path: 'signed.pdf', trust: 'ca.pem' }],
      ['verify_pdf', { path: 'signed.pdf', trust: 'ca.pem' }],
      ['list_keys', {}],
      ['list_deliveries', { envelope_id: completed }],
      ['resend_delivery', { event_id: eventId }],
      ['trigger_webhook', { type: 'signer.signed', to: receiver.url }],
    ];
    expect(calls.map(([name]) => name).sort()).toEqual(tools.map((t) => t.name).sort());
    const results: Record<string, Record<string, unknown>> = {};
    for (const [name, args] of calls) {
      const pairs = Object.entries(args).map(([key, value]) => `${key}=${value}`);
      const run = await inspect([
        '--method',
        'tools/call',
        '--tool-name',
        name,
        ...(pairs.length ? ['--tool-arg', ...pairs] : []),
      ]);
      // A result the Inspector rejected exits non-zero with {"error": …} on stdout ("data must NOT have additional properties").
      expect(run.code, `${name}: ${run.stdout}${run.stderr}`).toBe(0);
      const result = JSON.parse(run.stdout) as {
        isError?: boolean;
        structuredContent?: Record<string, unknown>;
      };
      expect(result.isError, `${name}: ${run.stdout}`).toBeFalsy();
      expect(check(name, result.structuredContent), name).toEqual([]);
      results[name] = result.structuredContent!;
    }
    // What came back is what each tool did, named by environment.
    expect(results.get_envelope).toMatchObject({ id: completed, status: 'completed', environment: 'test' });
    expect(results.void_envelope).toMatchObject({ id: waiting, status: 'voided', environment: 'test' });
    expect(results.create_envelope).toMatchObject({ result: 'created', environment: 'test' });
    expect(results.audit_envelope).toMatchObject({ envelope_id: completed, verification: { valid: true } });
    expect(results.download_signed_copy).toMatchObject({
      path: join(root, 'signed.pdf'),
      verification: { valid: true },
    });
    expect(results.verify_pdf).toMatchObject({ valid: true });
    expect(results.resend_delivery).toMatchObject({ event_id: eventId });
    expect(results.trigger_webhook).toMatchObject({ status: 200 });
    // The -e values reached the server only: no key or secret in anything the Inspector printed.
    const printed = JSON.stringify(results);
    expect(printed).not.toContain(sandbox.apiKey);
    expect(printed).not.toContain(sandbox.webhookSecret);
  }, 300_000);

  it('a client that tries the 2026-07-28 revision first (--protocol-era auto) falls back to the 2025 handshake', async () => {
    const run = await inspect([
      '--protocol-era',
      'auto',
      '--method',
      'tools/call',
      '--tool-name',
      'get_envelope',
      '--tool-arg',
      `id=${completed}`,
    ]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      structuredContent: { id: completed, environment: 'test' },
    });
  });
});
