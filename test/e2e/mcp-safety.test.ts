/**
 * The built `sign-cli mcp` under attack, as an assistant's client meets it:
 * the SDK's Client and StdioClientTransport spawn the binary, with DNS
 * rebinding staged inside it (test/helpers/rebinding.cjs, preloaded: a name
 * flipping between 127.0.0.1 and a non-local address, and a tripwire that
 * counts and stops any connection outside 127.0.0.0/8), while another process
 * swaps a directory under --root for a link out of it.
 */
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv, tempDir } from '../helpers/cli.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import {
  NOT_LOCAL_ADDRESS,
  REBINDING_NAME,
  rebindingEnv,
  type RebindingCounts,
} from '../helpers/rebinding.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';
import { startSwapper } from '../helpers/swapper.js';

let sandbox: SandboxProcess;
let receiver: Receiver;
let client: Client;
let root: string;
let log: string;

interface Result {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: { type: string; text?: string }[];
}

/** A tools/call as an assistant's client makes it: after listTools(), each result is checked against its tool's output schema. */
const call = async (name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as Result;
const text = (result: Result) => result.content.map((c) => c.text ?? '').join('\n');
const counts = () => JSON.parse(readFileSync(log, 'utf8')) as RebindingCounts;

beforeAll(async () => {
  // Hundreds of downloads within a minute: the rate limit is not what this is about.
  sandbox = await startSandboxProcess({ args: ['--speed', '40', '--rate-limit', '100000'] });
  receiver = await startReceiver();
  root = tempDir('sign-cli-mcp-root-');
  log = join(tempDir(), 'rebinding.json');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--root', root],
    env: cleanEnv({
      SIGN_BASE_URL: sandbox.baseUrl,
      SIGN_API_KEY: sandbox.apiKey,
      SIGN_WEBHOOK_SECRET: sandbox.webhookSecret,
      ...rebindingEnv(log),
    }) as Record<string, string>,
    cwd: ROOT,
    stderr: 'pipe',
  });
  client = new Client({ name: 'sign-cli-tests', version: '1.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(
    expect.arrayContaining(['trigger_webhook', 'download_signed_copy']),
  );
});

afterAll(async () => {
  await client?.close();
  await receiver?.close();
  await sandbox?.stop();
});

describe('sign-cli mcp under attack, through the SDK client', () => {
  it('trigger_webhook under DNS rebinding: 80 calls, one lookup each, none reaches the non-local address', async () => {
    const calls = 80;
    const to = receiver.url.replace('127.0.0.1', REBINDING_NAME);
    const results = [];
    for (let i = 0; i < calls; i++)
      results.push(await call('trigger_webhook', { type: 'signer.signed', to }));
    const seen = counts();
    expect(seen.lookups).toBe(calls);
    expect(seen.answered).toEqual({ '127.0.0.1': calls / 2, [NOT_LOCAL_ADDRESS]: calls / 2 });
    expect(seen.reached).toEqual({});
    expect(receiver.deliveries).toHaveLength(calls / 2);
    // The other half: refused, each saying where the name led.
    const refused = results.filter((result) => result.isError);
    expect(refused).toHaveLength(calls / 2);
    for (const result of refused)
      expect(text(result)).toMatch(/resolves to 93\.184\.216\.34, not to this machine or a private network/);
    // A literal address that is not local never gets a socket either.
    const literal = await call('trigger_webhook', {
      type: 'signer.signed',
      to: `http://${NOT_LOCAL_ADDRESS}/hooks`,
    });
    expect(literal.isError).toBe(true);
    expect(text(literal)).toMatch(/93\.184\.216\.34 is not this machine or a private network/);
    expect(counts().handed[NOT_LOCAL_ADDRESS]).toBeUndefined();
  });

  it('download_signed_copy while a directory of its path is swapped for a link out of the root: nothing outside', async () => {
    const created = await call('create_envelope', {
      envelope: {
        title: 'Swapped directories',
        contract_id: `MCP-SWAP-${process.pid}`,
        document: { template_id: 'tpl_mcp', version: 1 },
        signers: [{ name: 'Layla', email: 'layla@example.com', channel: 'email', order: 1 }],
      },
    });
    const id = (created.structuredContent!.envelope as { id: string }).id;
    const deadline = Date.now() + 60_000;
    while (
      (await call('get_envelope', { id })).structuredContent!.status !== 'completed' &&
      Date.now() < deadline
    )
      await new Promise((resolve) => setTimeout(resolve, 100));
    const outside = tempDir('sign-cli-mcp-outside-');
    mkdirSync(join(root, 'copies'));
    const swapper = await startSwapper(join(root, 'copies'), outside);
    const tries = 500;
    const results = [];
    try {
      for (let i = 0; i < tries; i++)
        results.push(await call('download_signed_copy', { id, path: `copies/copy-${i}.pdf` }));
    } finally {
      expect((await swapper.stop()).problems).toBe('');
    }
    expect(readdirSync(outside)).toEqual([]);
    const left = readdirSync(root, { recursive: true }).map(String);
    expect(left.filter((name) => name.endsWith('.part'))).toEqual([]);
    for (const result of results) {
      if (!result.isError) expect(result.structuredContent!.path).toMatch(/\/copies\/copy-\d+\.pdf$/);
      else
        expect(text(result)).toMatch(
          /symbolic link|does not exist|was moved while the file was saved|leads outside the directory|through a link/,
        );
    }
  }, 240_000);
});
