/**
 * What `sign-cli mcp` keeps to while something works against it, in process:
 * trigger_webhook under DNS rebinding sends only to this machine (the address
 * checked as the connection is made), and download_signed_copy never writes
 * outside --root while another process swaps a directory of its path for a
 * link out of it.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE } from '../../../helpers/envelopes.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { answerText, callTools } from '../../../helpers/mcp-serve.js';
import { tempDir } from '../../../helpers/paths.js';
import { startReceiver } from '../../../helpers/receiver.js';
import { NOT_LOCAL_ADDRESS, REBINDING_NAME, stageRebinding } from '../../../helpers/rebinding.js';
import { startSwapper } from '../../../helpers/swapper.js';

let sandbox: TestSandbox;
let env: Record<string, string>;
beforeAll(async () => {
  // Hundreds of downloads within a minute: the rate limit is not what this is about.
  sandbox = await startTestSandbox({ speed: 40, faults: { rate_limit: 100_000 } });
  env = { ...sandbox.env, SIGN_WEBHOOK_SECRET: sandbox.webhookSecret };
});
afterAll(async () => {
  await sandbox?.stop();
});

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

describe('sign-cli mcp under attack (in process)', () => {
  it('trigger_webhook under DNS rebinding: 80 calls, one lookup each, none reaches the non-local address', async () => {
    const calls = 80;
    const receiver = await startReceiver();
    const rebinding = stageRebinding();
    let answers;
    try {
      const to = receiver.url.replace('127.0.0.1', REBINDING_NAME);
      answers = await callTools(
        tempDir(),
        Array.from({ length: calls }, () => ({
          name: 'trigger_webhook',
          arguments: { type: 'signer.signed', to },
        })),
        env,
      );
    } finally {
      rebinding.restore();
      await receiver.close();
    }
    const { counts } = rebinding;
    // No lookup before the one that connects: one per call, alternating, and the other half refused.
    expect(counts.lookups).toBe(calls);
    expect(counts.answered).toEqual({ '127.0.0.1': calls / 2, [NOT_LOCAL_ADDRESS]: calls / 2 });
    expect(counts.reached).toEqual({});
    expect(receiver.deliveries).toHaveLength(calls / 2);
    const refused = answers.filter((answer) => answer.isError);
    expect(refused).toHaveLength(calls / 2);
    for (const answer of refused)
      expect(answerText(answer)).toMatch(
        /resolves to 93\.184\.216\.34, not to this machine or a private network/,
      );
    expect(
      answers.filter((answer) => !answer.isError && answer.structuredContent?.status === 200),
    ).toHaveLength(calls / 2);
  });

  it('download_signed_copy while a directory of its path is swapped for a link out of the root: 500 tries, nothing outside', async () => {
    const created = await runCommand(
      ['envelopes', 'create', '-f', EXAMPLE, '--new', '--query', 'envelope.id'],
      {
        env,
      },
    );
    const id = created.stdout.trim();
    const waited = await runCommand(
      ['envelopes', 'download', id, '--wait', '-o', join(tempDir(), 'first.pdf')],
      {
        env,
      },
    );
    expect(waited.code, waited.stderr).toBe(0);
    const root = tempDir('sign-cli-mcp-root-');
    const outside = tempDir('sign-cli-mcp-outside-');
    mkdirSync(join(root, 'copies'));
    const swapper = await startSwapper(join(root, 'copies'), outside);
    const tries = 500;
    const answers = [];
    try {
      // A few at a time, as a client may send them.
      for (let done = 0; done < tries; done += 25)
        answers.push(
          ...(await callTools(
            root,
            Array.from({ length: 25 }, (_, i) => ({
              name: 'download_signed_copy',
              arguments: { id, path: `copies/copy-${done + i}.pdf` },
            })),
            env,
          )),
        );
    } finally {
      const { problems } = await swapper.stop();
      expect(problems).toBe('');
    }
    expect(answers).toHaveLength(tries);
    expect(filesUnder(outside)).toEqual([]);
    // Nothing half-written is left anywhere, inside the root either.
    expect(filesUnder(root).filter((file) => file.endsWith('.part'))).toEqual([]);
    const saved = answers.filter((answer) => !answer.isError);
    const refused = answers.filter((answer) => answer.isError);
    for (const answer of saved)
      expect(answer.structuredContent?.path).toMatch(new RegExp(`^${root}/copies/copy-\\d+\\.pdf$`));
    for (const answer of refused)
      expect(answerText(answer)).toMatch(
        /symbolic link|does not exist|was moved while the file was saved|leads outside the directory|through a link/,
      );
    // Each saved copy is where it was said to be (the swapper puts the directory back at the end).
    const there = new Set(filesUnder(join(root, 'copies')));
    for (const answer of saved)
      expect(there.has(relative(join(root, 'copies'), String(answer.structuredContent?.path)))).toBe(true);
  }, 240_000);
});
