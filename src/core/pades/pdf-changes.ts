/**
 * What a revision changed, object by object, and what each change needs to
 * be allowed after a signature (ISO 32000-2 12.8.2.2 and 12.8.4, PAdES,
 * pyHanko's difference analysis as the model): each object is read through
 * the earlier revision's cross-reference and through the later one's, and an
 * object that differs is judged by what it was in the earlier revision
 * (pdf-structure.ts). Allowed after any signature: a new signature field with
 * its value and widget, the AcroForm's /Fields and /SigFlags for it, the DSS,
 * the catalog's /Extensions and metadata, a document timestamp. With the
 * signature's permission: a form field's value and appearance (approval
 * signatures and DocMDP 2 and 3, minus fields the signature locks), new and
 * changed annotations (DocMDP 3). Anything else is not allowed: a page's
 * content, resources or dictionary, the page tree, fonts and images drawn on
 * a page, other catalog entries, a signature value, objects freed.
 * New objects are not judged by themselves: they matter only through the
 * changed objects that refer to them, which are.
 */
import {
  dictOf,
  isDict,
  isName,
  isRef,
  sameValue,
  textOf,
  type PdfDict,
  type PdfValue,
} from './pdf-objects.js';
import type { Revision } from './pdf-file.js';
import { COST, runSteps, type Steps } from './pdf-budget.js';
import type { PartOf, Role, Structure } from './pdf-structure.js';

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

const refText = (num: number) => `${num} 0 R`;

const PART: Record<PartOf, { kind: string; need: Need }> = {
  'page content': { kind: 'page content', need: 'never' },
  'page resources': { kind: 'page resources', need: 'never' },
  page: { kind: 'page', need: 'never' },
  annotation: { kind: 'annotation', need: 'annotate' },
  appearance: { kind: 'appearance', need: 'fill' },
  field: { kind: 'form field', need: 'never' },
  'field value': { kind: 'form field', need: 'fill' },
  'form resources': { kind: 'form', need: 'fill' },
  dss: { kind: 'dss', need: 'none' },
  extensions: { kind: 'catalog', need: 'none' },
  metadata: { kind: 'metadata', need: 'none' },
  permissions: { kind: 'catalog', need: 'never' },
  signature: { kind: 'signature', need: 'never' },
  document: { kind: 'catalog', need: 'never' },
};

/** The changes `next` made to `old` (the revision just before it), judged by `structure` (old's). */
export function changesBetween(old: Revision, next: Revision, structure: Structure): Change[] {
  return runSteps(changeSteps(old, next, structure));
}

/** changesBetween as steps, each object compared counted on the revisions' meter. */
export function* changeSteps(old: Revision, next: Revision, structure: Structure): Steps<Change[]> {
  const meter = next.meter;
  const changes: Change[] = [];
  const push = (change: Omit<Change, 'revision'>) => changes.push({ revision: next.number, ...change });

  for (const key of ['Root', 'Encrypt']) {
    if (!sameValue(old.trailer.entries.get(key), next.trailer.entries.get(key))) {
      push({
        kind: 'catalog',
        object: 'trailer',
        action: 'replaced',
        need: 'never',
        detail: key === 'Root' ? 'the document catalog was replaced' : 'the encryption was changed',
      });
    }
  }
  if (!sameValue(old.trailer.entries.get('Info'), next.trailer.entries.get('Info')))
    push({
      kind: 'metadata',
      object: 'trailer',
      action: 'replaced',
      need: 'none',
      detail: 'document information replaced',
    });

  // New objects are not judged by themselves: only the objects of `old` are compared.
  for (const [num, entry] of old.objects) {
    meter.add(COST.visit);
    if (meter.due) yield;
    // The same entry (read from the same section) reads the same bytes; an object stream's
    // member also depends on where its stream is, so it is compared by key.
    const now = next.objects.get(num);
    if (now === entry && entry.type !== 'compressed') continue;
    if (old.entryKey(num) === next.entryKey(num)) continue;
    const roles = structure.roles.get(num);
    const before = old.get(num);
    if (!next.objects.has(num)) {
      if (roles)
        push({
          kind: 'object freed',
          object: refText(num),
          action: 'removed',
          need: 'never',
          detail: `object ${refText(num)} (${describeRole(roles[0]!)}) was freed`,
        });
      continue;
    }
    const after = next.get(num);
    if (after !== undefined && sameValue(before, after)) continue;
    if (!roles) continue;
    if (after === undefined) {
      push({
        kind: describeKind(roles[0]!),
        object: refText(num),
        action: 'changed',
        need: 'never',
        detail: `object ${refText(num)} is not readable in revision ${next.number}`,
      });
      continue;
    }
    for (const role of roles) judgeRole(role, num, before, after, old, next, push);
  }
  return changes;
}

type Push = (change: Omit<Change, 'revision'>) => void;

