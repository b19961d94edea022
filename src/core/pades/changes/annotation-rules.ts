/**
 * The rules for a page's annotations: added, changed or removed, they need the right to annotate
 * (DocMDP 3, or an approval signature with no DocMDP: what ISO 32000 leaves open and pyHanko, DSS
 * and iText allow); a form field's widget removed is an annotation removed too, which the field's
 * FieldMDP lock may forbid. A widget added is a signature field's (signing; a document timestamp
 * needs nothing), whether the field is new or was there unsigned; any other field's widget added
 * is a field added, never allowed. Annotations saved again under new numbers are no change.
 */
import { dictOf, isDict, isName, isRef, textOf, type PdfValue } from '../pdf-objects.js';
import { refText, type Judge } from './record.js';
import { fieldType, membership, refsOf, signatureKind } from './form-rules.js';

export function judgeAnnotations(
  judge: Judge,
  before: PdfValue | undefined,
  after: PdfValue | undefined,
  page: number,
  object: string,
): void {
  const { old, next, push, structure } = judge;
  const oldRefs = refsOf(before);
  const newRefs = refsOf(after);
  // Annotations written in the array itself, not as objects of their own.
  const inPlace = (list: PdfValue | undefined) => (Array.isArray(list) ? list : []).filter((v) => isDict(v));
  if (!judge.same.same(inPlace(before), inPlace(after)))
    push({
      kind: 'annotation',
      object,
      page,
      action: 'changed',
      need: 'edit annotations',
      detail: `annotations written in place on page ${page} changed`,
    });
  const { removed, added } = membership(judge, oldRefs, newRefs);
  for (const num of removed) {
    const annot = dictOf(old.get(num));
    const widget = isName(annot?.entries.get('Subtype'), 'Widget');
    const field = widget ? (structure.fields.get(num) ?? fieldOfWidget(judge, num)) : undefined;
    push({
      kind: widget ? 'form field' : 'annotation',
      object: refText(num),
      page,
      ...(field ? { field: field.name } : {}),
      action: 'removed',
      need: field?.signature && field.signed ? 'never' : 'edit annotations',
      detail: `${widget ? `the widget of ${field?.signature ? 'signature field' : 'form field'} ${field?.name ?? refText(num)}` : 'an annotation'} was removed from page ${page}`,
    });
  }
  for (const num of added) {
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
    const field =
      annot?.entries.has('FT') || annot?.entries.has('T')
        ? annot
        : dictOf(next.resolve(annot?.entries.get('Parent')));
    const name = textOf(field?.entries.get('T')) ?? undefined;
    // A signature field's widget joins the page: the field is new, or was there unsigned.
    const known = structure.fields.get(num);
    if (fieldType(annot, next) === 'Sig' && (!old.objects.has(num) || (known?.signature && !known.signed))) {
      const { kind, need } = signatureKind(field, next);
      push({
        kind,
        object: refText(num),
        page,
        field: name,
        action: 'added',
        need,
        detail: `the widget of ${kind} ${name ?? refText(num)} was added to page ${page}`,
      });
    } else
      push({
        kind: 'form field',
        object: refText(num),
        page,
        field: name,
        action: 'added',
        need: 'never',
        detail: `a form field's widget was added to page ${page}`,
      });
  }
}

/** The field a widget without a name of its own belongs to (its /Parent), as the old revision knew it. */
function fieldOfWidget(judge: Judge, num: number) {
  const parent = dictOf(judge.old.get(num))?.entries.get('Parent');
  return isRef(parent) ? judge.structure.fields.get(parent.num) : undefined;
}
