/**
 * The layers as the imports draw them (docs/architecture.md): the core imports nothing of the
 * CLI, the sandbox or the listener; the sandbox and the listener nothing of the CLI nor of each
 * other; no file
 * reaches itself through its imports (type imports included: a circle of types is still two
 * files that cannot be read apart); the rooms of src/cli, src/core and src/sandbox import each
 * other without a circle, and the rooms of src/core and src/sandbox only as the tables of
 * docs/architecture.md allow; and each of the three keeps few loose files beside its rooms.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SRC = join(ROOT, 'src');
const IMPORT_RE = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/** Each file of src/ (relative to src/) with the files of src/ it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(IMPORT_RE)].map((m) =>
      relative(SRC, resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts'))),
    );
    graph.set(relative(SRC, file), [...new Set(targets)]);
  }
  return graph;
}

/** The circles of a graph: each strongly connected set of two or more nodes (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const on = new Set<string>();
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    indices.set(node, index);
    low.set(node, index++);
    stack.push(node);
    on.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (on.has(next)) low.set(node, Math.min(low.get(node)!, indices.get(next)!));
    }
    if (low.get(node) === indices.get(node)) {
      const set: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        on.delete(member);
        set.push(member);
      } while (member !== node);
      if (set.length > 1) found.push(set.sort());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return found;
}

/** A file's room in its layer: its folder under src/<layer> (commands/<noun> counts as commands), or the file. */
const room = (file: string): string => {
  const parts = file.split('/');
  return parts.length > 2 ? `${parts[1]!}/` : parts[1]!;
};

/** The rooms of one layer and the rooms each imports (its own files' imports aside). */
function roomGraph(graph: Map<string, string[]>, layer: string): Map<string, string[]> {
  const rooms = new Map<string, string[]>();
  for (const [file, targets] of graph) {
    if (!file.startsWith(`${layer}/`)) continue;
    const from = room(file);
    const to = targets
      .filter((t) => t.startsWith(`${layer}/`))
      .map(room)
      .filter((r) => r !== from);
    rooms.set(from, [...new Set([...(rooms.get(from) ?? []), ...to])]);
  }
  return rooms;
}

/** What a room of the table may import: the rooms named, or every room (the top). */
type Allowance = Set<string> | 'every room';

/**
 * The table of src/<layer>'s rooms in docs/architecture.md (its section `### src/<layer>`): each
 * room or loose file named in a row's first cell, with the rooms named in its last cell.
 */
function allowedImports(layer: string): Map<string, Allowance> {
  const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const section = doc.split(`### src/${layer}\n`)[1]?.split(/\n#{2,3} /)[0] ?? '';
  const table = new Map<string, Allowance>();
  for (const row of section.split('\n').filter((line) => /^\| `/.test(line))) {
    const cells = row.split(' | ');
    const named = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    const last = cells.at(-1)!.replace(/\s*\|$/, '');
    const allowance: Allowance = last === 'every room' ? 'every room' : new Set(named(last));
    for (const name of named(cells[0]!)) table.set(name, allowance);
  }
  return table;
}

const LOOSE_LIMIT = 10;
const graph = importGraph();

describe('the layers, as the imports draw them', () => {
  it('lets the core import nothing of the CLI, the sandbox or the listener', () => {
    const upward = [...graph].flatMap(([file, targets]) =>
      file.startsWith('core/')
        ? targets.filter((t) => !t.startsWith('core/')).map((t) => `${file} -> ${t}`)
        : [],
    );
    expect(upward).toEqual([]);
  });

  it('lets the sandbox and the listener import nothing of the CLI', () => {
    const upward = [...graph].flatMap(([file, targets]) =>
      /^(sandbox|listener)\//.test(file)
        ? targets.filter((t) => t.startsWith('cli/')).map((t) => `${file} -> ${t}`)
        : [],
    );
    expect(upward).toEqual([]);
  });

  it('lets the sandbox and the listener import nothing of each other (what their pages share is in src/core/web)', () => {
    const across = [...graph].flatMap(([file, targets]) => {
      const other = file.startsWith('sandbox/')
        ? 'listener/'
        : file.startsWith('listener/')
          ? 'sandbox/'
          : '';
      return other ? targets.filter((t) => t.startsWith(other)).map((t) => `${file} -> ${t}`) : [];
    });
    expect(across).toEqual([]);
  });

  it('has no circle of imports between files', () => {
    expect(circles(graph)).toEqual([]);
  });

  it.each(['cli', 'core', 'sandbox'])('has no circle between the rooms of src/%s', (layer) => {
    expect(circles(roomGraph(graph, layer))).toEqual([]);
  });

  it.each(['cli', 'core', 'sandbox'])('keeps at most ten loose files in src/%s beside its rooms', (layer) => {
    const loose = readdirSync(join(SRC, layer)).filter((name) => name.endsWith('.ts'));
    expect(loose.length).toBeLessThanOrEqual(LOOSE_LIMIT);
  });
});

describe.each(['core', 'sandbox'])('the rooms of src/%s, as docs/architecture.md allows them', (layer) => {
  const rooms = roomGraph(graph, layer);
  const table = allowedImports(layer);
  const shared = (name: string) => name.endsWith('.ts') && table.get(name) !== 'every room';

  it('names every room and loose file of the layer in the table, and nothing else', () => {
    const onDisk = readdirSync(join(SRC, layer)).map((name) =>
      statSync(join(SRC, layer, name)).isDirectory() ? `${name}/` : name,
    );
    expect([...table.keys()].sort()).toEqual(onDisk.filter((name) => !name.endsWith('.md')).sort());
  });

  it('has each room import only the rooms its row names, and the shared loose files', () => {
    const stray = [...rooms].flatMap(([from, targets]) => {
      const allowance = table.get(from);
      return targets
        .filter((to) => !(allowance === 'every room' || allowance?.has(to) || shared(to)))
        .map((to) => `${from} -> ${to}`);
    });
    expect(stray).toEqual([]);
  });

  it('keeps no allowance that no import uses', () => {
    const unused = [...table].flatMap(([from, allowance]) =>
      allowance === 'every room'
        ? []
        : [...allowance].filter((to) => !rooms.get(from)?.includes(to)).map((to) => `${from} -> ${to}`),
    );
    expect(unused).toEqual([]);
  });

  it('has no circle in the table', () => {
    const allowed = new Map(
      [...table].map(([from, allowance]) => [from, allowance === 'every room' ? [] : [...allowance]]),
    );
    expect(circles(allowed)).toEqual([]);
  });
});
