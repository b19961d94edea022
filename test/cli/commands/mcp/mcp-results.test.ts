/**
 * What `sign-cli mcp` publishes and returns, in process: each tool's outputSchema open to the
 * service's fields at every depth (a closed one makes every client that listed the tools reject the
 * result), its arguments closed; and the environment a result names when the service and the key's
 * profile disagree. Through real clients: test/e2e/mcp.test.ts (the SDK's) and
 * test/e2e/mcp-inspector.test.ts (the Inspector's).
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { closedObjects, outputChecker, type ListedTool } from '../../../helpers/mcp.js';
import { tempDir } from '../../../helpers/paths.js';
import { withConfig } from '../../../helpers/profiles.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.stop();
});

const request = (id: number, method: string, params: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });
const OPENING = [
  request(0, 'initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'test', version: '1' },
  }),
  JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
];
const call = (id: number, name: string, args: Record<string, unknown> = {}) =>
  request(id, 'tools/call', { name, arguments: args });

interface Answer {
  result?: { tools?: ListedTool[]; isError?: boolean; structuredContent?: Record<string, unknown> };
}

/** The server over tools/list and the given requests; its answers by id. */
async function serve(lines: string[], env: Record<string, string | undefined>) {
  const result = await runCommand(['mcp', '--root', tempDir()], {
    input: [...OPENING, request(1, 'tools/list'), ...lines].join('\n') + '\n',
    env,
  });
  expect(result.code, result.stderr).toBe(0);
  const answers = new Map<number, Answer>();
  for (const line of result.stdout.split('\n').filter(Boolean)) {
    const message = JSON.parse(line) as Answer & { id?: number };
    if (typeof message.id === 'number') answers.set(message.id, message);
  }
  const tools = answers.get(1)!.result!.tools!;
  const check = outputChecker(tools);
  /** A call's structured result, checked against the schema tools/list published. */
  const structured = (id: number, name: string) => {
    const answer = answers.get(id)!.result!;
    expect(answer.isError, JSON.stringify(answer)).toBeFalsy();
    expect(check(name, answer.structuredContent)).toEqual([]);
    return answer.structuredContent!;
  };
  return { tools, answers, structured };
}

describe('sign-cli mcp results', () => {
  it('publishes open outputs at every depth and closed arguments; an unknown argument is a tool error', async () => {
    const { tools, answers } = await serve([call(2, 'sample_envelope', { count: 3 })], sandbox.env);
    expect(tools).toHaveLength(13);
    for (const tool of tools) {
      expect(closedObjects(tool.outputSchema), tool.name).toEqual([]);
      expect(tool.outputSchema!.additionalProperties, tool.name).toEqual({});
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
    }
    // The nested objects a result carries are open too: the verdict's details, each error's.
    const byName = Object.fromEntries(tools.map((t) => [t.name, t.outputSchema!]));
    expect(byName.download_signed_copy).toMatchObject({
      properties: { verification: { required: ['valid'], additionalProperties: {} } },
    });
    expect(byName.validate_envelope).toMatchObject({
      properties: { errors: { items: { required: ['path', 'message'], additionalProperties: {} } } },
    });
    expect(answers.get(2)!.result).toMatchObject({ isError: true });
    expect(JSON.stringify(answers.get(2)!.result)).toMatch(/Unrecognized key.*count/);
  });

  it("names the envelope's environment as the service says it, and the key's beside it when they differ", async () => {
    const created = await runCommand(['envelopes', 'create', '-f', '-', '--new', '--query', 'envelope.id'], {
      env: sandbox.env,
      input: (await runCommand(['envelopes', 'sample'])).stdout,
    });
    const id = created.stdout.trim();
    // A profile whose stored metadata says live, holding the sandbox's test key (as one left from
    // before the key was replaced would): the key says live, the service says the envelope is test.
    const { dir, env, file } = withConfig();
    writeFileSync(
      file,
      JSON.stringify({
        active_profile: 'stale',
        profiles: {
          stale: {
            api_key: sandbox.apiKey,
            base_url: sandbox.baseUrl,
            environment: 'live',
            insecure_storage: true,
          },
        },
      }),
    );
    chmodSync(file, 0o600);
    const disagreeing = await serve(
      [call(2, 'get_envelope', { id }), call(3, 'list_envelopes', { limit: 1 }), call(4, 'list_keys')],
      { ...env, SIGN_CONFIG_DIR: dir, SIGN_API_KEY: undefined, SIGN_BASE_URL: undefined },
    );
    expect(disagreeing.structured(2, 'get_envelope')).toMatchObject({
      id,
      environment: 'test',
      key_environment: 'live',
    });
    expect(disagreeing.structured(3, 'list_envelopes')).toMatchObject({
      environment: 'test',
      key_environment: 'live',
    });
    // A listing of keys is about the key in use: its environment, as its profile says it.
    const keys = disagreeing.structured(4, 'list_keys');
    expect(keys.environment).toBe('live');
    expect(keys).not.toHaveProperty('key_environment');

    // When they agree, one environment and nothing more.
    const agreeing = await serve([call(2, 'get_envelope', { id })], sandbox.env);
    const got = agreeing.structured(2, 'get_envelope');
    expect(got).toMatchObject({ id, environment: 'test' });
    expect(got).not.toHaveProperty('key_environment');
  });
});
