/**
 * A change a revision made, as the revision analysis records it: the object, what happened to it and
 * what it needs to be allowed after a signature; and what every rule is handed to judge one (the two
 * revisions, the old one's structure, the comparison by content, where to record a change). Apart so
 * that the rules (document-rules.ts, form-rules.ts, annotation-rules.ts, structure-tree-rules.ts), the
 * walk that calls them (walk.ts) and the verdicts that read changes share it without importing each other.
 */
import type { Revision } from '../pdf-file.js';
import type { Sameness } from './same.js';
import type { Structure } from './structure.js';

/**
 * What a change needs: nothing, the right to sign, to fill forms, to add annotations (`annotate`), to
 * change or remove the annotations the signer saw (`edit annotations`); or it is never allowed.
 */
export type Need = 'none' | 'signing' | 'fill' | 'annotate' | 'edit annotations' | 'never';

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

/** What a rule is handed: the revision before and the one after, and where its verdicts go. */
export interface Judge {
  old: Revision;
  next: Revision;
  /** What each object of `old` is to the document. */
  structure: Structure;
  /** Values of `old` and `next` compared by what they are. */
  same: Sameness;
  push: Push;
  /** Whether form field `num`'s value (its /V, a widget's /AS, a list's /I), or its parent's, changed in `next`. */
  valueChanged(num: number): boolean;
  /** The verdict on the structure tree (tags) for this pair of revisions, judged once however many of its objects changed. */
  structureTree(): void;
}
