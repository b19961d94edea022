/**
 * What a revision changed, object by object, and what each change needs to
 * be allowed after a signature (ISO 32000-2 12.8.2.2 and 12.8.4, PAdES; the
 * rules per kind of object, summed into what a signature allows, follow
 * pyHanko's difference analysis, DSS's and iText's): each object is read
 * through the earlier revision's cross-reference and through the later one's,
 * and an object that differs is judged by what it was in the earlier revision
 * (structure.ts), its values compared by what they are, not by their numbers
 * (same.ts). A catalog saved again under a new number is judged against the
 * old one in the same way. The rules per kind: the catalog, the page tree and
 * pages (document-rules.ts), the form (form-rules.ts), annotations
 * (annotation-rules.ts), the structure tree (structure-tree-rules.ts).
 * New objects are not judged by themselves: they matter only through the
 * changed objects that refer to them, which are.
 */
import { isDict, sameValue } from '../pdf-objects.js';
import { catalogOf, type Revision } from '../pdf-file.js';
import { COST, runSteps, type Steps } from '../pdf-budget.js';
import type { Role, Structure } from './structure.js';
import { refText, type Change, type Judge, type Need } from './record.js';
import { Sameness } from './same.js';
import { describeKind, describeRole, judgeRole, judgeCatalog } from './document-rules.js';
import { fieldValueChanged } from './form-rules.js';
import { judgeStructureTree } from './structure-tree-rules.js';

/** The changes `next` made to `old` (the revision just before it), judged by `structure` (old's). */
export function changesBetween(old: Revision, next: Revision, structure: Structure): Change[] {
  return runSteps(changeSteps(old, next, structure));
}

/** Roles whose objects may go when annotations go (DocMDP 3): the annotations, their arrays and appearances. */
const ANNOTATION_ROLES = new Set(['annotation', 'annotations']);
const freedNeed = (roles: Role[]): Need =>
  roles.every(
    (r) =>
      ANNOTATION_ROLES.has(r.kind) || (r.kind === 'part' && r.of === 'appearance' && r.field === undefined),
  )
    ? 'edit annotations'
    : 'never';

/** changesBetween as steps, each object compared counted on the revisions' meter. */
export function* changeSteps(old: Revision, next: Revision, structure: Structure): Steps<Change[]> {
  const meter = next.meter;
  const changes: Change[] = [];
  const same = new Sameness(old, next);
  const values = new Map<number, boolean>();
  let treeJudged = false;
  const judge: Judge = {
    old,
    next,
    structure,
    same,
    push: (change) => changes.push({ revision: next.number, ...change }),
    valueChanged(num) {
      let known = values.get(num);
      if (known === undefined) values.set(num, (known = fieldValueChanged(judge, num)));
      return known;
    },
    structureTree() {
      if (treeJudged) return;
      treeJudged = true;
      judgeStructureTree(judge);
    },
  };

  const rootBefore = old.trailer.entries.get('Root');
  const rootAfter = next.trailer.entries.get('Root');
  // A catalog saved anew under another number: judged against the old one, key by key.
  const rootMoved = !sameValue(rootBefore, rootAfter);
  if (rootMoved) {
    const after = catalogOf(next);
    if (!isDict(after))
      judge.push({
        kind: 'catalog',
        object: 'trailer',
        action: 'replaced',
        need: 'never',
        detail: 'the document catalog was replaced by something that is not a catalog',
      });
    else judgeCatalog(judge, catalogOf(old), after, 'trailer');
  }
  if (!sameValue(old.trailer.entries.get('Encrypt'), next.trailer.entries.get('Encrypt')))
    judge.push({
      kind: 'catalog',
      object: 'trailer',
      action: 'replaced',
      need: 'never',
      detail: 'the encryption was changed',
    });
  if (!same.same(old.trailer.entries.get('Info'), next.trailer.entries.get('Info')))
    judge.push({
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
        judge.push({
          kind: 'object freed',
          object: refText(num),
          action: 'removed',
          need: freedNeed(roles),
          detail: `object ${refText(num)} (${describeRole(roles[0]!)}) was freed`,
        });
      continue;
    }
    const after = next.get(num);
    if (after !== undefined && sameValue(before, after)) continue;
    if (!roles) continue;
    if (after === undefined) {
      judge.push({
        kind: describeKind(roles[0]!),
        object: refText(num),
        action: 'changed',
        need: 'never',
        detail: `object ${refText(num)} is not readable in revision ${next.number}`,
      });
      continue;
    }
    // Written again as it was (in an object stream, say, or compressed anew): no change.
    if (same.same(before, after)) continue;
    // A structure element is the structure tree's, whatever else links to it (an outline item's /SE).
    const tagged = roles.some((r) => r.kind === 'part' && r.of === 'structure tree');
    for (const role of roles) {
      if (rootMoved && role.kind === 'catalog') continue;
      if (tagged && role.kind === 'part' && role.of === 'document') continue;
      judgeRole(judge, role, num, before, after);
    }
  }
  return changes;
}
