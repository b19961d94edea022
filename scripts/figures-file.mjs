// Figure files under docs/figures: written by the runs that measure them
// (`npm run bench`, `npm run test:reliability`), never edited by hand. Each
// section is replaced by the run that measured it and the others are kept, so
// `npm run bench startup` refreshes the start-up figures alone.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, platform, arch } from 'node:os';
import { dirname } from 'node:path';

const SECTION = /<!-- section:([\w-]+) -->\n([\s\S]*?)\n<!-- \/section:\1 -->/g;

/** Where and when a figure was measured: the facts a reader needs to compare it. */
export function measuredOn(now = new Date()) {
  return `Measured ${now.toISOString().slice(0, 16).replace('T', ' ')}Z on Node ${process.version}, ${cpus().length} cores (${platform()} ${arch()}).`;
}

/** A two-column Markdown table; a `|` or a line break in a value cannot break it. */
export function figureTable(rows, heads = ['Figure', 'Value']) {
  const cell = (value) =>
    String(value)
      .replace(/\|/g, '\\|')
      .replace(/\s*\n\s*/g, ' ');
  return [
    `| ${heads[0]} | ${heads[1]} |`,
    '|---|---|',
    ...rows.map(([label, value]) => `| ${cell(label)} | ${cell(value)} |`),
  ].join('\n');
}

/**
 * Writes `file` with `sections` (key -> Markdown) replacing those of the same
 * key, in `order` (keys not in it after, in the order first written).
 */
export function updateFigures(file, { title, writer, intro, order = [] }, sections) {
  const kept = new Map();
  if (existsSync(file))
    for (const [, key, body] of readFileSync(file, 'utf8').matchAll(SECTION)) kept.set(key, body);
  for (const [key, body] of Object.entries(sections)) kept.set(key, body.trim());
  const rank = (key) => (order.includes(key) ? order.indexOf(key) : order.length);
  const keys = [...kept.keys()].sort((a, b) => rank(a) - rank(b));
  const text = [
    `<!-- Written by \`${writer}\`: each section by the run that measured it. Do not edit by hand. -->`,
    '',
    `# ${title}`,
    '',
    intro,
    '',
    ...keys.flatMap((key) => [`<!-- section:${key} -->`, kept.get(key), `<!-- /section:${key} -->`, '']),
  ].join('\n');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}
