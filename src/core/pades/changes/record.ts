/**
 * A change a revision made, as the revision analysis records it: the object, what happened to it and
 * what it needs to be allowed after a signature, with the helpers both sets of rules use to write
 * one (pdf-changes.ts for the document, pdf-form-changes.ts for the form and the annotations).
 * Apart so that those two, and the verdicts that read changes, share it without importing each other.
 */
import { sameValue, type PdfDict } from '../pdf-objects.js';

/** What a change needs: nothing, the right to sign, to fill forms, to annotate; or it is never allowed. */
export type Need = 'none' | 'signing' | 'fill' | 'annotate' | 'never';

export interface Change {
  /** The revision that made the change. */
  revision: number;
  kind: string;
  /** `12 0 R`, or `trailer`. */
  object: string;
  page?: number;
  /** The form field concerned, by full name (FieldMDP locks name fields). */
  field?: string;
  /** What happened to it. */
  action: 'added' | 'changed' | 'removed' | 'signed' | 'filled' | 'replaced';
  need: Need;
  detail: string;
}

export const refText = (num: number) => `${num} 0 R`;

export type Push = (change: Omit<Change, 'revision'>) => void;

/** The keys whose values differ between two dictionaries. */
export function changedKeys(a: PdfDict | undefined, b: PdfDict | undefined): string[] {
  const keys = new Set([...(a?.entries.keys() ?? []), ...(b?.entries.keys() ?? [])]);
  return [...keys].filter((k) => !sameValue(a?.entries.get(k), b?.entries.get(k)));
}
