/**
 * The rules for the interactive form, where a signature's permission decides: a field's value
 * and what goes with filling it (/V, a widget's /AS, a list's /I, /RV, and /DA, /Q, /F, /Ff as
 * pyHanko counts them), its appearance redrawn for a new value (filling); signature fields added,
 * or signed (signing; a document timestamp needs nothing); the AcroForm's /DR, /DA and
 * /NeedAppearances (filling) and /SigFlags (nothing); anything else in the form, never. An
 * appearance is judged by what it draws: one replaced while its field's value stays, so that the
 * page shows other text than the value signed, is not filling (DSS's "replace" shadow attack).
 */
import { dictOf, isDict, isName, isRef, textOf, type PdfDict, type PdfValue } from '../pdf-objects.js';
import type { Revision } from '../pdf-file.js';
import type { Role } from './structure.js';
import { refText, type Judge, type Need } from './record.js';

/** A field's keys that change when it is filled in: its value and its state. */
const VALUE_KEYS = ['V', 'AS', 'I', 'RV'];
/** Keys that filling may change besides the value (pyHanko's VALUE_UPDATE_KEYS). */
const FILL_KEYS = new Set([...VALUE_KEYS, 'DA', 'Q', 'F', 'Ff', 'Type']);

/** A signature field's value, resolved: a document timestamp is allowed after any signature. */
export function signatureKind(field: PdfDict | undefined, rev: Revision): { kind: string; need: Need } {
  const value = dictOf(rev.resolve(field?.entries.get('V')));
  return isName(value?.entries.get('Type'), 'DocTimeStamp') ||
    isName(value?.entries.get('SubFilter'), 'ETSI.RFC3161')
    ? { kind: 'document timestamp', need: 'none' }
    : { kind: 'signature field', need: 'signing' };
}

export function fieldType(field: PdfDict | undefined, rev: Revision): string | null {
  let current = field;
  for (let i = 0; current && i < 32; i++) {
    const type = textOf(current.entries.get('FT'));
    if (type) return type;
    current = dictOf(rev.resolve(current.entries.get('Parent')));
  }
  return null;
}

export function refsOf(value: PdfValue | undefined): number[] {
  return Array.isArray(value) ? value.flatMap((v) => (isRef(v) ? [v.num] : [])) : [];
}

/**
 * The numbers in `before` that are not in `after` and the other way round, less the pairs whose
 * objects are the same (an object saved again under a new number is neither removed nor added).
 */
export function membership(
  judge: Judge,
  before: number[],
  after: number[],
): { removed: number[]; added: number[] } {
  const removed = before.filter((n) => !after.includes(n));
  let added = after.filter((n) => !before.includes(n));
  const kept = removed.filter((r) => {
    const twin = added.find((a) =>
      judge.same.same({ kind: 'ref', num: r, gen: 0 }, { kind: 'ref', num: a, gen: 0 }),
    );
    if (twin === undefined) return true;
    added = added.filter((a) => a !== twin);
    return false;
  });
  return { removed: kept, added };
}

/** Whether field `num`'s value changed in this revision: its own, or its parent's when the value is there. */
export function fieldValueChanged(judge: Judge, num: number, depth = 0): boolean {
  const before = dictOf(judge.old.get(num));
  const after = dictOf(judge.next.get(num));
  if (!before || !after) return false;
  if (VALUE_KEYS.some((k) => !judge.same.same(before.entries.get(k), after.entries.get(k)))) return true;
  const parent = before.entries.get('Parent');
  return (
    !before.entries.has('V') && isRef(parent) && depth < 32 && fieldValueChanged(judge, parent.num, depth + 1)
  );
}

export function judgeAcroForm(
  judge: Judge,
  before: PdfDict | undefined,
  after: PdfDict | undefined,
  object: string,
): void {
  const { old, next, push } = judge;
  for (const key of judge.same.changedKeys(before, after)) {
    if (key !== 'Fields') {
      const need: Need =
        key === 'SigFlags' || key === 'Type'
          ? 'none'
          : ['DR', 'DA', 'NeedAppearances'].includes(key)
            ? 'fill'
            : 'never';
      push({ kind: 'form', object, action: 'changed', need, detail: `the AcroForm's /${key} changed` });
      continue;
    }
    const { removed, added } = membership(
      judge,
      refsOf(old.resolve(before?.entries.get('Fields'))),
      refsOf(next.resolve(after?.entries.get('Fields'))),
    );
    for (const num of removed)
      push({
        kind: 'form field',
        object: refText(num),
        field: judge.structure.fields.get(num)?.name,
        action: 'removed',
        need: 'never',
        detail: `form field ${judge.structure.fields.get(num)?.name ?? refText(num)} was removed`,
      });
    for (const num of added) {
      const field = dictOf(next.get(num));
      const name = textOf(field?.entries.get('T')) ?? refText(num);
      // A signature field, new or one that was there unsigned (listed now): signing.
      const sig = fieldType(field, next) === 'Sig' && !judge.structure.fields.get(num)?.signed;
      const { kind, need } = sig ? signatureKind(field, next) : { kind: 'form field', need: 'never' as Need };
      push({
        kind,
        object: refText(num),
        field: name,
        action: 'added',
        need,
        detail: sig
          ? `${kind} ${name} added`
          : `form field ${name} added (adding fields is not filling them)`,
      });
    }
  }
}

