/**
 * The layout of the signed copy's pages (pdf.ts draws them).
 *
 * Layout is rows of cells (label and value columns), each cell wrapped to its
 * width; rows that do not fit go on to the next page, so no text leaves the
 * page. Every cell is one bidi paragraph (Unicode bidi algorithm, bidi-js),
 * its direction taken from its first strong character (an Arabic title is
 * right to left even with a Latin contract id in it). A paragraph starts at
 * the left edge of its cell, RTL ones included, unless the cell is aligned
 * right (`align`, the text of an Arabic document): in an English frame
 * (labels, headings) Arabic values pushed to the right margin would drift
 * away from their labels. Within an RTL paragraph the lines are flush right
 * (`alignRight`), and within every line the runs are in bidi visual order.
 * A row may instead hold a signature's place (`mark`): a box pdf.ts draws the
 * signature in, over a line.
 *
 * Each line is cut into directional runs, each placed at its visual x and
 * listed in logical order. Widths come from fontkit (pdfkit's font engine) with
 * DejaVu Sans and DejaVu Sans Bold: it shapes Arabic (joining forms, the
 * lam-alef ligature) and puts the glyphs of an RTL run in visual order; it
 * neither mirrors brackets nor knows the bidi level, so RTL runs go through
 * their own font variant (`rtlVariant`).
 */
import type { EmbeddingLevels } from 'bidi-js';
import { visualOrder } from './bidi-order.js';
import { loadToolkit, type Face, type Toolkit } from './pdf-fonts.js';
import type { Signature } from '../documents/signature.js';

export { loadToolkit } from './pdf-fonts.js';

export interface PdfCell {
  text: string;
  bold?: boolean;
  /** Font size in points; 10 unless given. */
  size?: number;
  /** Left edge, in points from the left margin. */
  at?: number;
  /** Width in points; to the right margin unless given. */
  width?: number;
  /** `right`: every line ends at the cell's right edge (the paragraphs of a right-to-left document). */
  align?: 'right';
}

/** A typed signature's text is laid under its drawing, invisible: what a reader copies, or a screen reader reads. */
const HIDDEN_TEXT_SIZE = 10;

/** A signature's place: a box the signature is drawn in (none yet: the box stays empty), over a line. */
export interface PdfMark {
  /** Left edge and width, in points from the left margin. */
  at: number;
  width: number;
  height: number;
  signature?: Signature | undefined;
  /** `right`: the signature ends at the box's right edge (a right-to-left document's), else it starts at its left. */
  align?: 'right';
}

export interface PdfRow {
  cells: PdfCell[];
  /** Extra space above the row, in points (dropped at the top of a page). */
  gap?: number;
  /** Starts a new page (unless the current one is still empty). */
  newPage?: boolean;
  /** Starts a new page unless this many points (from the row's top) still fit: keeps a block together. */
  keep?: number;
  /** A signature's place, below the row's cells (a row may have no cells). */
  mark?: PdfMark;
}

export const PAGE_WIDTH = 595.28; // A4 in points
export const PAGE_HEIGHT = 841.89;
export const MARGIN = 56;
/** Width between the margins: a cell's `at + width` must not exceed it. */
export const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN;
const LINE_HEIGHT = 1.4;

interface Run {
  /** The run's characters in logical order. */
  text: string;
  rtl: boolean;
  /** From the left edge of the line. */
  x: number;
  width: number;
}

/** One laid-out line of a cell: its runs in logical order, each placed at its visual x. */
type Line = Run[];

class Typesetter {
  private readonly widths = new Map<string, number>();

  constructor(private readonly kit: Toolkit) {}

  private face(bold: boolean | undefined): Face {
    return bold ? this.kit.bold : this.kit.regular;
  }

  /** Advance width of text shaped as one run, in points. */
  width(text: string, bold: boolean | undefined, size: number, rtl = false): number {
    const key = `${bold ? 'b' : 'r'}${rtl ? 'R' : 'L'}${text}`;
    let units = this.widths.get(key);
    if (units === undefined) {
      const face = this.face(bold);
      const font = rtl ? face.rtl : face.ltr;
      units = font.layout(text, []).advanceWidth / font.unitsPerEm;
      if (text.length < 64) this.widths.set(key, units);
    }
    return units * size;
  }