function describeKind(role: Role): string {
  if (role.kind === 'part') return PART[role.of].kind;
  if (role.kind === 'annotations') return 'annotation';
  if (role.kind === 'field') return role.signature ? 'signature field' : 'form field';
  return role.kind;
}

function describeRole(role: Role): string {
  switch (role.kind) {
    case 'page':
      return `page ${role.page}`;
    case 'part':
      return `${role.of}${role.page ? ` of page ${role.page}` : ''}${role.name ? ` of ${role.name}` : ''}`;
    case 'field':
      return `field ${role.name}`;
    default:
      return role.kind;
  }
}

/** The keys whose values differ between two dictionaries. */
function changedKeys(a: PdfDict | undefined, b: PdfDict | undefined): string[] {
  const keys = new Set([...(a?.entries.keys() ?? []), ...(b?.entries.keys() ?? [])]);
  return [...keys].filter((k) => !sameValue(a?.entries.get(k), b?.entries.get(k)));
}

function judgeRole(
  role: Role,
  num: number,
  before: PdfValue | undefined,
  after: PdfValue | undefined,
  old: Revision,
  next: Revision,
  push: Push,
): void {
  const object = refText(num);
  switch (role.kind) {
    case 'catalog':
      return judgeCatalog(dictOf(before), dictOf(after), object, old, next, push);
    case 'acroform':
      return judgeAcroForm(
        dictOf(old.resolve(before)) ?? arrayForm(before),
        dictOf(next.resolve(after)) ?? arrayForm(after),
        object,
        old,
        next,
        push,
      );
    case 'page': {
      const keys = changedKeys(dictOf(before), dictOf(after));
      for (const key of keys) {
        if (key === 'Annots')
          judgeAnnotations(
            old.resolve(dictOf(before)?.entries.get('Annots')),
            next.resolve(dictOf(after)?.entries.get('Annots')),
            role.page,
            object,
            old,
            next,
            push,
          );
        else
          push({
            kind: key === 'Contents' ? 'page content' : key === 'Resources' ? 'page resources' : 'page',
            object,
            page: role.page,
            action: 'changed',
            need: 'never',
            detail: `page ${role.page}'s /${key} changed`,
          });
      }
      return;
    }
    case 'annotations':
      return judgeAnnotations(before, after, role.page, object, old, next, push);
    case 'annotation':
      return push({
        kind: 'annotation',
        object,
        page: role.page,
        action: 'changed',
        need: 'annotate',
        detail: `an annotation on page ${role.page} changed`,
      });
    case 'page tree':
      return push({
        kind: 'page tree',
        object,
        action: 'changed',
        need: 'never',
        detail: 'the page tree changed',
      });
    case 'signature value':
      return push({
        kind: 'signature',
        object,
        field: role.name,
        action: 'changed',
        need: 'never',
        detail: `the signature value of ${role.name} changed`,
      });
    case 'field':
      return judgeField(role, dictOf(before), dictOf(after), object, old, next, push);
    case 'part': {
      const { kind, need } = PART[role.of];
      // An appearance of a signature field, or of an annotation that is not a widget, is not form filling.
      const partNeed = role.of === 'appearance' && !role.name ? 'annotate' : need;
      return push({
        kind,
        object,
        page: role.page,
        field: role.name,
        action: 'changed',
        need: partNeed,
        detail: `${describeRole(role)} (/${role.key}) changed`,
      });
    }
  }
}

/** An AcroForm's /Fields held as an indirect array: compared as an AcroForm with only /Fields. */
function arrayForm(value: PdfValue | undefined): PdfDict | undefined {
  return Array.isArray(value) ? { kind: 'dict', entries: new Map([['Fields', value]]) } : undefined;
}

function judgeCatalog(
  before: PdfDict | undefined,
  after: PdfDict | undefined,
  object: string,
  old: Revision,
  next: Revision,
  push: Push,
): void {
  for (const key of changedKeys(before, after)) {
    if (key === 'AcroForm')
      judgeAcroForm(
        dictOf(old.resolve(before?.entries.get(key))),
        dictOf(next.resolve(after?.entries.get(key))),
        object,
        old,
        next,
        push,
      );
    else if (key === 'DSS')
      push({
        kind: 'dss',
        object,
        action: 'changed',
        need: 'none',
        detail: 'the document security store (DSS) was added or updated',
      });
    else if (key === 'Extensions' || key === 'Metadata')
      push({
        kind: key === 'Metadata' ? 'metadata' : 'catalog',
        object,
        action: 'changed',
        need: 'none',
        detail: `the catalog's /${key} changed`,
      });
    else
      push({
        kind: key === 'Pages' ? 'page tree' : 'catalog',
        object,
        action: 'changed',
        need: 'never',
        detail: `the catalog's /${key} changed`,
      });
  }
}

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

function judgeAcroForm(
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

function judgeAnnotations(
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

function judgeField(
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
