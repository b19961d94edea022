/**
 * The state directory is trusted only when it is the user's own (in process,
 * against an in-process sandbox): a SIGN_STATE_DIR another user owns or can
 * write is refused, as ssh refuses such a config, because that user could
 * move `journals` away and leave a link to a directory of the user's in its
 * place; a link at `journals` is never followed. Each refusal is one line with
 * the path and the fix, exit 2, nothing sent and nothing written.
 *
 * Tests run as root in CI: "another user" is a directory chowned to nobody
 * (65534), compared with process.getuid(). Without root those cases skip.
 */
import {
  chmodSync,
  chownSync,
  lchownSync,
  mkdirSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/paths.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';

const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

let sandbox: TestSandbox;
let sample: Record<string, unknown>;
beforeAll(async () => {
  sandbox = await startTestSandbox();
  sample = JSON.parse((await runCommand(['envelopes', 'sample'])).stdout) as Record<string, unknown>;
});
afterAll(async () => {
  await sandbox?.stop();
});

function file(contractId: string): string {
  const path = join(tempDir(), `${contractId}.json`);
  writeFileSync(path, JSON.stringify({ ...sample, contract_id: contractId }));
  return path;
}

/** A create with `stateDir` as SIGN_STATE_DIR: refused in one line, nothing sent. */
async function refused(stateDir: string, contractId: string): Promise<string> {
  const before = await sandbox.envelopeCount();
  const result = await runCommand(['envelopes', 'create', '-f', file(contractId)], {
    env: { ...sandbox.env, SIGN_STATE_DIR: stateDir },
  });
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr.trim().split('\n'), result.stderr).toHaveLength(1);
  expect(await sandbox.envelopeCount()).toBe(before);
  return result.stderr;
}

describe('the state directory', () => {
  it('is refused when others can write it, with the chmod that fixes it; nothing is made in it', async () => {
    const open = tempDir();
    chmodSync(open, 0o777);
    const stderr = await refused(open, 'STATE-WORLD');
    expect(stderr).toContain(`${open} can be written by other users (mode 0777)`);
    expect(stderr).toContain(`chmod go-w ${open}`);
    expect(readdirSync(open)).toEqual([]);
    // Fixed as told: the run goes ahead and keeps its journal there.
    chmodSync(open, 0o700);
    const fixed = await runCommand(['envelopes', 'create', '-f', file('STATE-WORLD-FIXED')], {
      env: { ...sandbox.env, SIGN_STATE_DIR: open },
    });
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(readdirSync(join(open, 'journals')).filter((n) => n.endsWith('.jsonl'))).toHaveLength(1);
  });

  it.skipIf(!isRoot)('is refused when another user owns it, or made the link it is', async () => {
    const foreign = tempDir();
    chmodSync(foreign, 0o700);
    chownSync(foreign, NOBODY, NOBODY);
    const stderr = await refused(foreign, 'STATE-FOREIGN');
    expect(stderr).toContain(`${foreign} belongs to another user (uid ${NOBODY})`);
    expect(stderr).toContain(`chown -R ${process.getuid!()} ${foreign}`);
    expect(readdirSync(foreign)).toEqual([]);

    // Another user's link (in a shared /tmp, say) to a private directory of the user's.
    const mine = tempDir();
    const link = join(tempDir(), 'state');
    symlinkSync(mine, link);
    lchownSync(link, NOBODY, NOBODY);
    expect(await refused(link, 'STATE-FOREIGN-LINK')).toContain(
      `${link} is a symbolic link made by another user (uid ${NOBODY})`,
    );
    expect(readdirSync(mine)).toEqual([]);
  });

  it("never follows a link at journals, even to a directory of the user's: refused, nothing written there", async () => {
    const state = tempDir();
    chmodSync(state, 0o700);
    // What another user who could write the state directory leaves behind: journals moved away, a link to the user's directory in its place.
    const victim = tempDir();
    chmodSync(victim, 0o700);
    symlinkSync(victim, join(state, 'journals'));
    const stderr = await refused(state, 'STATE-LINKED');
    expect(stderr).toContain(
      `${join(state, 'journals')} is a symbolic link; sign-cli does not follow links in its state directory`,
    );
    expect(stderr).toContain(`rm ${join(state, 'journals')}`);
    expect(readdirSync(victim)).toEqual([]);
  });

  it.skipIf(!isRoot)('is refused when journals in it belongs to another user', async () => {
    const state = tempDir();
    chmodSync(state, 0o700);
    mkdirSync(join(state, 'journals'), { mode: 0o700 });
    chownSync(join(state, 'journals'), NOBODY, NOBODY);
    expect(await refused(state, 'STATE-FOREIGN-JOURNALS')).toContain(
      `${join(state, 'journals')} belongs to another user (uid ${NOBODY})`,
    );
    expect(readdirSync(join(state, 'journals'))).toEqual([]);
  });
});
