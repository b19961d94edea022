/**
 * Folders of PDFs for the archive runs of `envelopes verify <file|dir>...` (in process, on the
 * worker pool, and through the built binary): the sandbox's signed copy saved from an in-process
 * sandbox, copies of it in a tree, a copy with one signed byte changed.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCommand, type TestSandbox } from './in-process.js';
import { ROOT } from './paths.js';

/** A completed envelope's signed copy saved at `path` (from the sources, in process); returns the sandbox's CA, PEM. */
export async function saveSignedCopy(sandbox: TestSandbox, path: string): Promise<string> {
  const example = join(ROOT, 'examples', 'envelope.json');
  const created = await runCommand(
    ['envelopes', 'create', '-f', example, '--new', '--query', 'envelope.id'],
    {
      env: sandbox.env,
    },
  );
  const saved = await runCommand(['envelopes', 'download', created.stdout.trim(), '-o', path, '--wait'], {
    env: sandbox.env,
  });
  if (saved.code !== 0) throw new Error(`the signed copy was not saved: ${saved.stderr}`);
  return (await fetch(`${sandbox.baseUrl}/_sandbox/ca.pem`)).text();
}

/** `root` holding `files`: each path (directories made) with its bytes, or 'signed' for a copy of `signed`. */
export function pdfFolder(root: string, signed: string, files: Record<string, Buffer | 'signed'>): string {
  for (const [path, bytes] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    if (bytes === 'signed') copyFileSync(signed, join(root, path));
    else writeFileSync(join(root, path), bytes);
  }
  return root;
}

/** The bytes of `signed` with one byte of what its signature covers changed (its digest no longer matches). */
export function withOneByteChanged(signed: string): Buffer {
  const bytes = Buffer.from(readFileSync(signed));
  bytes[300] = bytes[300]! ^ 0x01;
  return bytes;
}
