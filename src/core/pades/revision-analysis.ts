/**
 * The changes each revision of a file made to the one before it, computed
 * once per revision (however many signatures ask) and only for the revisions
 * that follow a signature.
 */
import type { PdfFile } from './pdf-file.js';
import { changesBetween, type Change } from './pdf-changes.js';
import { structureOf } from './pdf-structure.js';

/** A change, judged against one signature's permissions. */
export interface JudgedChange {
  revision: number;
  kind: string;
  object: string;
  page?: number;
  field?: string;
  action: string;
  allowed: boolean;
  detail: string;
}

/** `changes(r)`: what revision r (2 or later) changed; memoised. */
export function revisionChanges(file: PdfFile): (revision: number) => Change[] {
  const cache = new Map<number, Change[]>();
  return (revision) => {
    let changes = cache.get(revision);
    if (!changes) {
      const old = file.revisions[revision - 2];
      const next = file.revisions[revision - 1];
      changes = old && next ? changesBetween(old, next, structureOf(old)) : [];
      cache.set(revision, changes);
    }
    return changes;
  };
}
