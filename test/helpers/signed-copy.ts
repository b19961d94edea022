/**
 * A sandbox's signed copy, as a person gets one: an envelope created from one of examples/ and its
 * copy downloaded once every signer has signed (`envelopes download --wait`). The set-up of the
 * tests that verify, extend or check copies with other software.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCommand, type TestSandbox } from './in-process.js';
import { ROOT } from './paths.js';

/** Creates an envelope from `examples/<example>`, saves its signed copy at `file`: the envelope's id and the copy's bytes. */
export async function signedCopyFrom(
  sandbox: TestSandbox,
  file: string,
  example = 'envelope.json',
): Promise<{ id: string; pdf: Buffer }> {
  const { env } = sandbox;
  const created = await runCommand(
    ['envelopes', 'create', '-f', join(ROOT, 'examples', example), '--new', '--query', 'envelope.id'],
    { env },
  );
  if (created.code !== 0)
    throw new Error(`create from ${example} failed (exit ${created.code}): ${created.stderr}`);
  const id = created.stdout.trim();
  const download = await runCommand(['envelopes', 'download', id, '-o', file, '--wait'], { env });
  if (download.code !== 0)
    throw new Error(`download of ${id} failed (exit ${download.code}): ${download.stderr}`);
  return { id, pdf: readFileSync(file) };
}
