/**
 * `sign-cli mcp`: this CLI as a Model Context Protocol server on stdio, for
 * AI assistants (Claude, VS Code, Cursor). The tools are the CLI's commands,
 * with the same profile, keys, pacing, journals and masking (src/cli/mcp).
 */
import type { Command } from 'commander';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { UsageError } from '../../../core/errors.js';
import type { Action } from '../../action.js';
import type { CommandContext } from '../../context.js';
import { ExitCode } from '../../exit-codes.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';

interface McpFlags {
  allowLive?: boolean;
  root?: string;
}

export const doc: CommandDoc = {
  summary: 'serve the envelope service to AI assistants over MCP (stdio), with the same safety as the CLI',
  details: [
    "Speaks the Model Context Protocol on stdin and stdout, for an assistant that starts it (Claude Desktop, Claude Code, VS Code, Cursor). Its tools are this CLI's commands, run in process with your profile, key, pacing and journals: `sample_envelope`, `validate_envelope`, `create_envelope` (exactly once, like `envelopes create`), `get_envelope`, `list_envelopes`, `void_envelope`, `audit_envelope`, `download_signed_copy`, `verify_pdf`, `list_keys` (masked), `list_deliveries`, `resend_delivery`, `trigger_webhook` (test keys only). Resources: the envelope's JSON Schema and docs/service.md.",
    "With a live key, creating, voiding and resending are refused unless the server was started with `--allow-live`; every result names the environment (an envelope's as the service says it, else the key's). Each result matches the schema its tool publishes, open to the service's other fields; a failure is a result saying what and why, and the server goes on. Files are read and written only under `--root` (default: the current directory): `..` and links out of it are refused. No result holds a key or secret beyond its mask, and text from the service comes back as data, in fields.",
  ],
  more: [
    'Claude Desktop (`claude_desktop_config.json`), Cursor (`~/.cursor/mcp.json`) and any client with the same shape:',
    [
      '  {',
      '    "mcpServers": {',
      '      "sign-cli": {',
      '        "command": "sign-cli",',
      '        "args": ["mcp", "--root", "/home/you/contracts"],',
      '        "env": { "SIGN_PROFILE": "sandbox" }',
      '      }',
      '    }',
      '  }',
    ].join('\n'),
    'Claude Code: `claude mcp add sign-cli -- sign-cli mcp --root "$PWD"`. VS Code (`.vscode/mcp.json`):',
    [
      '  {',
      '    "servers": {',
      '      "sign-cli": { "type": "stdio", "command": "sign-cli", "args": ["mcp"] }',
      '    }',
      '  }',
    ].join('\n'),
    'What an assistant can and cannot do, with a test key, a live key and `--allow-live`: the table in docs/mcp.md. In short: it reads envelopes, trails, deliveries and masked keys; creates (exactly once), voids and resends in test, and in live only with `--allow-live`; saves and verifies signed copies under the root; never sees a key or secret, adds or removes keys, changes settings, or reaches a file outside the root.',
  ],
  examples: ['sign-cli mcp --help'],
};

export function registerMcp(program: Command, action: Action): void {
  defineCommand(program, 'mcp', doc)
    .option('--allow-live', 'let the assistant create, void and resend with a live key')
    .option(
      '--root <dir>',
      'the only directory whose files the tools may read and write (default: the current one)',
    )
    .action(action(mcpCommand));
}

export async function mcpCommand(ctx: CommandContext, flags: McpFlags): Promise<number> {
  const root = resolve(flags.root ?? process.cwd());
  const rootStat = await stat(root).catch(() => undefined);
  if (!rootStat?.isDirectory()) throw new UsageError(`--root ${root} is not a directory`);
  const [{ buildServer }, { StdioServerTransport }] = await Promise.all([
    import('../../mcp/server.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
  ]);
  const server = buildServer(ctx, { root, allowLive: flags.allowLive === true });
  const transport = new StdioServerTransport(
    ctx.io.stdin as unknown as import('node:stream').Readable,
    ctx.io.stdout as unknown as import('node:stream').Writable,
  );
  // The end of stdin ends the server, once every request read has had its answer written (a client
  // that sends its last request and closes its side still gets the answer).
  const pending = new Set<string | number>();
  let drained: (() => void) | undefined;
  const closed = new Promise<void>((done) => {
    const finish = () => (pending.size === 0 ? done() : (drained = done));
    transport.onclose = () => done();
    ctx.io.stdin.on('end', finish);
    ctx.signal.addEventListener('abort', () => done(), { once: true });
  });
  await server.connect(transport);
  const receive = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    if ('id' in message && 'method' in message) pending.add(message.id);
    // A request the client cancels gets no answer: it is no longer waited for.
    if ('method' in message && message.method === 'notifications/cancelled') {
      const id = (message.params as { requestId?: string | number } | undefined)?.requestId;
      if (id !== undefined) pending.delete(id);
      if (pending.size === 0) drained?.();
    }
    receive?.(message);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    await send(message);
    if ('id' in message && message.id !== undefined && !('method' in message)) {
      pending.delete(message.id);
      if (pending.size === 0) drained?.();
    }
  };
  ctx.output.info(
    `sign-cli mcp: serving on stdio (root ${root}${flags.allowLive ? ', live writes allowed' : ''})`,
  );
  await closed;
  await server.close();
  return ExitCode.ok;
}
