/**
 * The rules for changes to the interactive form and to a page's annotations, where a signature's
 * permission decides: a field's value and appearance (filling), annotations added, changed or
 * removed (annotating), signature fields added or signed (signing), and the rest of the form, never.
 * Apart from the walk over a revision's objects and the rules for the rest of the document
 * (pdf-changes.ts), which hand these the AcroForm, the fields and the annotation arrays that changed.
 */
import { dictOf, isDict, isName, isRef, textOf, type PdfDict, type PdfValue } from '../pdf-objects.js';
import type { Revision } from '../pdf-file.js';
import type { Role } from './structure.js';
import { changedKeys, refText, type Need, type Push } from './record.js';

/** A signature field's value, resolved: a document timestamp is allowed after any signature. */
function signatureKind(field: PdfDict | undefined, rev: Revision): { kind: string; need: Need } {
  const value = dictOf(rev.resolve(field?.entries.get('V')));
  return isName(value?.entries.get('Type'), 'DocTimeStamp')
    ? { kind: 'document timestamp', need: 'none' }
    : { kind: 'signature field', need: 'signing' };
}

function fieldType(field: PdfDict | undefined, rev: Revision): string | null {
  let current = field;
  for (let i = 0; current && i < 32; i++) {
    const type = textOf(current.entries.get('FT'));
    if (type) return type;
    current = dictOf(rev.resolve(current.entries.get('Parent')));
  }
  return null;
}

function refsOf(value: PdfValue | undefined): number[] {
  return Array.isArray(value) ? value.flatMap((v) => (isRef(v) ? [v.num] : [])) : [];
}

export function judgeAcroForm(
  before: PdfDict | undefined,
  after: PdfDict | undefined,
  object: string,
  old: Revision,
  next: Revision,
  push: Push,
): void {
  for (const key of changedKeys(before, after)) {
    if (key === 'Fields') {
      const oldFields = refsOf(old.resolve(before?.entries.get('Fields')));
      const newFields = refsOf(next.resolve(after?.entries.get('Fields')));
      for (const num of oldFields.filter((n) => !newFields.includes(n)))
        push({
          kind: 'form field',
          object: refText(num),
          action: 'removed',
          need: 'never',
          detail: `form field ${refText(num)} was removed`,
        });
      for (const num of newFields.filter((n) => !oldFields.includes(n))) {
        const field = dictOf(next.get(num));
        const name = textOf(field?.entries.get('T')) ?? refText(num);
        if (fieldType(field, next) === 'Sig') {
          const { kind, need } = signatureKind(field, next);
          push({
            kind,
            object: refText(num),
            field: name,
            action: 'added',
            need,
            detail: `${kind} ${name} added`,
          });
        } else
          push({
            kind: 'form field',
            object: refText(num),
            field: name,
            action: 'added',
            need: 'never',
            detail: `form field ${name} added (adding fields is not filling them)`,
          });
      }
    } else if (key === 'SigFlags' || key === 'Type')
      push({
        kind: 'form',
        object,
        action: 'changed',
        need: 'none',
        detail: `the AcroForm's /${key} changed`,
      });
    else if (key === 'DR' || key === 'DA' || key === 'NeedAppearances')
      push({
        kind: 'form',
        object,
        action: 'changed',
        need: 'fill',
        detail: `the AcroForm's /${key} changed`,
      });
    else
      push({
        kind: 'form',
        object,
        action: 'changed',
        need: 'never',
        detail: `the AcroForm's /${key} changed`,
      });
  }
}

