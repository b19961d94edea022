/**
 * What followed a signature, judged with its permissions: every change of every later revision
 * (the revision analysis, changes/), allowed or not after it (DocMDP, FieldMDP), and bytes after
 * the last revision; in the words the verdict uses.
 */
import type { PdfFile } from './pdf-file.js';
import { locks } from './pdf-signatures.js';
import type { FoundSignature } from './document-signatures.js';
import type { JudgedChange } from './changes/revisions.js';
import type { Change } from './changes/record.js';
import type { CheckResult } from './verdicts.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** What the bytes after the last revision are: an update whose cross-reference is damaged, or bytes no reader reads. */
function appendedDetail(file: PdfFile): string {
  const n = file.trailingBytes;
  const tail = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.length).subarray(
    file.bytes.length - n,
  );
  // An update (objects, a cross-reference) that does not read, rather than bytes that hold none.
  if (tail.includes('startxref', 0, 'latin1') || tail.includes(' obj', 0, 'latin1'))
    return `modified after signing: an update of ${plural(n, 'byte')} follows the last revision this check reads, and its cross-reference is damaged (readers that repair the file show what it holds): what it changed cannot be compared`;
  return `modified after signing: ${plural(n, 'byte')} ${n === 1 ? 'was' : 'were'} appended after the last revision, and no reader reads ${n === 1 ? 'it' : 'them'} as part of the document`;
}

/** The changes of every revision after `revision`, judged with this signature's permissions. */
export function judgeAfter(
  file: PdfFile,
  changes: (revision: number) => Change[],
  revision: number | null,
  docmdp: number | null,
  signature: FoundSignature,
): { check: CheckResult; changes: JudgedChange[] } {
  const appended = file.trailingBytes > 0 ? appendedDetail(file) : null;
  if (signature.found === 'repaired')
    return {
      check: {
        check: 'changes after',
        ok: false,
        detail: `this signature is in an update whose cross-reference is damaged: only a reader that repairs the file finds it, and what it signed cannot be compared with the revisions before it`,
      },
      changes: [],
    };
  if (revision === null) {
    const why = file.repaired
      ? "the file's cross-reference is damaged, so its revisions cannot be told apart and what changed after this signature is unknown"
      : 'the signed bytes end inside a revision, not at its end: part of that revision is unsigned, and what follows cannot be compared';
    return { check: { check: 'changes after', ok: false, detail: why }, changes: [] };
  }
  const count = file.revisions.length;
  const judged: JudgedChange[] = [];
  for (let r = revision + 1; r <= count; r++) {
    for (const change of changes(r)) {
      // A field this signature locks (FieldMDP) may be neither filled nor have its widgets touched.
      const locked = !!change.field && signature.locks.some((l) => locks(l, change.field!));
      const allowed =
        change.need === 'none' ||
        (change.need === 'signing' && docmdp !== 1) ||
        (change.need === 'fill' && docmdp !== 1 && !locked) ||
        (change.need === 'annotate' && (docmdp === 3 || docmdp === null) && !locked) ||
        (change.need === 'edit annotations' && docmdp === 3 && !locked);
      judged.push({
        revision: change.revision,
        kind: change.kind,
        object: change.object,
        ...(change.page ? { page: change.page } : {}),
        ...(change.field ? { field: change.field } : {}),
        action: change.action,
        allowed,
        detail: change.detail,
      });
    }
  }
  const refused = judged.filter((c) => !c.allowed);
  const where = `covers revision ${revision} of ${count}`;
  if (refused.length > 0 || appended) {
    const first = [
      ...new Set(refused.map((c) => `${changeSubject(c) ?? c.detail} (revision ${c.revision})`)),
    ];
    const more = first.length > 3 ? `, and ${first.length - 3} more` : '';
    first.splice(3);
    const detail = [
      signature.found === 'removed' ? `this signature is gone from the document's final revision` : null,
      refused.length > 0
        ? `changed after this signature: ${first.join(', ')}${more}${docmdp === 1 && refused.length > 0 ? ' (its DocMDP permission 1 allows no change)' : ''}`
        : null,
      appended,
    ]
      .filter(Boolean)
      .join('; ');
    return { check: { check: 'changes after', ok: false, detail: `${detail} [${where}]` }, changes: judged };
  }
  if (revision === count)
    return {
      check: {
        check: 'changes after',
        ok: true,
        detail:
          count === 1
            ? 'the signature covers the whole file'
            : `the signature covers the whole file (${where})`,
      },
      changes: judged,
    };
  const allowedKinds = [...new Set(judged.map((c) => `${changeLabel(c)} (revision ${c.revision})`))];
  const listed =
    allowedKinds.slice(0, 3).join('; ') +
    (allowedKinds.length > 3 ? `; and ${allowedKinds.length - 3} more` : '');
  return {
    check: {
      check: 'changes after',
      ok: true,
      detail: `${where}; every later change is allowed after it: ${listed || 'nothing that matters to the document'}`,
    },
    changes: judged,
  };
}

/** What a change touched, as people name it: "page 1 content", "form field total", "signature field Bob". */
export function changeSubject(change: {
  kind: string;
  page?: number;
  field?: string;
  detail: string;
}): string | null {
  if (change.page && change.kind.startsWith('page'))
    return change.kind === 'page' ? `page ${change.page}` : `page ${change.page} ${change.kind.slice(5)}`;
  if (
    change.field &&
    ['form field', 'signature field', 'document timestamp', 'signature'].includes(change.kind)
  )
    return `${change.kind} ${change.field}`;
  if (change.kind === 'annotation' && change.page) return `an annotation on page ${change.page}`;
  return null;
}

/** A change in a few words: "page 1 content changed", "signature field Bob added". */
export function changeLabel(change: {
  kind: string;
  page?: number;
  field?: string;
  action: string;
  detail: string;
}): string {
  const subject = changeSubject(change);
  return subject ? `${subject} ${change.action}` : change.detail;
}
