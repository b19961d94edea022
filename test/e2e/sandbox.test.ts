/**
 * `sandbox --detach` and `sandbox stop` on the built binary: --detach starts
 * a process of its own and returns once it listens; stop signals it. And the
 * pages' own files the build ships beside the bundle. (The sandbox in the
 * foreground: test/cli/commands/sandbox/, in process.)
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';

let sandbox: SandboxProcess;
beforeAll(async () => {
  sandbox = await startSandboxProcess();
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('sandbox --detach and sandbox stop', () => {
  it('returns once the sandbox listens and its credentials are written; stop ends it, and says so when none runs', async () => {
    const dataDir = tempDir('sign-cli-detached-');
    const started = await runCli(['sandbox', '--detach', '--port', '0', '--data-dir', dataDir]);
    try {
      expect(started.code).toBe(0);
      expect(started.stdout).toMatch(
        /^sandbox listening on http:\/\/127\.0\.0\.1:\d+ in the background \(pid \d+\)$/m,
      );
      // Right away, as a pasted block would: the credentials are there.
      const credentials = readFileSync(join(dataDir, 'credentials.env'), 'utf8');
      const baseUrl = /SIGN_BASE_URL='([^']+)'/.exec(credentials)![1]!;
      const apiKey = /SIGN_API_KEY='([^']+)'/.exec(credentials)![1]!;
      expect(started.stdout + started.stderr).not.toContain(apiKey);
      // How to stop it names the data dir it was given: a plain `sandbox stop` would stop another.
      expect(started.stderr).toContain(`\`sign-cli sandbox stop --data-dir ${dataDir}\` stops it`);
      const listed = await runCli(['keys', 'list', '--json'], {
        env: { SIGN_BASE_URL: baseUrl, SIGN_API_KEY: apiKey },
      });
      expect(listed.code).toBe(0);
      // A second start on the same data dir (a block pasted twice) finds it running: exit 0, saying so.
      const again = await runCli(['sandbox', '--detach', '--port', '0', '--data-dir', dataDir]);
      expect(again.code).toBe(0);
      expect(again.stderr).toMatch(
        new RegExp(`a sandbox is already running on .* \\(pid \\d+, ${baseUrl}\\)`),
      );
      expect(again.stderr).toContain(`stop it with \`sign-cli sandbox stop --data-dir ${dataDir}\``);
      expect(again.stdout + again.stderr).not.toContain(apiKey);
      expect(readFileSync(join(dataDir, 'sandbox.log'), 'utf8')).not.toContain(apiKey);
      // With --json, from a shell that sourced credentials.env: the line scripts read holds the key whole.
      const againJson = await runCli(
        ['sandbox', '--detach', '--json', '--port', '0', '--data-dir', dataDir],
        {
          env: { SIGN_API_KEY: apiKey },
        },
      );
      expect(JSON.parse(againJson.stdout)).toMatchObject({ base_url: baseUrl, api_key: apiKey });
      expect(againJson.stderr).not.toContain(apiKey);
    } finally {
      const stopped = await runCli(['sandbox', 'stop', '--data-dir', dataDir]);
      expect(stopped.code).toBe(0);
      expect(stopped.stderr).toMatch(/^sandbox \(pid \d+\) stopped; its state is kept in /m);
    }
    expect(existsSync(join(dataDir, 'sandbox.lock'))).toBe(false);
    const none = await runCli(['sandbox', 'stop', '--data-dir', dataDir]);
    expect(none.code).toBe(0);
    expect(none.stderr).toContain('no sandbox is running');
  });
  it('a start that fails says why, from the sandbox itself', async () => {
    const dataDir = tempDir('sign-cli-detached-');
    const port = new URL(sandbox.baseUrl).port;
    const taken = await runCli(['sandbox', '--detach', '--port', port, '--data-dir', dataDir]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain(
      `the sandbox stopped at start (exit 1): port ${port} on 127.0.0.1 is already in use`,
    );
  });
});

describe("the built sandbox's pages", () => {
  it('serve the stylesheet, the script and the web fonts the build put beside the bundle (dist/pages, dist/fonts)', async () => {
    for (const [name, shipped] of [
      ['ceremony.css', 'assets/pages/ceremony.css'],
      ['ceremony.js', 'assets/pages/ceremony.js'],
      ['sandbox-sans.woff2', 'assets/fonts/sandbox-sans.woff2'],
      ['signature-arabic.woff', 'assets/fonts/signature-arabic.woff'],
    ] as const) {
      const response = await fetch(`${sandbox.baseUrl}/_sandbox/assets/${name}`);
      expect([name, response.status]).toEqual([name, 200]);
      expect(Buffer.from(await response.arrayBuffer()).equals(readFileSync(join(ROOT, shipped)))).toBe(true);
    }
  });
});
