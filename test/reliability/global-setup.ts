/**
 * globalSetup of `npm run test:reliability`: gives the run one directory for
 * figures (RELIABILITY_FIGURES_DIR, unless the caller set one), and at the end
 * prints every recorded figure as one table on stdout (also written to
 * `<dir>/figures.txt`).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatFigures, readFigures, recordFigure } from './figures.js';

export default function setup(): () => void {
  const started = Date.now();
  const dir = process.env.RELIABILITY_FIGURES_DIR || mkdtempSync(join(tmpdir(), 'sign-cli-reliability-figures-'));
  // Workers are started after this runs, so they inherit it.
  process.env.RELIABILITY_FIGURES_DIR = dir;
  return () => {
    recordFigure('suite', 'wall time (s)', Math.round((Date.now() - started) / 100) / 10);
    const table = formatFigures(readFigures(dir));
    writeFileSync(join(dir, 'figures.txt'), `${table}\n`);
    process.stdout.write(`\nReliability figures (${join(dir, 'figures.txt')}):\n${table}\n\n`);
  };
}