  /** A cell's text as lines that fit `maxWidth`, each laid out in bidi order. */
  lines(cell: PdfCell, maxWidth: number): Line[] {
    const size = cell.size ?? 10;
    const out: Line[] = [];
    // Control characters (tabs, stray newlines in a title) have no glyph: they show as a space.
    for (const paragraph of cell.text.split(/\r\n|[\n\r\u0085\u2029]/)) {
      const text = paragraph.replace(/[\u0000-\u001f\u007f]/g, ' ');
      const levels = this.kit.bidi.getEmbeddingLevels(text, 'auto');
      const lines = this.wrap(text, cell.bold, size, maxWidth).map(([start, end]) =>
        this.layoutLine(text, levels, start, end, cell.bold, size),
      );
      if ((levels.paragraphs[0]?.level ?? 0) % 2 === 1) alignRight(lines);
      out.push(...lines);
    }
    return out;
  }

  /** Greedy word wrap: [start, end) ranges of `text`; a word wider than the cell is cut between characters. */
  private wrap(text: string, bold: boolean | undefined, size: number, maxWidth: number): [number, number][] {
    if (text === '') return [[0, 0]];
    const space = this.width(' ', bold, size);
    const words = [...text.matchAll(/[^ ]+/g)].map((m) => ({
      start: m.index,
      end: m.index + m[0].length,
      width: this.width(m[0], bold, size),
    }));
    const ranges: [number, number][] = [];
    let line: { start: number; end: number; width: number } | undefined;
    for (const word of words) {
      if (line && line.width + space * (word.start - line.end) + word.width <= maxWidth) {
        line.width += space * (word.start - line.end) + word.width;
        line.end = word.end;
        continue;
      }
      if (line) ranges.push([line.start, line.end]);
      if (word.width <= maxWidth) {
        line = { ...word };
        continue;
      }
      // Too wide on its own (a long e-mail address, an id): cut it between code points.
      let start = word.start;
      let width = 0;
      for (let i = word.start; i < word.end;) {
        const next = i + (text.codePointAt(i)! > 0xffff ? 2 : 1);
        const w = this.width(text.slice(i, next), bold, size);
        if (width + w > maxWidth && i > start) {
          ranges.push([start, i]);
          start = i;
          width = 0;
        }
        width += w;
        i = next;
      }
      line = { start, end: word.end, width };
    }
    if (line) ranges.push([line.start, line.end]);
    // Spaces before the first word stay (the text is kept as given).
    if (ranges.length > 0 && words[0]!.start > 0) ranges[0]![0] = 0;
    return ranges.length > 0 ? ranges : [[0, text.length]];
  }

  /** The runs of text[start, end) in logical order, each placed at its visual x. */
  private layoutLine(
    text: string,
    levels: EmbeddingLevels,
    start: number,
    end: number,
    bold: boolean | undefined,
    size: number,
  ): Line {
    if (end <= start) return [];
    const { order, lineLevels } = visualOrder(text, levels, start, end);
    const runs: { min: number; max: number; rtl: boolean }[] = [];
    let previous: number | undefined;
    for (const index of order) {
      const rtl = (lineLevels[index - start]! & 1) === 1;
      const current = runs.at(-1);
      if (current && previous !== undefined && current.rtl === rtl && index === previous + (rtl ? -1 : 1)) {
        current.min = Math.min(current.min, index);
        current.max = Math.max(current.max, index);
      } else {
        runs.push({ min: index, max: index, rtl });
      }
      previous = index;
    }
    let x = 0;
    const placed = runs.map(({ min, max, rtl }) => {
      const runText = text.slice(min, max + 1);
      const width = this.width(runText, bold, size, rtl);
      const run: Run & { min: number } = { text: runText, rtl, x, width, min };
      x += width;
      return run;
    });
    return placed.sort((a, b) => a.min - b.min).map(({ min: _min, ...run }) => run);
  }
}

/**
 * The lines of a right-to-left paragraph end flush right, where a reader of
 * Arabic starts each line: against the right edge of the paragraph's widest
 * line, not of the cell, so that a one-line name or title still sits next to
 * its label.
 */
function alignRight(lines: Line[]): void {
  const widest = Math.max(...lines.map(lineWidth));
  for (const line of lines) {
    const shift = widest - lineWidth(line);
    for (const run of line) run.x += shift;
  }
}

