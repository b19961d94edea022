/** Envelope files for tests: the example, and copies the sandbox has not seen (so a create really creates). */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir } from './cli.js';

export const EXAMPLE = join(ROOT, 'examples', 'envelope.json');
export const example = (): Record<string, unknown> =>
  JSON.parse(readFileSync(EXAMPLE, 'utf8')) as Record<string, unknown>;

export interface Workspace {
  dir: string;
  /** Writes a file (JSON unless a string is given) and returns its path. */
  write(name: string, value: unknown): string;
  /** The example with a title and contract id of its own. */
  unique(): string;
}

export function workspace(prefix = 'sign-cli-work-'): Workspace {
  const dir = tempDir(prefix);
  let uniques = 0;
  const write = (name: string, value: unknown): string => {
    const path = join(dir, name);
    writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
    return path;
  };
  return {
    dir,
    write,
    unique: () => {
      uniques++;
      const base = example();
      return write(`unique-${uniques}.json`, {
        ...base,
        title: `${String(base.title)} #${uniques}`,
        contract_id: `${String(base.contract_id)}-${uniques}-${process.pid}`,
      });
    },
  };
}