/** A field (or a widget of one) that changed, key by key. */
export function judgeField(
  judge: Judge,
  role: Extract<Role, { kind: 'field' }>,
  num: number,
  before: PdfDict | undefined,
  after: PdfDict | undefined,
  object: string,
): void {
  const { old, next, push } = judge;
  const signed = isDict(old.resolve(before?.entries.get('V')));
  const at = { object, page: role.page, field: role.name };
  for (const key of judge.same.changedKeys(before, after)) {
    if (role.signature) {
      if (key === 'V' && !signed) {
        const { kind, need } = signatureKind(after, next);
        push({ kind, ...at, action: 'signed', need, detail: `signature field ${role.name} was signed` });
      } else if (!signed && ['AP', 'AS', 'Lock', 'SV', 'F', 'P', 'DA', 'MK'].includes(key))
        push({
          kind: 'signature field',
          ...at,
          action: 'changed',
          need: 'signing',
          detail: `signature field ${role.name}'s /${key} changed before it was signed`,
        });
      else
        push({
          kind: key === 'V' ? 'signature' : 'signature field',
          ...at,
          action: 'changed',
          need: 'never',
          detail: `signature field ${role.name}'s /${key} changed${signed ? ' after it was signed' : ''}`,
        });
    } else if (key === 'AP') {
      // An appearance made where there was none, or redrawn for a new value, is filling; one
      // replaced while the value stays shows the reader something the value does not say.
      const filled = !before?.entries.has('AP') || judge.valueChanged(num);
      push({
        kind: filled ? 'form field' : 'appearance',
        ...at,
        action: filled ? 'filled' : 'changed',
        need: filled ? 'fill' : 'never',
        detail: filled
          ? `form field ${role.name} filled in (/AP)`
          : `form field ${role.name}'s appearance was replaced while its value stayed: it draws something else than what was signed`,
      });
    } else if (FILL_KEYS.has(key))
      push({
        kind: 'form field',
        ...at,
        action: 'filled',
        need: 'fill',
        detail: `form field ${role.name} filled in (/${key})`,
      });
    else if (key === 'Kids')
      judgeKids(
        judge,
        role,
        refsOf(old.resolve(before?.entries.get(key))),
        refsOf(next.resolve(after?.entries.get(key))),
        object,
      );
    else
      push({
        kind: 'form field',
        ...at,
        action: 'changed',
        need: 'never',
        detail: `form field ${role.name}'s /${key} changed`,
      });
  }
}

/** An appearance stream of field `num` changed in place: judged as its field's /AP would be. */
export function judgeFieldAppearance(
  judge: Judge,
  num: number,
  name: string,
  page: number | undefined,
  object: string,
): void {
  const info = judge.structure.fields.get(num);
  const at = { kind: 'appearance', object, page, field: name };
  if (info?.signature)
    judge.push({
      ...at,
      action: 'changed',
      need: info.signed ? 'never' : 'signing',
      detail: `the appearance of signature field ${name} changed${info.signed ? ' after it was signed' : ''}`,
    });
  else if (judge.valueChanged(num))
    judge.push({
      ...at,
      action: 'filled',
      need: 'fill',
      detail: `form field ${name}'s appearance redrawn for its new value`,
    });
  else
    judge.push({
      ...at,
      action: 'changed',
      need: 'never',
      detail: `form field ${name}'s appearance changed while its value stayed: it draws something else than what was signed`,
    });
}

/** Whether annotation `num` is off the page it named (its /P) in the new revision; false when it names none. */
function offItsPage(judge: Judge, num: number): boolean {
  const page = dictOf(judge.old.get(num))?.entries.get('P');
  if (!isRef(page)) return false;
  const annots = judge.next.resolve(dictOf(judge.next.get(page.num))?.entries.get('Annots'));
  return !refsOf(annots).includes(num);
}

/**
 * A field's kids: a signature field added under a parent is signing, a widget removed is an
 * annotation removed (annotating, which the field's lock may forbid); anything else is not allowed.
 */
function judgeKids(
  judge: Judge,
  role: { name: string },
  before: number[],
  after: number[],
  object: string,
): void {
  const { old, next, push } = judge;
  const { removed, added } = membership(judge, before, after);
  for (const num of removed) {
    const kid = dictOf(old.get(num));
    // A widget that left its field and its page too is an annotation removed; one that stays on
    // its page is cut from its field, which changes the form.
    const widget =
      isName(kid?.entries.get('Subtype'), 'Widget') && !kid?.entries.has('T') && offItsPage(judge, num);
    push({
      kind: 'form field',
      object,
      field: role.name,
      action: 'removed',
      need: widget ? 'edit annotations' : 'never',
      detail: widget
        ? `a widget of form field ${role.name} (${refText(num)}) was removed`
        : `a part of form field ${role.name} (${refText(num)}) was removed`,
    });
  }
  for (const num of added) {
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
