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
 * The form's and the annotations' rules are in pdf-form-changes.ts, the record of a
 * change in pdf-change-record.ts.
 */
import { dictOf, sameValue, type PdfDict, type PdfValue } from '../pdf-objects.js';
import type { Revision } from '../pdf-file.js';
import { COST, runSteps, type Steps } from '../pdf-budget.js';
import type { PartOf, Role, Structure } from './structure.js';
import { changedKeys, refText, type Change, type Need, type Push } from './record.js';
import { judgeAcroForm, judgeAnnotations, judgeField } from './form-rules.js';

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
