/**
 * Figures of the reliability run: each test records what it measured
 * (envelopes expected/found, duplicates, requests, crashes…) with
 * recordFigure(); the run's globalSetup prints them as one table at the end.
 *
 * Records are appended as JSON lines to `$RELIABILITY_FIGURES_DIR/figures.jsonl`
 * (set by global-setup.ts to a directory shared by every worker of the run).
 * Recording the same section and label again replaces the value.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { figureTable, measuredOn, updateFigures } from '../../scripts/figures-file.mjs';

export interface FigureRecord {
  section: string;
  label: string;
  value: string | number;
  at: number;
}

export const FIGURES_FILE = 'figures.jsonl';

/** Sections in this order first (stable table), any other after them, alphabetically. */
export const SECTION_ORDER = [
  'faults',
  'sigkill',
  'sandbox-crash',
  'listener-hostile',
  'sandbox-hostile',
  'corpus',
  'shared-budget',
  'journal-store',
  'hostile',
  'secrets',
  'suite',
];

export function figuresDir(): string | undefined {
  return process.env.RELIABILITY_FIGURES_DIR || undefined;
}

export function recordFigure(section: string, label: string, value: string | number): void {
  const dir = figuresDir();
  if (!dir) return; // run outside the reliability config: figures are not collected
  mkdirSync(dir, { recursive: true });
  const record: FigureRecord = { section, label, value, at: Date.now() };
  // One short line per write with O_APPEND: records from parallel workers do not interleave.
  appendFileSync(join(dir, FIGURES_FILE), `${JSON.stringify(record)}\n`);
}

/** Several figures of one section at once, in the object's order. */
export function recordFigures(section: string, figures: Record<string, string | number>): void {
  for (const [label, value] of Object.entries(figures)) recordFigure(section, label, value);
}

export function readFigures(dir: string): FigureRecord[] {
  const file = join(dir, FIGURES_FILE);
  if (!existsSync(file)) return [];
  const records: FigureRecord[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      records.push(JSON.parse(line) as FigureRecord);
    } catch {
      // a torn line (a worker killed mid-write) is skipped
    }
  }
  return records;
}

function sectionRank(section: string): number {
  const at = SECTION_ORDER.indexOf(section);
  return at === -1 ? SECTION_ORDER.length : at;
}

/** One plain-text table, columns aligned: section, figure, value (numbers right-aligned). */
export function formatFigures(records: FigureRecord[]): string {
  // Last value wins; rows keep the order in which their label was first recorded.
  const rows = new Map<string, { section: string; label: string; value: string | number; first: number }>();
  for (const record of records) {
    const key = `${record.section}\u0000${record.label}`;
    const row = rows.get(key);
    if (row) row.value = record.value;
    else
      rows.set(key, { section: record.section, label: record.label, value: record.value, first: record.at });
  }
  const sorted = [...rows.values()].sort(
    (a, b) =>
      sectionRank(a.section) - sectionRank(b.section) ||
      (sectionRank(a.section) === SECTION_ORDER.length ? a.section.localeCompare(b.section) : 0) ||
      a.first - b.first,
  );
  const text = (value: string | number) =>
    typeof value === 'number' ? value.toLocaleString('en-US', { maximumFractionDigits: 2 }) : value;
  const header = { section: 'section', label: 'figure', value: 'value' };
  const widths = {
    section: Math.max(header.section.length, ...sorted.map((r) => r.section.length)),
    label: Math.max(header.label.length, ...sorted.map((r) => r.label.length)),
    // Numbers are right-aligned in the width of the widest number; text starts where they start.
    number: Math.max(
      0,
      ...sorted.filter((r) => typeof r.value === 'number').map((r) => text(r.value).length),
    ),
  };
  const valueWidth = Math.max(header.value.length, widths.number, ...sorted.map((r) => text(r.value).length));
  const line = (section: string, label: string, value: string, right: boolean) =>
    `${section.padEnd(widths.section)}  ${label.padEnd(widths.label)}  ${right ? value.padStart(widths.number) : value}`.trimEnd();
  const out = [
    line(header.section, header.label, header.value, false),
    `${'-'.repeat(widths.section)}  ${'-'.repeat(widths.label)}  ${'-'.repeat(valueWidth)}`,
  ];
  let previous = '';
  for (const row of sorted) {
    out.push(
      line(
        row.section === previous ? '' : row.section,
        row.label,
        text(row.value),
        typeof row.value === 'number',
      ),
    );
    previous = row.section;
  }
  return out.join('\n');
}

/** docs/figures/reliability.md: one table per section that ran, replacing that section's last figures. */
export function writeFiguresPage(records: FigureRecord[]): void {
  const bySection = new Map<string, Map<string, string | number>>();
  for (const record of records) {
    if (!bySection.has(record.section)) bySection.set(record.section, new Map());
    bySection.get(record.section)!.set(record.label, record.value);
  }
  const text = (value: string | number) =>
    typeof value === 'number' ? value.toLocaleString('en-US', { maximumFractionDigits: 2 }) : value;
  const sections: Record<string, string> = {};
  for (const [section, figures] of bySection) {
    sections[section] =
      `## ${section}\n\n${measuredOn()}\n\n${figureTable([...figures].map(([label, value]) => [label, text(value)]))}`;
  }
  updateFigures(
    join(fileURLToPath(new URL('../..', import.meta.url)), 'docs', 'figures', 'reliability.md'),
    {
      title: 'Reliability figures',
      writer: 'npm run test:reliability',
      intro: 'What each section does to sign-cli and what it proves: [../reliability.md](../reliability.md).',
      order: SECTION_ORDER,
    },
    sections,
  );
}
