/**
 * What a failed file operation says: the path, what went wrong in words, the
 * code, and a fix. Errors that can be real here are real (a directory, a
 * symbolic link refused by O_NOFOLLOW, a file used as a directory, a missing directory); EACCES,
 * EMFILE and ENOSPC cannot be made on demand (the tests may run as root, with
 * any rlimit, on any disk), so those are node's error as node shapes it.
 */
import { constants, mkdtempSync, openSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StorageError } from '../../src/core/errors.js';
import { storageError } from '../../src/core/fs-errors.js';

const dir = mkdtempSync(join(tmpdir(), 'sign-cli-fs-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const failing = (operation: () => unknown): unknown => {
  try {
    operation();
  } catch (error) {
    return error;
  }
  throw new Error('expected the operation to fail');
};
const nodeError = (code: string, syscall: string, path: string) =>
  Object.assign(new Error(`${code}: ${syscall} '${path}'`), { code, syscall, path });

describe('storageError', () => {
  it('a real directory, symbolic link and file-as-directory: path, words, code and fix', () => {
    const isDir = storageError(
      failing(() => openSync(dir, 'w')),
      dir,
      'write the journal',
    );
    expect(isDir).toBeInstanceOf(StorageError);
    expect(isDir.message).toBe(`could not write the journal ${dir}: it is a directory (EISDIR)`);
    expect(isDir.hint).toBe('give the path of a file');

    const target = join(dir, 'target');
    writeFileSync(target, '');
    const link = join(dir, 'journal.jsonl');
    symlinkSync(target, link);
    const loop = storageError(
      failing(() => openSync(link, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW)),
      link,
      'append to',
    );
    expect(loop.message).toContain('it is a symbolic link, which is not followed (ELOOP)');
    expect(loop.hint).toBe(`replace the link with a file of your own: rm ${link}`);

    const notDir = storageError(
      failing(() => openSync(join(target, 'x'), 'w')),
      join(target, 'x'),
      'write',
    );
    expect(notDir.message).toContain('a part of the path is not a directory (ENOTDIR)');

    const missing = join(dir, 'missing', 'signed.pdf.part');
    const noDir = storageError(
      failing(() => openSync(missing, 'w')),
      missing,
      'write',
    );
    expect(noDir.message).toBe(`could not write ${missing}: a directory on its path does not exist (ENOENT)`);
    expect(noDir.hint).toBe(`check the path, or make its directory first: mkdir -p ${join(dir, 'missing')}`);
  });

  it('EACCES, EMFILE and ENOSPC name the path and the fix; an extra fix is added', () => {
    const path = '/var/lib/sign-cli/journals/x.jsonl';
    const denied = storageError(nodeError('EACCES', 'open', path), path, 'write the journal');
    expect(denied.message).toBe(`could not write the journal ${path}: permission denied (EACCES)`);
    expect(denied.hint).toBe('check who owns it and its mode: ls -ld /var/lib/sign-cli/journals');

    const files = storageError(nodeError('EMFILE', 'open', path), path, 'open');
    expect(files.message).toContain('too many open files (EMFILE)');
    expect(files.hint).toContain('ulimit -n');

    const full = storageError(
      nodeError('ENOSPC', 'write', path),
      path,
      'write the journal',
      'or point SIGN_STATE_DIR elsewhere',
    );
    expect(full.message).toContain('no space left on the device (ENOSPC)');
    expect(full.hint).toBe(
      'free some space on that disk (`df -h` shows it), or use a place on another disk; or point SIGN_STATE_DIR elsewhere',
    );
  });

  it("an unknown code keeps node's own message", () => {
    const odd = storageError(nodeError('EXDEV', 'rename', '/a'), '/a', 'move');
    expect(odd.message).toBe("could not move /a: EXDEV: rename '/a'");
    expect(odd.hint).toBeUndefined();
  });
});