export function judgeAnnotations(
  before: PdfValue | undefined,
  after: PdfValue | undefined,
  page: number,
  object: string,
  old: Revision,
  next: Revision,
  push: Push,
): void {
  const oldRefs = refsOf(before);
  const newRefs = refsOf(after);
  const direct =
    (Array.isArray(before) ? before : []).length -
    oldRefs.length +
    ((Array.isArray(after) ? after : []).length - newRefs.length);
  if (direct > 0)
    push({
      kind: 'annotation',
      object,
      page,
      action: 'changed',
      need: 'annotate',
      detail: `annotations written in place on page ${page} changed`,
    });
  for (const num of oldRefs.filter((n) => !newRefs.includes(n))) {
    const annot = dictOf(old.get(num));
    const widget = isName(annot?.entries.get('Subtype'), 'Widget');
    push({
      kind: widget ? 'form field' : 'annotation',
      object: refText(num),
      page,
      action: 'removed',
      need: widget ? 'never' : 'annotate',
      detail: `${widget ? "a form field's widget" : 'an annotation'} was removed from page ${page}`,
    });
  }
  for (const num of newRefs.filter((n) => !oldRefs.includes(n))) {
    const annot = dictOf(next.get(num));
    if (!isName(annot?.entries.get('Subtype'), 'Widget')) {
      push({
        kind: 'annotation',
        object: refText(num),
        page,
        action: 'added',
        need: 'annotate',
        detail: `an annotation was added to page ${page}`,
      });
      continue;
    }
    const isNew = !old.objects.has(num);
    const field =
      annot?.entries.has('FT') || annot?.entries.has('T')
        ? annot
        : dictOf(next.resolve(annot?.entries.get('Parent')));
    if (isNew && fieldType(annot, next) === 'Sig') {
      const { kind, need } = signatureKind(field, next);
      push({
        kind,
        object: refText(num),
        page,
        field: textOf(field?.entries.get('T')) ?? undefined,
        action: 'added',
        need,
        detail: `the widget of ${kind} ${textOf(field?.entries.get('T')) ?? refText(num)} was added to page ${page}`,
      });
    } else
      push({
        kind: 'form field',
        object: refText(num),
        page,
        action: 'added',
        need: 'never',
        detail: `a form field's widget was added to page ${page}`,
      });
  }
}

export function judgeField(
  role: Extract<Role, { kind: 'field' }>,
  before: PdfDict | undefined,
  after: PdfDict | undefined,
  object: string,
  old: Revision,
  next: Revision,
  push: Push,
): void {
  const signed = isDict(old.resolve(before?.entries.get('V')));
  for (const key of changedKeys(before, after)) {
    if (role.signature) {
      if (key === 'V' && !signed) {
        const { kind, need } = signatureKind(after, next);
        push({
          kind,
          object,
          page: role.page,
          field: role.name,
          action: 'signed',
          need,
          detail: `signature field ${role.name} was signed`,
        });
      } else if (!signed && ['AP', 'AS', 'Lock', 'SV', 'F'].includes(key)) {
        push({
          kind: 'signature field',
          object,
          page: role.page,
          field: role.name,
          action: 'changed',
          need: 'signing',
          detail: `signature field ${role.name}'s /${key} changed before it was signed`,
        });
      } else
        push({
          kind: key === 'V' ? 'signature' : 'signature field',
          object,
          page: role.page,
          field: role.name,
          action: 'changed',
          need: 'never',
          detail: `signature field ${role.name}'s /${key} changed${signed ? ' after it was signed' : ''}`,
        });
    } else if (['V', 'AS', 'AP', 'RV'].includes(key)) {
      push({
        kind: 'form field',
        object,
        page: role.page,
        field: role.name,
        action: 'filled',
        need: 'fill',
        detail: `form field ${role.name} filled in (/${key})`,
      });
    } else if (key === 'Kids') {
      judgeKids(
        role,
        refsOf(old.resolve(before?.entries.get(key))),
        refsOf(next.resolve(after?.entries.get(key))),
        object,
        old,
        next,
        push,
      );
    } else
      push({
        kind: 'form field',
        object,
        page: role.page,
        field: role.name,
        action: 'changed',
        need: 'never',
        detail: `form field ${role.name}'s /${key} changed`,
      });
  }
}

/** New kids of a field: signature fields added under a parent field are signing; anything else is not allowed. */
function judgeKids(
  role: { name: string },
  before: number[],
  after: number[],
  object: string,
  old: Revision,
  next: Revision,
  push: Push,
): void {
  for (const num of before.filter((n) => !after.includes(n)))
    push({
      kind: 'form field',
      object,
      field: role.name,
      action: 'removed',
      need: 'never',
      detail: `a part of form field ${role.name} (${refText(num)}) was removed`,
    });
  for (const num of after.filter((n) => !before.includes(n))) {
    const kid = dictOf(next.get(num));
    const sig = fieldType(kid, next) === 'Sig' && !old.objects.has(num);
    push({
      kind: sig ? 'signature field' : 'form field',
      object: refText(num),
      field: role.name,
      action: 'added',
      need: sig ? signatureKind(kid, next).need : 'never',
      detail: `${sig ? 'signature field' : 'a part of form field'} ${role.name} added`,
    });
  }
}
