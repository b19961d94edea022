/**
 * The rules for the document around the form: the catalog, the page tree and the pages, and the
 * objects reached from them (structure.ts calls those parts). Allowed after any signature: the
 * DSS, the catalog's /Extensions, /Metadata, /Version and /MarkInfo (as pyHanko, DSS and iText
 * allow), a page's /StructParents and iText 5's /ITXT marker; with annotating, named appearances
 * of annotations (/Names /AP: added, or changed with the right to edit annotations) and a page's
 * tab order (/Tabs), except that /Tabs /S, which signing software sets when it adds a field to a
 * tagged page, needs only signing. Anything else is not
 * allowed: a page's content, resources or dictionary, the page tree, fonts and images drawn on a
 * page, other catalog entries, a signature value. Every comparison is by what the values are.
 */
import { dictOf, isName, type PdfDict, type PdfValue } from '../pdf-objects.js';
import type { PartOf, Role } from './structure.js';
import type { Judge, Need } from './record.js';
import { judgeAcroForm, judgeField, judgeFieldAppearance } from './form-rules.js';
import { judgeAnnotations } from './annotation-rules.js';

const PART: Record<PartOf, { kind: string; need: Need }> = {
  'page content': { kind: 'page content', need: 'never' },
  'page resources': { kind: 'page resources', need: 'never' },
  page: { kind: 'page', need: 'never' },
  annotation: { kind: 'annotation', need: 'edit annotations' },
  appearance: { kind: 'appearance', need: 'edit annotations' },
  field: { kind: 'form field', need: 'never' },
  'field value': { kind: 'form field', need: 'fill' },
  'form resources': { kind: 'form', need: 'fill' },
  dss: { kind: 'dss', need: 'none' },
  extensions: { kind: 'catalog', need: 'none' },
  metadata: { kind: 'metadata', need: 'none' },
  'structure tree': { kind: 'structure tree', need: 'never' },
  permissions: { kind: 'catalog', need: 'never' },
  signature: { kind: 'signature', need: 'never' },
  document: { kind: 'catalog', need: 'never' },
};

/** Catalog entries that may change after any signature: they draw nothing and permit nothing. */
const FREE_CATALOG_KEYS = new Set(['DSS', 'Extensions', 'Metadata', 'Version', 'MarkInfo']);

/** A marker iText 5 writes into page tree nodes; DSS skips it too. */
const ITXT = 'ITXT';

export function describeKind(role: Role): string {
  if (role.kind === 'part') return PART[role.of].kind;
  if (role.kind === 'annotations') return 'annotation';
  if (role.kind === 'field') return role.signature ? 'signature field' : 'form field';
  return role.kind;
}