/** A run of text as placed on its page, in points from the page's top left corner. */
export interface LaidOutRun {
  /** The run's characters in logical order. */
  text: string;
  /** Left end of the run (the margin included). */
  x: number;
  /** Top of the line: where pdfkit is told to draw it. */
  y: number;
  /** The line's baseline (where an SVG `<text>` is placed): `y` plus the font's ascent. */
  baseline: number;
  width: number;
  size: number;
  bold: boolean;
  rtl: boolean;
  /** Drawn invisible: a typed signature's text, under its drawing. */
  hidden?: boolean;
}

/** A signature's place as placed on its page, in points from the page's top left corner. */
export interface LaidOutMark {
  x: number;
  y: number;
  width: number;
  height: number;
  signature: Signature | undefined;
  align: 'left' | 'right';
}

/**
 * One page: its runs in the order they are drawn (line by line, each line's cells left to
 * right, runs in logical order), and its signatures' places.
 */
export interface LaidOutPage {
  runs: LaidOutRun[];
  marks: LaidOutMark[];
}

const lineWidth = (line: Line) => line.reduce((sum, run) => sum + run.width, 0);

/** Rows of cells laid out on A4 pages; there is always at least one page. */
export async function layoutPages(rows: readonly PdfRow[]): Promise<LaidOutPage[]> {
  const kit = await loadToolkit();
  const setter = new Typesetter(kit);
  const pages: LaidOutPage[] = [{ runs: [], marks: [] }];
  let y = MARGIN;
  let empty = true;
  const newPage = () => {
    pages.push({ runs: [], marks: [] });
    y = MARGIN;
    empty = true;
  };
  const bottom = PAGE_HEIGHT - MARGIN;
  for (const row of rows) {
    if (row.newPage && !empty) newPage();
    if (row.keep !== undefined && !empty && y + (row.gap ?? 0) + row.keep > bottom) newPage();
    const cells = row.cells.map((cell) => {
      const at = cell.at ?? 0;
      const width = Math.max(1, Math.min(cell.width ?? CONTENT_WIDTH - at, CONTENT_WIDTH - at));
      const size = cell.size ?? 10;
      const bold = cell.bold ?? false;
      const font = (bold ? kit.bold : kit.regular).ltr;
      const ascent = (font.ascent / font.unitsPerEm) * size;
      const lines = setter.lines(cell, width);
      if (cell.align === 'right')
        for (const line of lines) {
          const shift = width - Math.max(0, ...line.map((run) => run.x + run.width));
          for (const run of line) run.x += shift;
        }
      return { at, size, bold, ascent, lines };
    });
    const height = Math.max(0, ...row.cells.map((cell) => (cell.size ?? 10) * LINE_HEIGHT));
    const count = Math.max(0, ...cells.map((c) => c.lines.length));
    for (let k = 0; k < count; k++) {
      if (!empty && y + (k === 0 ? (row.gap ?? 0) : 0) + height > bottom) newPage();
      if (k === 0 && !empty) y += row.gap ?? 0;
      const page = pages.at(-1)!;
      for (const { at, size, bold, ascent, lines } of cells) {
        for (const run of lines[k] ?? []) {
          const { text, rtl, width } = run;
          page.runs.push({ text, x: MARGIN + at + run.x, y, baseline: y + ascent, width, size, bold, rtl });
        }
      }
      y += height;
      empty = false;
    }
    if (row.mark) {
      const { at, width, height: markHeight, signature, align } = row.mark;
      const gap = count === 0 ? (row.gap ?? 0) : 0;
      if (!empty && y + gap + markHeight > bottom) newPage();
      if (!empty) y += gap;
      const page = pages.at(-1)!;
      page.marks.push({ x: MARGIN + at, y, width, height: markHeight, signature, align: align ?? 'left' });
      if (signature?.kind === 'typed') {
        const [line = []] = setter.lines({ text: signature.text, size: HIDDEN_TEXT_SIZE }, width);
        const used = lineWidth(line);
        const ascent = (kit.regular.ltr.ascent / kit.regular.ltr.unitsPerEm) * HIDDEN_TEXT_SIZE;
        const top = y + markHeight - HIDDEN_TEXT_SIZE * LINE_HEIGHT - 6;
        for (const run of line)
          page.runs.push({
            text: run.text,
            x: MARGIN + at + (align === 'right' ? width - used : 0) + run.x,
            y: top,
            baseline: top + ascent,
            width: run.width,
            size: HIDDEN_TEXT_SIZE,
            bold: false,
            rtl: run.rtl,
            hidden: true,
          });
      }
      y += markHeight;
      empty = false;
    }
  }
  return pages;
}
