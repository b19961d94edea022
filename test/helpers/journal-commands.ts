/** What the `journal` command tests share: an NDJSON file of sample envelopes, and a listed journal's shape. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './paths.js';

/** An NDJSON file of `n` copies of `sample`, titled `<tag> 1` … `<tag> n`. */
export function ndjsonOf(sample: Record<string, unknown>, tag: string, n: number): string {
  const path = join(tempDir(), `${tag}.ndjson`);
  const lines = Array.from({ length: n }, (_, i) => JSON.stringify({ ...sample, title: `${tag} ${i + 1}` }));
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** One journal of `journal list --json`. */
export interface ListedJournal {
  id: string;
  service: string | null;
  environment: string | null;
  example: string | null;
  inputs: number;
  states: Record<string, number>;
  updated: string;
  expires: string;
  in_use: boolean;
}
