// `sign-cli mcp`: 100 get_envelope calls over one MCP session (the SDK's own Client over stdio,
// as an assistant holds it) against 100 `sign-cli envelopes get --json` processes, the same
// sandbox, the same envelope, in the same run. The session's start (spawn, initialize) is
// counted once, in its total. The target: the session answers 100 calls in less time than
// 100 processes take (one process per call is what an assistant shelling out to the CLI pays).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, spawnServer, stop } from './util.mjs';

const CALLS = Number(process.env.BENCH_MCP_CALLS ?? 100);

export async function benchMcp() {
  const dir = mkdtempSync(join(tmpdir(), 'sign-cli-bench-mcp-'));
  const sandbox = await spawnServer([
    BIN,
    'sandbox',
    '--port',
    '0',
    '--json',
    '--data-dir',
    join(dir, 'sandbox'),
  ]);
  try {
    const { base_url: base, api_key: apiKey } = JSON.parse(sandbox.firstLine);
    const env = {
      ...process.env,
      NO_COLOR: '1',
      SIGN_BASE_URL: base,
      SIGN_API_KEY: apiKey,
      SIGN_CONFIG_DIR: join(dir, 'config'),
      SIGN_STATE_DIR: join(dir, 'state'),
    };
    const created = spawnSync(
      process.execPath,
      [BIN, 'envelopes', 'create', '-f', 'examples/envelope.json', '--query', 'envelope.id'],
      { env, encoding: 'utf8' },
    );
    const id = created.stdout.trim();
    if (!/^env_/.test(id)) throw new Error(`no envelope: ${created.stderr}`);

    const sessionStart = performance.now();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--root', dir],
      env,
      stderr: 'ignore',
    });
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(transport);
    const ready = performance.now();
    for (let i = 0; i < CALLS; i++) {
      const result = await client.callTool({ name: 'get_envelope', arguments: { id } });
      if (result.isError || result.structuredContent?.id !== id)
        throw new Error(`get_envelope failed: ${JSON.stringify(result)}`);
    }
    const sessionEnd = performance.now();
    await client.close();

    const processStart = performance.now();
    for (let i = 0; i < CALLS; i++) {
      const run = spawnSync(process.execPath, [BIN, 'envelopes', 'get', id, '--json'], {
        env,
        encoding: 'utf8',
      });
      if (run.status !== 0 || JSON.parse(run.stdout).id !== id)
        throw new Error(`envelopes get failed: ${run.stderr}`);
    }
    const processEnd = performance.now();

    const session = sessionEnd - sessionStart;
    const processes = processEnd - processStart;
    const perCall = (sessionEnd - ready) / CALLS;
    return {
      name: `sign-cli mcp: ${CALLS} get_envelope calls over one session against ${CALLS} \`envelopes get\` processes`,
      rows: [
        [
          'one MCP session, start included',
          `${(session / 1000).toFixed(2)} s (start ${Math.round(ready - sessionStart)} ms, then ${perCall.toFixed(1)} ms a call)`,
        ],
        [
          `${CALLS} processes`,
          `${(processes / 1000).toFixed(2)} s (${(processes / CALLS).toFixed(1)} ms a call)`,
        ],
        ['ratio processes / session', `${(processes / session).toFixed(1)}×`],
      ],
      ok: session < processes,
    };
  } finally {
    await stop(sandbox.child);
    rmSync(dir, { recursive: true, force: true });
  }
}
