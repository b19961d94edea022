/** `envelopes download --root`: the file only under that directory, through no link (what sign-cli mcp uses). */
import { createServer, type Server } from 'node:http';
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE } from '../../../helpers/envelopes.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { tempDir } from '../../../helpers/paths.js';

let sandbox: TestSandbox;
let id: string;
beforeAll(async () => {
  sandbox = await startTestSandbox({ speed: 40 });
  id = (
    await runCommand(['envelopes', 'create', '-f', EXAMPLE, '--new', '--query', 'envelope.id'], {
      env: sandbox.env,
    })
  ).stdout.trim();
  const first = await runCommand(['envelopes', 'download', id, '--wait', '-o', join(tempDir(), 'x.pdf')], {
    env: sandbox.env,
  });
  expect(first.code, first.stderr).toBe(0);
});
afterAll(async () => {
  await sandbox?.stop();
});

const download = (file: string, root: string, env = sandbox.env) =>
  runCommand(['envelopes', 'download', id, '-o', file, '--root', root, '--json'], { env });

describe('envelopes download --root', () => {
  it('saves the copy in a directory under the root, and nothing else', async () => {
    const root = tempDir();
    mkdirSync(join(root, 'a', 'b'), { recursive: true });
    const result = await download(join(root, 'a', 'b', 'signed.pdf'), root);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ file: join(root, 'a', 'b', 'signed.pdf') });
    expect(
      readFileSync(join(root, 'a', 'b', 'signed.pdf'))
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    expect(readdirSync(join(root, 'a', 'b'))).toEqual(['signed.pdf']);
  });

  it.each([
    ['outside the root', (root: string) => join(root, '..', 'escaped.pdf'), /is not a file under/],
    ['the root itself', (root: string) => root, /is not a file under/],
    ['through a link to elsewhere', (root: string) => join(root, 'out', 'x.pdf'), /out is a symbolic link/],
    [
      'in a directory that does not exist',
      (root: string) => join(root, 'none', 'x.pdf'),
      /none does not exist/,
    ],
  ])('refuses a path %s: exit 2, nothing written', async (_case, path, message) => {
    const root = tempDir();
    const elsewhere = tempDir();
    symlinkSync(elsewhere, join(root, 'out'));
    const result = await download(path(root), root);
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
    expect(readdirSync(root)).toEqual(['out']);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('replaces a .part an interrupted run left, and a link there is removed, not followed', async () => {
    const root = tempDir();
    const elsewhere = tempDir();
    symlinkSync(join(elsewhere, 'target.pdf'), join(root, 'x.pdf.part'));
    const result = await download(join(root, 'x.pdf'), root);
    expect(result.code, result.stderr).toBe(0);
    expect(readdirSync(root)).toEqual(['x.pdf']);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('says what came back when it is not a PDF (a wrong base URL), and leaves no file', async () => {
    const page: Server = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>'),
    );
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    try {
      const root = tempDir();
      const result = await download(join(root, 'x.pdf'), root, {
        ...sandbox.env,
        SIGN_BASE_URL: `http://127.0.0.1:${(page.address() as { port: number }).port}`,
      });
      expect(result.code).toBe(1);
      // The core cannot remove the file by the name it was given (the descriptor's): that is not the error.
      expect(result.stderr).toMatch(
        /download signed copy: HTTP 200 \(text\/html\) with "<html>hello<\/html>", not a PDF/,
      );
      expect(readdirSync(root)).toEqual([]);
    } finally {
      await new Promise((resolve) => page.close(resolve));
    }
  });

  it('-o - has nothing to keep under a root: exit 2', async () => {
    const result = await download('-', tempDir());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--root limits where a file is saved/);
    expect(existsSync('-')).toBe(false);
  });
});
