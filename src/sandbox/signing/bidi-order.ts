/** One line of mixed-direction text put in visual order (pdf.ts draws it so). */
import type { EmbeddingLevels } from 'bidi-js';

/**
 * Bidi rules L1 and L2 for one line: the logical indices of text[start, end)
 * in visual order, and the line's levels. (bidi-js's getReorderedIndices
 * covers the whole string and its L1 misplaces the trailing whitespace of a
 * line that does not start the text, so the line is reordered here.)
 */
export function visualOrder(
  text: string,
  levels: EmbeddingLevels,
  start: number,
  end: number,
): { order: number[]; lineLevels: number[] } {
  const paragraphLevel = levels.paragraphs[0]?.level ?? 0;
  const lineLevels = Array.from(levels.levels.subarray(start, end));
  // L1: whitespace at the end of the line takes the paragraph's level.
  for (let i = lineLevels.length - 1; i >= 0 && /\s/.test(text[start + i]!); i--)
    lineLevels[i] = paragraphLevel;
  const order = lineLevels.map((_, i) => start + i);
  const highest = Math.max(...lineLevels);
  const lowestOdd = Math.min(...lineLevels) | 1;
  // L2: from the highest level down to the lowest odd one, reverse every run at that level or higher.
  for (let level = highest; level >= lowestOdd; level--) {
    for (let i = 0; i < lineLevels.length; i++) {
      if (lineLevels[i]! < level) continue;
      let j = i;
      while (j + 1 < lineLevels.length && lineLevels[j + 1]! >= level) j++;
      order.splice(i, j - i + 1, ...order.slice(i, j + 1).reverse());
      i = j;
    }
  }
  return { order, lineLevels };
}
