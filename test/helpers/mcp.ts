/**
 * What the MCP tests share: the check a client makes of a result against the
 * outputSchema the tool published in tools/list (Ajv, as the SDK's Client and
 * the Inspector run it, but strict about the schema itself), the walk that
 * finds a closed object anywhere in a schema, and the SDK's Client spawning
 * the built `sign-cli mcp` the way an assistant does: connect, list the tools,
 * then call.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, ROOT, cleanEnv, type CliResult } from './cli.js';
import { example } from './envelopes.js';

export interface ListedTool {
  name: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown> | undefined;
}

export interface ToolResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: { type: string; text?: string }[];
}

export const resultText = (result: ToolResult): string => result.content.map((c) => c.text ?? '').join('\n');

/**
 * A checker of results against the schemas the tools published. Strict Ajv: an unknown keyword
 * or a malformed schema is an error here (the Inspector skips a schema it cannot compile, so a
 * broken one would pass unnoticed there).
 */
export function outputChecker(tools: readonly ListedTool[]): (name: string, structured: unknown) => string[] {
  // Union types (`["string", "null"]`) are JSON Schema; anything else strict mode refuses is a fault of the schema.
  const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true });
  const validators = new Map<string, ValidateFunction>();
  for (const tool of tools) if (tool.outputSchema) validators.set(tool.name, ajv.compile(tool.outputSchema));
  return (name, structured) => {
    const validate = validators.get(name);
    if (!validate) return [`${name} published no outputSchema`];
    if (validate(structured)) return [];
    return (validate.errors ?? []).map((e) => `${name}${e.instancePath}: ${e.message ?? e.keyword}`);
  };
}

/** Every place in a JSON Schema that closes an object (`additionalProperties: false`), as a path. */
export function closedObjects(schema: unknown, at = '#'): string[] {
  if (Array.isArray(schema)) return schema.flatMap((item, i) => closedObjects(item, `${at}/${i}`));
  if (schema === null || typeof schema !== 'object') return [];
  const here = (schema as Record<string, unknown>).additionalProperties === false ? [at] : [];
  return [...here, ...Object.entries(schema).flatMap(([key, value]) => closedObjects(value, `${at}/${key}`))];
}

/**
 * The example envelope with one signer (`email`: the sandbox's magic addresses, such as
 * `+noview`, choose what the signer does), its events sent to `webhookUrl`, and a contract id of
 * this run's own.
 */
export function oneSignerEnvelope(contract: string, webhookUrl: string, email = 'layla@example.com') {
  return {
    ...example(),
    title: `MCP ${contract}`,
    contract_id: `${contract}-${process.pid}`,
    webhook_url: webhookUrl,
    signers: [{ name: 'Layla Haddad', email, channel: 'email', order: 1 }],
  };
}

export interface McpSession {
  client: Client;
  tools: ListedTool[];
  /** Calls a tool; a result that is not an error is checked against its schema (the errors are returned). */
  call(name: string, args?: Record<string, unknown>): Promise<ToolResult & { schemaErrors: string[] }>;
  close(): Promise<void>;
}

/**
 * The built `sign-cli [globals] mcp --root <root>` with the SDK's Client, which lists the tools first
 * (as every assistant does): from then on the Client itself rejects a result that does not match its tool's
 * outputSchema. `env` is the server's whole SIGN_ environment.
 */
export async function mcpSession(options: {
  root: string;
  env: Record<string, string>;
  globals?: string[];
  args?: string[];
}): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, ...(options.globals ?? []), 'mcp', '--root', options.root, ...(options.args ?? [])],
    env: cleanEnv(options.env) as Record<string, string>,
    cwd: ROOT,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'sign-cli-tests', version: '1.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const check = outputChecker(tools);
  return {
    client,
    tools,
    async call(name, args = {}) {
      const result = (await client.callTool({ name, arguments: args })) as ToolResult;
      return { ...result, schemaErrors: result.isError ? [] : check(name, result.structuredContent) };
    },
    close: () => client.close(),
  };
}

/** The MCP Inspector's launcher (`npx @modelcontextprotocol/inspector` runs this file), from the devDependency. */
export const INSPECTOR = (() => {
  const dir = join(ROOT, 'node_modules', '@modelcontextprotocol', 'inspector');
  const { bin } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
  };
  return join(dir, bin['mcp-inspector']!);
})();

/**
 * `mcp-inspector --cli -e NAME=value… node bin/sign-cli.js mcp --root <root> <method args>`, run by this
 * Node: one connection, one method, as a person runs it. `home` keeps its files (~/.mcp-inspector) out of the
 * machine's. Never killed for being slow: it ends when the server answers.
 */
export function runInspector(options: {
  root: string;
  env: Record<string, string>;
  home: string;
  method: string[];
}): Promise<CliResult> {
  const passed = Object.entries(options.env).flatMap(([name, value]) => ['-e', `${name}=${value}`]);
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        INSPECTOR,
        '--cli',
        ...passed,
        process.execPath,
        BIN,
        'mcp',
        '--root',
        options.root,
        ...options.method,
      ],
      { cwd: ROOT, env: cleanEnv({ HOME: options.home }), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
