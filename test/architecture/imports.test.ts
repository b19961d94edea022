/**
 * The layers as the imports draw them (docs/architecture.md): the core imports nothing of the
 * CLI, the sandbox or the listener; the sandbox and the listener nothing of the CLI; no file
 * reaches itself through its imports (type imports included: a circle of types is still two
 * files that cannot be read apart); the rooms of src/cli import each other without a circle;
 * and src/cli keeps few loose files beside its rooms.
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

/** src/cli's room of a file: its folder under src/cli (commands/<noun> counts as commands), or the file. */
const room = (file: string): string => {
  const parts = file.split('/');
  return parts.length > 2 ? parts[1]! : file;
};

describe('the layers, as the imports draw them', () => {
  const graph = importGraph();

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

  it('has no circle of imports between files', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('has no circle between the rooms of src/cli (commands, render, config, input, …)', () => {
    const rooms = new Map<string, string[]>();
    for (const [file, targets] of graph) {
      if (!file.startsWith('cli/')) continue;
      const from = room(file);
      const to = targets
        .filter((t) => t.startsWith('cli/'))
        .map(room)
        .filter((r) => r !== from);
      rooms.set(from, [...new Set([...(rooms.get(from) ?? []), ...to])]);
    }
    expect(circles(rooms)).toEqual([]);
  });

  it('keeps at most ten loose files in src/cli beside its rooms', () => {
    const loose = readdirSync(join(SRC, 'cli')).filter((name) => name.endsWith('.ts'));
    expect(loose.length).toBeLessThanOrEqual(10);
  });
});
