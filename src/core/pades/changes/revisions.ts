/**
 * The changes each revision of a file made to the one before it, computed
 * once per revision (however many signatures ask), as steps a paced run can
 * pause between (pdf-budget.ts).
 */
import type { PdfFile } from '../pdf-file.js';
import { changeSteps } from './walk.js';
import type { Change } from './record.js';
import { structureSteps } from './structure.js';
import type { Steps } from '../pdf-budget.js';

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

/** What revision `revision` (2 or later) changed in the one before it. */
export function* revisionChangeSteps(file: PdfFile, revision: number): Steps<Change[]> {
  const old = file.revisions[revision - 2];
  const next = file.revisions[revision - 1];
  if (!old || !next) return [];
  const structure = yield* structureSteps(old);
  return yield* changeSteps(old, next, structure);
}
