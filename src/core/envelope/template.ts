/**
 * Envelope templates: an envelope JSON whose string values may hold
 * `{{column}}` placeholders, rendered once per row of a spreadsheet (CSV).
 * A value that is exactly one placeholder takes the cell converted to the
 * field's type in the envelope schema (`"expires_in_days": "{{days}}"`
 * becomes an integer); an empty cell leaves the field out, and an object of
 * an array (a signer) whose placeholders are all empty is left out whole when
 * the row filled another one, so a template may describe a second signer that
 * some rows do not have.
 * Placeholders inside longer text are replaced by the cell's text.
 */
import { ENVELOPE_SHAPE, type Shape } from './schema.js';

const PLACEHOLDER_RE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const WHOLE_RE = /^\{\{\s*([^{}]*?)\s*\}\}$/;

/** Every column name a template's placeholders use, in the order they first appear. */
export function templatePlaceholders(template: unknown): string[] {
  const names = new Set<string>();
  const walk = (value: unknown): void => {
    if (typeof value === 'string') for (const match of value.matchAll(PLACEHOLDER_RE)) names.add(match[1]!);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(template);
  return [...names];
}

type Kind = 'string' | 'number' | 'boolean' | 'other';

/** The type the envelope's shape (schema.ts) gives the field at `path` (numbers for array indexes); `other` when it names none. */
export function fieldKind(path: readonly (string | number)[]): Kind {
  let node: Shape | undefined = ENVELOPE_SHAPE;
  for (const segment of path) {
    if (!node) return 'other';
    if (typeof segment === 'number') node = node.type === 'array' ? node.element : undefined;
    else
      node = node.type === 'object' && Object.hasOwn(node.fields, segment) ? node.fields[segment] : undefined;
  }
  const type = node?.type;
  return type === 'string' || type === 'number' || type === 'boolean' ? type : 'other';
}

/** A whole-placeholder cell as the field's type; a cell that is not one stays text, and validation names it. */
function typed(cell: string, kind: Kind): unknown {
  const text = cell.trim();
  if (kind === 'number' && /^[+-]?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (kind === 'boolean' && /^(true|false)$/i.test(text)) return text.toLowerCase() === 'true';
  return cell;
}

/** Marks a value the rendering left out (an empty cell). */
const LEFT_OUT = Symbol('left out');

/** Where the rendered envelope's values came from: its JSON path (`signers[1].phone`) → the columns that filled it. */
export type ColumnSources = Map<string, string[]>;

type Rendered = { value: unknown; templated: boolean; allEmpty: boolean; sources: [string, string[]][] };

/** A source path below `key` (an object key or an array index). */
const under = (key: string | number, path: string) => {
  const head = typeof key === 'number' ? `[${key}]` : key;
  return path === '' || path.startsWith('[') ? `${head}${path}` : `${head}.${path}`;
};

/**
 * The envelope one row renders to. `row` maps column names to cells; a
 * placeholder without a column renders as empty (callers check the columns
 * first: templatePlaceholders). With `sources`, each rendered field's columns
 * are recorded there, at its path in the rendered envelope (a signer left out
 * moves the ones after it).
 */
export function renderTemplate(
  template: unknown,
  row: Readonly<Record<string, string>>,
  sources?: ColumnSources,
): unknown {
  const render = (value: unknown, path: (string | number)[]): Rendered => {
    if (typeof value === 'string') {
      const whole = WHOLE_RE.exec(value);
      if (whole) {
        const cell = row[whole[1]!] ?? '';
        if (cell.trim() === '') return { value: LEFT_OUT, templated: true, allEmpty: true, sources: [] };
        return {
          value: typed(cell, fieldKind(path)),
          templated: true,
          allEmpty: false,
          sources: [['', [whole[1]!]]],
        };
      }
      PLACEHOLDER_RE.lastIndex = 0;
      if (!PLACEHOLDER_RE.test(value)) return { value, templated: false, allEmpty: false, sources: [] };
      let empty = true;
      const columns: string[] = [];
      const text = value.replace(PLACEHOLDER_RE, (_m, name: string) => {
        const cell = row[name] ?? '';
        if (cell.trim() !== '') empty = false;
        if (!columns.includes(name)) columns.push(name);
        return cell;
      });
      return { value: text, templated: true, allEmpty: empty, sources: [['', columns]] };
    }
    if (Array.isArray(value)) {
      const items = (value as unknown[]).map((item, i) => ({ item, r: render(item, [...path, i]) }));
      const isObject = (item: unknown) => item !== null && typeof item === 'object';
      // An object whose placeholders all came out empty (a second signer this row has not) is left
      // out, but only beside one the row did fill: a row that fills none keeps them, and
      // validation names what is missing rather than the envelope going to the fixed signers alone.
      const rowFilledOne = items.some(({ item, r }) => isObject(item) && r.templated && !r.allEmpty);
      const kept = items.filter(
        ({ item, r }) =>
          r.value !== LEFT_OUT && !(rowFilledOne && isObject(item) && r.templated && r.allEmpty),
      );
      const keptSources = kept.flatMap(({ r }, index) =>
        r.sources.map(([p, c]): [string, string[]] => [under(index, p), c]),
      );
      return {
        value: kept.map(({ r }) => r.value),
        templated: items.some(({ r }) => r.templated),
        allEmpty: false,
        sources: keptSources,
      };
    }
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      let templated = false;
      let allEmpty = true;
      const found: [string, string[]][] = [];
      for (const [key, item] of Object.entries(value)) {
        const r = render(item, [...path, key]);
        if (r.templated) templated = true;
        if (!r.allEmpty && r.templated) allEmpty = false;
        if (r.value !== LEFT_OUT) {
          out[key] = r.value;
          for (const [p, c] of r.sources) found.push([under(key, p), c]);
        }
      }
      return { value: out, templated, allEmpty: templated && allEmpty, sources: found };
    }
    return { value, templated: false, allEmpty: false, sources: [] };
  };
  const rendered = render(template, []);
  if (sources) for (const [path, columns] of rendered.sources) sources.set(path, columns);
  return rendered.value === LEFT_OUT ? undefined : rendered.value;
}
