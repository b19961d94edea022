/**
 * rooted-file.ts with real files: a directory of the path swapped for a link,
 * or moved out of the root, at a chosen step (no race): through descriptors
 * (Linux, /proc) nothing is written outside; with the checks of other systems
 * (forced here with proc: false) what a swap carried outside is found and
 * removed while the swap is in place, and a swap undone before the check is
 * detected but what it carried out stays (the limit docs/mcp.md states).
 */
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeBounded } from '../../src/core/client/answer-body.js';
import { StorageError, UsageError } from '../../src/core/errors.js';
import { storageError } from '../../src/core/fs-errors.js';
import { fileUnderRoot, type RootedFileOptions } from '../../src/core/rooted-file.js';
import { tempDir } from '../helpers/paths.js';

const PDF = Buffer.from('%PDF-1.7\nsigned\n%%EOF\n');
const LINUX = process.platform === 'linux' && existsSync('/proc/self/fd');

/** A root with a directory `sub` in it, and a directory outside it. */
function places() {
  const root = tempDir('sign-cli-root-');
  const outside = tempDir('sign-cli-outside-');
  mkdirSync(join(root, 'sub'));
  return { root, outside, sub: join(root, 'sub') };
}

/** `sub` renamed aside (still in the root) and a link to `outside` in its place. */
function swap(sub: string, outside: string): void {
  renameSync(sub, `${sub}.away`);
  symlinkSync(outside, sub);
}

/** What the download writes with: the core's writer, opening the path it is given by name. */
const write = (path: string) => writeBounded(Readable.from([PDF]), undefined, path);

const MODES: [string, RootedFileOptions][] = [
  ...(LINUX ? [['through descriptors', {}] as [string, RootedFileOptions]] : []),
  ['with checks (other systems)', { proc: false }],
];

describe.each(MODES)('a file under a root, %s', (_mode, options) => {
  it('is written as <name>.part in its directory, then renamed: nothing else is left', async () => {
    const { root, sub } = places();
    const target = fileUnderRoot(root, join(sub, 'x.pdf'), options);
    try {
      const written = await write(target.writePath);
      target.commit(written.bytes);
    } finally {
      target.close();
    }
    expect(readFileSync(join(sub, 'x.pdf'))).toEqual(PDF);
    expect(readdirSync(sub)).toEqual(['x.pdf']);
  });

  it('is refused, with nothing created, outside the root, as the root, through a link, or under no directory', () => {
    const { root, outside } = places();
    symlinkSync(outside, join(root, 'out'));
    writeFileSync(join(root, 'file'), '');
    for (const [path, message] of [
      [join(root, '..', 'x.pdf'), /is not a file under/],
      [root, /is not a file under/],
      [
        join(root, 'out', 'x.pdf'),
        /out is a symbolic link; a file under the root is written through no link/,
      ],
      [join(root, 'none', 'x.pdf'), /none does not exist/],
      [join(root, 'file', 'x.pdf'), /file is not a directory/],
    ] as const) {
      const refused = (() => {
        try {
          fileUnderRoot(root, path, options).close();
        } catch (error) {
          return error;
        }
      })();
      expect(refused, path).toBeInstanceOf(UsageError);
      expect((refused as Error).message).toMatch(message);
    }
    expect(readdirSync(outside)).toEqual([]);
    expect(readdirSync(root).sort()).toEqual(['file', 'out', 'sub']);
  });

  it('removes its .part when it is not committed', async () => {
    const { root, sub } = places();
    const target = fileUnderRoot(root, join(sub, 'x.pdf'), options);
    await write(target.writePath);
    target.close();
    expect(readdirSync(sub)).toEqual([]);
  });

  it('leaves nothing outside when its directory is swapped for a link after the .part is created', async () => {
    const { root, outside, sub } = places();
    const target = fileUnderRoot(root, join(sub, 'x.pdf'), options);
    swap(sub, outside);
    let error: unknown;
    try {
      const written = await write(target.writePath);
      target.commit(written.bytes);
    } catch (caught) {
      error = caught;
    } finally {
      target.close();
    }
    expect(error).toBeInstanceOf(StorageError);
    expect((error as Error).message).toMatch(/was moved while the file was saved|led out of/);
    expect(readdirSync(outside)).toEqual([]);
    // The .part created before the swap moved with its directory (still in the root): through descriptors it is
    // removed all the same; the checks of other systems no longer know where it is.
    expect(readdirSync(`${sub}.away`)).toEqual(options.proc === false ? ['x.pdf.part'] : []);
  });
});

describe.skipIf(!LINUX)('through descriptors (Linux)', () => {
  it("says a writer's error about the descriptor's name with the file's own", () => {
    const { root, sub } = places();
    const target = fileUnderRoot(root, join(sub, 'x.pdf'));
    const failed = storageError(
      Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }),
      target.writePath,
      'write',
    );
    const said = target.explain(failed) as StorageError;
    target.close();
    expect(target.writePath).toMatch(/^\/proc\/self\/fd\/\d+$/);
    expect(said).toBeInstanceOf(StorageError);
    expect(said.path).toBe(join(sub, 'x.pdf.part'));
    expect(said.message).toBe(
      `could not write ${join(sub, 'x.pdf.part')}: no space left on the device (ENOSPC)`,
    );
    expect(said.message).not.toContain('/proc/');
  });

  it('a directory moved out of the root while the file is written takes nothing with it', async () => {
    const { root, outside, sub } = places();
    const target = fileUnderRoot(root, join(sub, 'x.pdf'));
    const written = await write(target.writePath);
    renameSync(sub, join(outside, 'moved'));
    expect(() => target.commit(written.bytes)).toThrow(
      /was moved while the file was saved, out of .*; the copy was removed/,
    );
    target.close();
    expect(readdirSync(join(outside, 'moved'))).toEqual([]);
  });

  it('replaces a .part left behind, and removes a link there without following it', async () => {
    const { root, outside, sub } = places();
    writeFileSync(join(outside, 'kept'), 'not yours');
    symlinkSync(join(outside, 'kept'), join(sub, 'x.pdf.part'));
    const target = fileUnderRoot(root, join(sub, 'x.pdf'));
    const written = await write(target.writePath);
    target.commit(written.bytes);
    target.close();
    expect(readFileSync(join(outside, 'kept'), 'utf8')).toBe('not yours');
    expect(readdirSync(sub)).toEqual(['x.pdf']);
  });
});

describe('with checks (other systems)', () => {
  it('refuses a .part already there rather than open it', () => {
    const { root, sub } = places();
    writeFileSync(join(sub, 'x.pdf.part'), '');
    expect(() => fileUnderRoot(root, join(sub, 'x.pdf'), { proc: false })).toThrow(
      /x\.pdf\.part is already there; it is not opened, even to replace it/,
    );
  });

  it('detects a swap undone before its check (the copy is refused), but what it carried out stays: its limit', async () => {
    const { root, outside, sub } = places();
    const target = fileUnderRoot(root, join(sub, 'x.pdf'), { proc: false });
    swap(sub, outside);
    const written = await write(target.writePath);
    // Undone before the next check: nothing at the name now leads out.
    renameSync(sub, `${sub}.link`);
    renameSync(`${sub}.away`, sub);
    expect(() => target.commit(written.bytes)).toThrow(
      /holds 0 bytes, not the \d+ written: the file was written elsewhere/,
    );
    target.close();
    expect(readdirSync(sub)).toEqual([]);
    expect(readdirSync(outside)).toEqual(['x.pdf.part']);
  });
});
