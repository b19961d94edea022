/**
 * The fields of `sign-cli api`, as gh api takes them: `-f key=value` a
 * string, `-F key=value` typed (true, false, null, numbers; `@file` a file's
 * text, `@-` stdin). Keys nest as `signers[0][name]`, `signers[][name]`
 * (appended) or `document.template_id`. Pure: reading files is the caller's.
 */
import { UsageError } from '../../../core/errors.js';

export interface Field {
  key: string;
  value: unknown;
}

/** `key=value` split at its first `=`; a missing `=` or key is a usage error naming the flag. */
function split(flag: string, text: string): [string, string] {
  const at = text.indexOf('=');
  if (at <= 0) throw new UsageError(`${flag} ${text}: not key=value (e.g. ${flag} title=Lease)`);
  return [text.slice(0, at), text.slice(at + 1)];
}

export function rawField(text: string): Field {
  const [key, value] = split('-f', text);
  return { key, value };
}

/** `-F`: a literal becomes its JSON type; `@path` is read by `readFile` (`@-` stdin). */
export async function typedField(text: string, readFile: (path: string) => Promise<string>): Promise<Field> {
  const [key, value] = split('-F', text);
  if (value.startsWith('@')) return { key, value: await readFile(value.slice(1)) };
  if (value === 'true' || value === 'false') return { key, value: value === 'true' };
  if (value === 'null') return { key, value: null };
  if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(value) && Number.isFinite(Number(value)))
    return { key, value: Number(value) };
  return { key, value };
}

/** `signers[0][name]` and `document.template_id` as path segments; `[]` is an append. */
function segments(key: string): (string | number)[] {
  const parts: (string | number)[] = [];
  const head = /^[^[\]]+/.exec(key);
  if (!head) throw new UsageError(`field ${key}: a key starts with a name (e.g. signers[0][name])`);
  parts.push(...head[0].split('.'));
  let rest = key.slice(head[0].length);
  while (rest) {
    const m = /^\[([^[\]]*)\]/.exec(rest);
    if (!m)
      throw new UsageError(
        `field ${key}: brackets hold an index, a name or nothing (signers[0][name], signers[][name])`,
      );
    const inner = m[1]!;
    parts.push(inner === '' ? '[]' : /^\d+$/.test(inner) ? Number(inner) : inner);
    rest = rest.slice(m[0].length);
  }
  if (parts.some((p) => p === '')) throw new UsageError(`field ${key}: an empty name in the key`);
  return parts;
}

type Container = Record<string, unknown> | unknown[];

/** The JSON body the fields make, in the order given. */
export function buildBody(fields: readonly Field[]): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const { key, value } of fields) {
    const path = segments(key);
    let node: Container = root;
    for (let i = 0; i < path.length; i++) {
      const last = i === path.length - 1;
      let part = path[i]!;
      const nextIsIndex = !last && (typeof path[i + 1] === 'number' || path[i + 1] === '[]');
      if (Array.isArray(node)) {
        if (typeof part === 'string' && part !== '[]')
          throw new UsageError(`field ${key}: ${part} names a field of a list`);
        // `[]` appends, except that `a[][x]=1` then `a[][y]=2` fills one element, as gh does.
        if (part === '[]')
          part =
            !last && node.length > 0 && isFree(node[node.length - 1], path[i + 1]!)
              ? node.length - 1
              : node.length;
      } else if (typeof part !== 'string' || part === '[]') {
        throw new UsageError(`field ${key}: an index where a name is expected`);
      }
      const slot = node as Record<string | number, unknown>;
      if (last) {
        slot[part] = value;
        break;
      }
      const existing = slot[part];
      if (existing === undefined) slot[part] = nextIsIndex ? [] : {};
      else if (typeof existing !== 'object' || existing === null || Array.isArray(existing) !== nextIsIndex)
        throw new UsageError(`field ${key}: conflicts with another field of the same name`);
      node = slot[part] as Container;
    }
  }
  return root;
}

/** Whether an appended element can still take this key (gh's rule for `[]`). */
function isFree(element: unknown, next: string | number): boolean {
  return (
    typeof element === 'object' &&
    element !== null &&
    !Array.isArray(element) &&
    typeof next === 'string' &&
    !(next in element)
  );
}

/** Fields as query parameters (a GET): nested keys kept as written. */
export function queryOf(fields: readonly Field[]): Record<string, string[]> {
  const query: Record<string, string[]> = {};
  for (const { key, value } of fields)
    (query[key] ??= []).push(value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value));
  return query;
}
