/**
 * What each object of a revision is to the document: the catalog, a page,
 * a page's content or resources, an annotation, a form field and its value
 * and appearance, the AcroForm, the signature values, the DSS, metadata.
 * Found by walking from the trailer the way a reader does (the page tree, the
 * AcroForm's field tree, each page's annotations), then following every other
 * reference from those objects, so that an object drawn on a page through any
 * path (a font, an image, a form XObject, a content stream) is known as such.
 * The revision analysis (pdf-changes.ts) judges a change to an object by what
 * the object was before the change; an object can be several things at once,
 * and a change must be allowed for each of them.
 */
import {
  dictOf,
  isDict,
  isName,
  isRef,
  textOf,
  type PdfDict,
  type PdfRef,
  type PdfValue,
} from '../pdf-objects.js';
import { catalogOf, type Revision } from '../pdf-file.js';
import { COST, runSteps, type Steps } from '../pdf-budget.js';

export type Role =
  | { kind: 'catalog' }
  | { kind: 'page tree' }
  | { kind: 'page'; page: number }
  | { kind: 'annotations'; page: number }
  | { kind: 'annotation'; page: number }
  | { kind: 'field'; name: string; signature: boolean; page?: number }
  | { kind: 'acroform' }
  | { kind: 'signature value'; name: string }
  /** Reached from a structure above through a key that is not itself structure. */
  | { kind: 'part'; of: PartOf; page?: number; name?: string; field?: number; key: string };

export type PartOf =
  | 'page content'
  | 'page resources'
  | 'page'
  | 'annotation'
  | 'appearance'
  | 'field'
  | 'field value'
  | 'form resources'
  | 'dss'
  | 'extensions'
  | 'metadata'
  | 'structure tree'
  | 'permissions'
  | 'signature'
  | 'document';

export interface FieldInfo {
  name: string;
  signature: boolean;
  /** Whether a signature field holds a signature (/V). */
  signed: boolean;
}

export interface Structure {
  roles: Map<number, Role[]>;
  fields: Map<number, FieldInfo>;
  pageCount: number;
}

const MAX_FIELD_DEPTH = 32;

/**
 * The references a value holds, in the order a walk meets them (arrays in order, dictionaries
 * and streams by their keys but /Parent and /P, which lead back up), not through other
 * references. Kept per value: revisions share the values they read alike, and each revision's
 * walk would find them again.
 */
const REFS = new WeakMap<object, PdfRef[]>();
const NONE: PdfRef[] = [];
function refsIn(value: PdfValue | undefined): PdfRef[] {
  if (typeof value !== 'object' || value === null) return NONE;
  if (!Array.isArray(value) && value.kind !== 'dict' && value.kind !== 'stream') return NONE;
  let refs = REFS.get(value);
  if (refs) return refs;
  refs = [];
  const collect = (v: PdfValue | undefined): void => {
    if (isRef(v)) refs.push(v);
    else if (Array.isArray(v)) for (const item of v) collect(item);
    else {
      const dict = dictOf(v);
      if (dict) for (const [k, item] of dict.entries) if (k !== 'Parent' && k !== 'P') collect(item);
    }
  };
  collect(value);
  REFS.set(value, refs);
  return refs;
}

/** The revision's objects by what they are. */
export function structureOf(rev: Revision): Structure {
  return runSteps(structureSteps(rev));
}

