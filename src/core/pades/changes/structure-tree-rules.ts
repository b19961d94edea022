/**
 * The structure tree (tagged PDF, ISO 32000-2 14.7): what assistive technology reads, not what a
 * page draws. Signing software that adds a field to a tagged document, and a reader that adds or
 * removes an annotation, update it: a structure element pointing at the new annotation (an OBJR),
 * the parent tree, the next key. That is allowed with the change it accompanies (the annotation's
 * own change is judged on its own). Anything else is a change to the tags, never allowed: an
 * element's type, alternate or actual text, language or attributes, the marked content it owns,
 * elements added or removed, the role and class maps (as iText judges; DSS allows every change).
 * So the tree is compared as it would read without its links to annotations.
 */
import { dictOf, isDict, isName, isRef, isString, type PdfDict, type PdfValue } from '../pdf-objects.js';
import { catalogOf, type Revision } from '../pdf-file.js';
import { COST } from '../pdf-budget.js';
import type { Judge } from './record.js';

/** Keys of the tree's root that index it (rebuilt whenever an element is added) rather than say what it holds. */
const INDEX_KEYS = new Set(['K', 'ParentTree', 'ParentTreeNextKey', 'IDTree']);
/** Keys of an element that link it (to its parent, or the kids written apart) rather than describe it. */
const LINK_KEYS = new Set(['K', 'P']);
const MAX_DEPTH = 256;

/** A value as text, references by number (pages, streams and annotations are judged on their own). */
function text(value: PdfValue | undefined, skip: Set<string> | null = null, depth = 0): string {
  if (depth > MAX_DEPTH) return '…';
  if (value === undefined) return '';
  if (value === null || typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return `[${value.map((v) => text(v, null, depth + 1)).join(' ')}]`;
  if (isRef(value)) return `${value.num}R`;
  if (isName(value)) return `/${value.name}`;
  if (isString(value)) return `<${Buffer.from(value.raw ?? value.bytes).toString('hex')}>`;
  const dict = dictOf(value)!;
  const keys = [...dict.entries.keys()].filter((k) => !skip?.has(k)).sort();
  return `<<${keys.map((k) => `/${k} ${text(dict.entries.get(k), null, depth + 1)}`).join(' ')}>>`;
}

/** An element's kids (/K): an array, or one kid written alone. */
function kidsOf(rev: Revision, dict: PdfDict): PdfValue[] {
  const written = dict.entries.get('K');
  const resolved = rev.resolve(written);
  return Array.isArray(resolved) ? resolved : written === undefined ? [] : [written];
}

/**
 * The tree as it reads without its links to annotations: elements that only hold such links are
 * left out, and kept apart by object number (`linking`) so that one kept in both revisions is
 * still compared.
 */
function projection(rev: Revision, root: PdfDict | undefined, linking: Map<number, string>): string {
  if (!root) return '';
  const seen = new Set<number>();
  const kid = (value: PdfValue | undefined, depth: number): string => {
    rev.meter.add(COST.visit);
    if (depth > MAX_DEPTH) return '…';
    if (typeof value === 'number') return `mcid ${value}`;
    const resolved = isRef(value) ? rev.get(value.num) : value;
    if (isRef(value)) {
      if (seen.has(value.num)) return 'cycle';
      seen.add(value.num);
    }
    const dict = dictOf(resolved);
    if (!dict) return text(resolved);
    if (isName(dict.entries.get('Type'), 'OBJR')) return '';
    if (!dict.entries.has('S') && !isName(dict.entries.get('Type'), 'StructElem')) return text(dict);
    const list = kidsOf(rev, dict);
    const kids = list.map((k) => kid(k, depth + 1)).filter(Boolean);
    const described = `E${text(dict, LINK_KEYS)}{${kids.join(',')}}`;
    if (list.length > 0 && kids.length === 0) {
      if (isRef(value)) linking.set(value.num, described);
      return '';
    }
    return described;
  };
  return `${text(root, INDEX_KEYS)}{${kidsOf(rev, root)
    .map((k) => kid(k, 0))
    .filter(Boolean)
    .join(',')}}`;
}

export function judgeStructureTree(judge: Judge): void {
  const root = (rev: Revision) => dictOf(rev.resolve(catalogOf(rev)?.entries.get('StructTreeRoot')));
  const before = root(judge.old);
  const after = root(judge.next);
  const linkingBefore = new Map<number, string>();
  const linkingAfter = new Map<number, string>();
  const same =
    isDict(before) === isDict(after) &&
    projection(judge.old, before, linkingBefore) === projection(judge.next, after, linkingAfter) &&
    [...linkingBefore].every(([num, text]) => !linkingAfter.has(num) || linkingAfter.get(num) === text);
  judge.push({
    kind: 'structure tree',
    object: 'StructTreeRoot',
    action: 'changed',
    need: same ? 'none' : 'never',
    detail: same
      ? "the structure tree's links to annotations were updated"
      : before && !after
        ? 'the structure tree (tags) was removed'
        : 'the structure tree (tags) changed: what assistive technology reads is not what was signed',
  });
}
