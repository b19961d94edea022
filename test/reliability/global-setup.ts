/**
 * globalSetup of `npm run test:reliability`: gives the run one directory for
 * figures (RELIABILITY_FIGURES_DIR, unless the caller set one), and at the end
 * prints every recorded figure as one table on stdout (also written to
 * `<dir>/figures.txt` when the caller gave the directory), with what the run
 * left in the machine's TMPDIR. The figures of each section that ran replace
 * that section of docs/figures/reliability.md: the docs quote the last run.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatFigures, readFigures, recordFigure, writeFiguresPage } from './figures.js';
import { usePrivateTmpdir } from '../helpers/private-tmpdir.js';

export default function setup(): () => void {
  const started = Date.now();
  // The run's own TMPDIR (removed at the end); the figures live in it unless the caller keeps them elsewhere.
  const removeTmpdir = usePrivateTmpdir();
  const given = process.env.RELIABILITY_FIGURES_DIR;
  const dir = given || mkdtempSync(join(tmpdir(), 'sign-cli-reliability-figures-'));
  // Workers are started after this runs, so they inherit it.
  process.env.RELIABILITY_FIGURES_DIR = dir;
  return () => {
    recordFigure('suite', 'wall time (s)', Math.round((Date.now() - started) / 100) / 10);
    const records = readFigures(dir);
    // Counted once the run's own TMPDIR is gone: what the run left in the machine's (CI fails on any).
    const left = removeTmpdir().filter((name) => !given || !join(tmpdir(), name).startsWith(dir));
    records.push({ section: 'suite', label: 'left in TMPDIR', value: left.length, at: Date.now() });
    const table = formatFigures(records);
    if (given) writeFileSync(join(dir, 'figures.txt'), `${table}\n`);
    writeFiguresPage(records);
    process.stdout.write(
      `\nReliability figures${given ? ` (${join(dir, 'figures.txt')})` : ''}:\n${table}\n\n`,
    );
    if (left.length > 0) process.stderr.write(`left in TMPDIR by the run: ${left.join(', ')}\n`);
  };
}