export function describeRole(role: Role): string {
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

/** Object `num`, which is `role` in the old revision, was `before` and is `after`: judged by what it is. */
export function judgeRole(
  judge: Judge,
  role: Role,
  num: number,
  before: PdfValue | undefined,
  after: PdfValue | undefined,
): void {
  const { old, next, push } = judge;
  const object = `${num} 0 R`;
  switch (role.kind) {
    case 'catalog':
      return judgeCatalog(judge, dictOf(before), dictOf(after), object);
    case 'acroform':
      return judgeAcroForm(
        judge,
        dictOf(old.resolve(before)) ?? arrayForm(before),
        dictOf(next.resolve(after)) ?? arrayForm(after),
        object,
      );
    case 'page':
      return judgePage(judge, role.page, dictOf(before), dictOf(after), object);
    case 'annotations':
      return judgeAnnotations(judge, before, after, role.page, object);
    case 'annotation':
      return push({
        kind: 'annotation',
        object,
        page: role.page,
        action: 'changed',
        need: 'edit annotations',
        detail: `an annotation on page ${role.page} changed`,
      });
    case 'page tree': {
      const keys = judge.same.changedKeys(dictOf(before), dictOf(after)).filter((k) => k !== ITXT);
      // A node whose only difference is a marker (an indirect /Kids array that changed is always one).
      if (dictOf(before) && keys.length === 0) return;
      return push({
        kind: 'page tree',
        object,
        action: 'changed',
        need: 'never',
        detail: 'the page tree changed',
      });
    }
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
      return judgeField(judge, role, num, dictOf(before), dictOf(after), object);
    case 'part': {
      if (role.of === 'structure tree') return judge.structureTree();
      if (role.of === 'appearance' && role.field !== undefined)
        return judgeFieldAppearance(judge, role.field, role.name ?? '', role.page, object);
      const { kind, need } = PART[role.of];
      return push({
        kind,
        object,
        page: role.page,
        field: role.name,
        action: 'changed',
        need,
        detail: `${describeRole(role)} (/${role.key}) changed`,
      });
    }
  }
}

/** An AcroForm's /Fields held as an indirect array: compared as an AcroForm with only /Fields. */
function arrayForm(value: PdfValue | undefined): PdfDict | undefined {
  return Array.isArray(value) ? { kind: 'dict', entries: new Map([['Fields', value]]) } : undefined;
}

/** The catalog, key by key (also when it was saved anew under another number: `object` is then `trailer`). */
export function judgeCatalog(
  judge: Judge,
  before: PdfDict | undefined,
  after: PdfDict | undefined,
  object: string,
): void {
  const { old, next, push } = judge;
  for (const key of judge.same.changedKeys(before, after)) {
    if (key === 'AcroForm')
      judgeAcroForm(
        judge,
        dictOf(old.resolve(before?.entries.get(key))),
        dictOf(next.resolve(after?.entries.get(key))),
        object,
      );
    else if (key === 'StructTreeRoot') judge.structureTree();
    else if (key === 'Names')
      judgeNames(
        judge,
        dictOf(old.resolve(before?.entries.get(key))),
        dictOf(next.resolve(after?.entries.get(key))),
        object,
      );
    else if (key === 'DSS')
      push({
        kind: 'dss',
        object,
        action: 'changed',
        need: 'none',
        detail: 'the document security store (DSS) was added or updated',
      });
    else
      push({
        kind: key === 'Pages' ? 'page tree' : key === 'Metadata' ? 'metadata' : 'catalog',
        object,
        action: 'changed',
        need: FREE_CATALOG_KEYS.has(key) ? 'none' : 'never',
        detail: `the catalog's /${key} changed`,
      });
  }
}

/** The name trees: only the named appearances annotations use (/AP) may change, with annotating. */
function judgeNames(
  judge: Judge,
  before: PdfDict | undefined,
  after: PdfDict | undefined,
  object: string,
): void {
  for (const key of judge.same.changedKeys(before, after)) {
    // Named appearances made for new annotations; ones existing annotations draw may change what they show.
    const added = key === 'AP' && !before?.entries.has('AP');
    judge.push({
      kind: key === 'AP' ? 'annotation' : 'catalog',
      object,
      action: added ? 'added' : 'changed',
      need: key !== 'AP' ? 'never' : added ? 'annotate' : 'edit annotations',
      detail:
        key === 'AP'
          ? `the named appearances of annotations (/Names /AP) were ${added ? 'added' : 'changed'}`
          : `the catalog's /Names /${key} changed`,
    });
  }
}

function judgePage(
  judge: Judge,
  page: number,
  before: PdfDict | undefined,
  after: PdfDict | undefined,
  object: string,
): void {
  const { old, next, push } = judge;
  for (const key of judge.same.changedKeys(before, after)) {
    if (key === ITXT) continue;
    if (key === 'Annots') {
      judgeAnnotations(
        judge,
        old.resolve(before?.entries.get('Annots')),
        next.resolve(after?.entries.get('Annots')),
        page,
        object,
      );
      continue;
    }
    let need: Need = 'never';
    let kind = key === 'Contents' ? 'page content' : key === 'Resources' ? 'page resources' : 'page';
    let detail = `page ${page}'s /${key} changed`;
    if (key === 'StructParents') {
      need = 'none';
      detail = `page ${page}'s key into the structure tree (/StructParents) changed`;
    } else if (key === 'Tabs') {
      // Signing software sets /Tabs /S (structure order) when it adds a field to a tagged page.
      need = !before?.entries.has('Tabs') && isName(after?.entries.get('Tabs'), 'S') ? 'signing' : 'annotate';
      kind = 'tab order';
      detail = `page ${page}'s tab order of annotations (/Tabs) changed`;
    }
    push({
      kind,
      object,
      page,
      action: 'changed',
      need,
      detail,
    });
  }
}
