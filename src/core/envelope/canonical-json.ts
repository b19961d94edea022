/**
 * JSON with object keys sorted at every level, so equal values always give
 * equal text: the basis of body fingerprints, derived Idempotency-Keys and
 * audit-trail hashes. Iterative, with its own stack, so a value nested
 * 100,000 levels deep (hostile input) cannot overflow the call stack.
 */
type Frame = { items: unknown[]; keys: string[] | undefined; index: number; parts: string[] };

function leaf(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

function open(value: object): Frame {
  if (Array.isArray(value)) return { items: value, keys: undefined, index: 0, parts: [] };
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort();
  return { items: keys.map((key) => record[key]), keys, index: 0, parts: [] };
}

function close(frame: Frame): string {
  if (!frame.keys) return `[${frame.parts.join(',')}]`;
  return `{${frame.parts.map((part, i) => `${JSON.stringify(frame.keys![i])}:${part}`).join(',')}}`;
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return leaf(value);
  const stack: Frame[] = [open(value)];
  for (;;) {
    const frame = stack.at(-1)!;
    if (frame.index >= frame.items.length) {
      const text = close(frame);
      stack.pop();
      if (stack.length === 0) return text;
      stack.at(-1)!.parts.push(text);
      continue;
    }
    const item = frame.items[frame.index++];
    const child = item === undefined ? null : item;
    if (child !== null && typeof child === 'object') stack.push(open(child));
    else frame.parts.push(leaf(child));
  }
}

/** The path (`a.b[0]`) at which `value` nests deeper than `limit` levels, or undefined. Iterative. */
export function tooDeepAt(value: unknown, limit: number): string | undefined {
  const stack: { value: unknown; depth: number; path: string }[] = [{ value, depth: 0, path: '' }];
  while (stack.length > 0) {
    const { value: current, depth, path } = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > limit) return path;
    if (Array.isArray(current))
      current.forEach((item, i) => stack.push({ value: item, depth: depth + 1, path: `${path}[${i}]` }));
    else
      for (const [key, item] of Object.entries(current))
        stack.push({
          value: item,
          depth: depth + 1,
          path: /^[A-Za-z_$][\w$]*$/.test(key)
            ? path
              ? `${path}.${key}`
              : key
            : `${path}[${JSON.stringify(key)}]`,
        });
  }
  return undefined;
}