/** structureOf as steps, each object visited counted on the revision's meter. */
export function* structureSteps(rev: Revision): Steps<Structure> {
  const meter = rev.meter;
  const roles = new Map<number, Role[]>();
  const fields = new Map<number, FieldInfo>();
  const structural = new Set<number>();
  const parts: [PdfValue | undefined, Extract<Role, { kind: 'part' }>][] = [];
  const add = (num: number, role: Role) => {
    meter.add(COST.visit);
    const list = roles.get(num);
    if (list) list.push(role);
    else roles.set(num, [role]);
    if (role.kind !== 'part') structural.add(num);
  };
  const part = (
    value: PdfValue | undefined,
    of: PartOf,
    key: string,
    extra: { page?: number; name?: string; field?: number } = {},
  ) => parts.push([value, { kind: 'part', of, key, ...extra }]);
  /** Every key of `dict` but `skip` as parts of `of`. */
  const rest = (dict: PdfDict, skip: string[], of: PartOf, extra: { page?: number; name?: string } = {}) => {
    for (const [key, value] of dict.entries) if (!skip.includes(key)) part(value, of, key, extra);
  };

  const catalogRef = rev.trailer.entries.get('Root');
  const catalog = catalogOf(rev);
  if (isRef(catalogRef)) add(catalogRef.num, { kind: 'catalog' });
  const info = rev.trailer.entries.get('Info');
  part(info, 'metadata', 'Info');
  const widgets = new Map<number, number>();

  let pageCount = 0;
  const seenNodes = new Set<number>();
  const walkPages = function* (ref: PdfValue | undefined, depth: number): Steps<void> {
    if (!isRef(ref) || seenNodes.has(ref.num) || depth > 64) return;
    if (meter.due) yield;
    seenNodes.add(ref.num);
    const node = rev.get(ref.num);
    if (!isDict(node)) return;
    const kids = node.entries.get('Kids');
    if (isName(node.entries.get('Type'), 'Pages') || Array.isArray(rev.resolve(kids))) {
      add(ref.num, { kind: 'page tree' });
      if (isRef(kids)) add(kids.num, { kind: 'page tree' });
      rest(node, ['Kids', 'Parent', 'Type', 'Count'], 'page resources');
      const list = rev.resolve(kids);
      if (Array.isArray(list)) for (const kid of list) yield* walkPages(kid, depth + 1);
      return;
    }
    const page = ++pageCount;
    add(ref.num, { kind: 'page', page });
    part(node.entries.get('Contents'), 'page content', 'Contents', { page });
    part(node.entries.get('Resources'), 'page resources', 'Resources', { page });
    rest(node, ['Contents', 'Resources', 'Annots', 'Parent', 'Type'], 'page', { page });
    const annotsValue = node.entries.get('Annots');
    if (isRef(annotsValue)) add(annotsValue.num, { kind: 'annotations', page });
    const annots = rev.resolve(annotsValue);
    if (!Array.isArray(annots)) return;
    for (const annotRef of annots) {
      meter.add(COST.visit);
      if (meter.due) yield;
      const annot = rev.resolve(annotRef);
      if (!isRef(annotRef) || !isDict(annot)) continue;
      if (isName(annot.entries.get('Subtype'), 'Widget')) {
        widgets.set(annotRef.num, page);
        continue;
      }
      add(annotRef.num, { kind: 'annotation', page });
      part(annot.entries.get('AP'), 'appearance', 'AP', { page });
      rest(annot, ['AP', 'P', 'Parent', 'Popup', 'IRT', 'Type', 'Subtype'], 'annotation', { page });
    }
  };

  const walkField = function* (
    ref: PdfValue | undefined,
    parentName: string,
    parentType: string | null,
    depth: number,
  ): Steps<void> {
    if (!isRef(ref) || depth > MAX_FIELD_DEPTH || fields.has(ref.num)) return;
    meter.add(COST.visit);
    if (meter.due) yield;
    const field = rev.get(ref.num);
    if (!isDict(field)) return;
    const partial = textOf(field.entries.get('T'));
    const name = partial === null ? parentName : parentName ? `${parentName}.${partial}` : partial;
    const type = textOf(field.entries.get('FT')) ?? parentType;
    const signature = type === 'Sig';
    const value = field.entries.get('V');
    fields.set(ref.num, { name, signature, signed: signature && isDict(rev.resolve(value)) });
    add(ref.num, { kind: 'field', name, signature, page: widgets.get(ref.num) });
    if (signature && isRef(value)) add(value.num, { kind: 'signature value', name });
    part(value, signature ? 'signature' : 'field value', 'V', { name });
    part(field.entries.get('AP'), 'appearance', 'AP', { name, page: widgets.get(ref.num), field: ref.num });
    rest(field, ['V', 'AP', 'Kids', 'Parent', 'P', 'T', 'FT', 'Type', 'Subtype'], 'field', { name });
    const kids = rev.resolve(field.entries.get('Kids'));
    if (isRef(field.entries.get('Kids')))
      add((field.entries.get('Kids') as { num: number }).num, { kind: 'field', name, signature });
    if (Array.isArray(kids)) for (const kid of kids) yield* walkField(kid, name, type, depth + 1);
  };

  if (catalog) {
    yield* walkPages(catalog.entries.get('Pages'), 0);
    const acroValue = catalog.entries.get('AcroForm');
    if (isRef(acroValue)) add(acroValue.num, { kind: 'acroform' });
    const acro = dictOf(rev.resolve(acroValue));
    if (acro) {
      const list = acro.entries.get('Fields');
      if (isRef(list)) add(list.num, { kind: 'acroform' });
      const resolved = rev.resolve(list);
      if (Array.isArray(resolved)) for (const f of resolved) yield* walkField(f, '', null, 0);
      part(acro.entries.get('DR'), 'form resources', 'DR');
      rest(acro, ['Fields', 'DR', 'SigFlags', 'NeedAppearances', 'DA'], 'document', { name: 'AcroForm' });
    }
    for (const [num, page] of widgets) {
      if (fields.has(num)) continue;
      // A widget no field lists: a reader may still draw it; it is an annotation of its page.
      add(num, { kind: 'annotation', page });
    }
    const special: Record<string, PartOf> = {
      DSS: 'dss',
      Extensions: 'extensions',
      Metadata: 'metadata',
      Perms: 'permissions',
      StructTreeRoot: 'structure tree',
    };
    for (const [key, value] of catalog.entries) {
      if (key === 'Pages' || key === 'AcroForm' || key === 'Type') continue;
      part(value, special[key] ?? 'document', key);
    }
  }

  // Every other reference, followed from the structure above; structure objects stop the walk.
  // One number per object and kind of part (a string key per visit would be most of the walk's time).
  const seen = new Set<number>();
  const kinds = new Map<PartOf, number>();
  const queue: [PdfRef, Extract<Role, { kind: 'part' }>][] = [];
  const push = (value: PdfValue | undefined, role: Extract<Role, { kind: 'part' }>) => {
    if (isRef(value)) queue.push([value, role]);
    else for (const ref of refsIn(value)) queue.push([ref, role]);
  };
  // Last in, first out: the last part's last reference is followed first (the order the roles of
  // an object are found in, which its messages name).
  for (const [value, role] of parts) push(value, role);
  while (queue.length > 0) {
    const [ref, role] = queue.pop()!;
    meter.add(COST.visit);
    if (meter.due) yield;
    if (structural.has(ref.num)) continue;
    let kind = kinds.get(role.of);
    if (kind === undefined) kinds.set(role.of, (kind = kinds.size));
    const key = ref.num * 16 + kind;
    if (seen.has(key)) continue;
    seen.add(key);
    add(ref.num, role);
    const resolved = rev.get(ref.num);
    if (resolved !== undefined) push(resolved, role);
  }
  return { roles, fields, pageCount };
}
