/**
 * The signatures of a document, found where readers find them, and the ones a later revision took
 * away: those of the final revision (its AcroForm's fields, and signature widgets its pages carry
 * that the form does not list); those only an update with a damaged cross-reference holds, which
 * readers find by repairing the file (`repaired`); and those an earlier revision held that the
 * final one no longer does, because a later update removed or freed them (`removed`: the
 * incremental saving attack that hides a signature). Each found once.
 */
import type { PdfFile, Revision } from './pdf-file.js';
import { findSignatureSteps, type PdfSignature } from './pdf-signatures.js';
import type { Steps } from './pdf-budget.js';

export interface FoundSignature extends PdfSignature {
  /** Where it was found: the final revision, only a repaired reading of the file, or only an earlier revision. */
  found: 'final' | 'repaired' | 'removed';
  /** The revision whose objects it was read from. */
  source: Revision;
}

/** The same signature in two revisions: the same dictionary object signing the same bytes. */
const keyOf = (s: PdfSignature) => `${s.object ?? s.field}|${s.byteRange.join(' ')}`;

export function* documentSignatureSteps(file: PdfFile): Steps<FoundSignature[]> {
  const final = file.revisions.at(-1)!;
  const found: FoundSignature[] = (yield* findSignatureSteps(final)).map((s) => ({
    ...s,
    found: 'final',
    source: final,
  }));
  const keys = new Set(found.map(keyOf));
  const add = (list: PdfSignature[], kind: FoundSignature['found'], source: Revision) => {
    for (const signature of list) {
      const key = keyOf(signature);
      if (keys.has(key)) continue;
      keys.add(key);
      found.push({ ...signature, found: kind, source });
    }
  };
  if (file.tail) add(yield* findSignatureSteps(file.tail), 'repaired', file.tail);
  // Latest first: a signature is reported as the last revision that held it read it.
  for (const rev of file.revisions.slice(0, -1).reverse())
    add(yield* findSignatureSteps(rev), 'removed', rev);
  return found;
}
