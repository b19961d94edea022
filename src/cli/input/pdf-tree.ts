/**
 * The PDFs an archive run of `envelopes verify <file|dir>...` reads: each argument in the order
 * given; a directory walked to every `*.pdf` in it and below it (any case of the extension), in
 * the order of their names, so that two runs list the same files the same way.
 *
 * Links: an argument is followed wherever it leads (the person named it). Inside a directory, a
 * link to a PDF is followed only when what it names is a regular file inside that same directory
 * (by real paths); a link that leads out of it is skipped and counted, never read, so that
 * verifying a folder never reads what lies outside it. A link to a directory is never descended
 * (no loop; a directory inside is walked where it really is). A link to nothing, or a `*.pdf` that
 * is not a regular file (a named pipe, a socket, a device), is listed with why it cannot be read,
 * and never opened: a named pipe in a folder would hold the run.
 *
 * What is held per file is its path (and, for one that cannot be read, a line saying why).
 */
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { join, relative, isAbsolute, sep } from 'node:path';
import { InterruptedError } from '../../core/errors.js';

/** A file to verify: its path as found, or why it cannot be read without opening it. */
export interface PdfEntry {
  path: string;
  unreadable?: string;
}

export interface PdfTree {
  entries: PdfEntry[];
  /** Links inside a directory given that lead out of it, skipped. */
  linksOut: string[];
}

const PDF = /\.pdf$/i;

const inside = (root: string, path: string): boolean => {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
};

/** What a file that is neither a file nor a directory is, for a person. */
function kindOf(stats: { isFIFO(): boolean; isSocket(): boolean }): string {
  if (stats.isFIFO()) return 'a named pipe';
  if (stats.isSocket()) return 'a socket';
  return 'a device';
}

const code = (error: unknown) => (error as NodeJS.ErrnoException).code ?? (error as Error).message;

/**
 * The files of every argument. An argument that does not exist is kept (its read says so); a
 * directory that cannot be listed is an entry that cannot be read. Stops with InterruptedError
 * once `signal` is aborted.
 */
export async function pdfTree(args: readonly string[], signal: AbortSignal): Promise<PdfTree> {
  const tree: PdfTree = { entries: [], linksOut: [] };
  for (const arg of args) {
    const stats = await stat(arg).catch(() => undefined);
    if (!stats?.isDirectory()) {
      tree.entries.push({ path: arg });
      continue;
    }
    const root = await realpath(arg).catch(() => undefined);
    if (root === undefined) {
      tree.entries.push({ path: arg, unreadable: `the directory ${arg}: its real path cannot be read` });
      continue;
    }
    await walk(arg, root, tree, signal);
  }
  return tree;
}

async function walk(dir: string, root: string, tree: PdfTree, signal: AbortSignal): Promise<void> {
  if (signal.aborted) throw new InterruptedError('interrupted while looking for PDFs', { sent: false });
  let names;
  try {
    names = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    tree.entries.push({
      path: dir,
      unreadable: `the directory ${dir}: it cannot be listed (${code(error)})`,
    });
    return;
  }
  // By name, in code-unit order: the same order on every machine and locale.
  names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const dirent of names) {
    const path = join(dir, dirent.name);
    if (dirent.isDirectory()) {
      await walk(path, root, tree, signal);
      continue;
    }
    if (dirent.isSymbolicLink()) {
      await followLink(path, root, tree);
      continue;
    }
    if (!PDF.test(dirent.name)) continue;
    if (dirent.isFile()) tree.entries.push({ path });
    else
      tree.entries.push({
        path,
        unreadable: `the file ${path}: ${kindOf(await lstat(path))}, not a regular file: not read`,
      });
  }
}

/** A link inside a directory walked: a PDF it names inside that directory, else skipped or unreadable. */
async function followLink(path: string, root: string, tree: PdfTree): Promise<void> {
  const target = await realpath(path).catch(() => undefined);
  if (target === undefined) {
    if (PDF.test(path)) tree.entries.push({ path, unreadable: `the file ${path}: a link to nothing` });
    return;
  }
  const stats = await stat(target).catch(() => undefined);
  const isDirectory = stats?.isDirectory() === true;
  if (!isDirectory && !PDF.test(path)) return;
  if (!inside(root, target)) {
    tree.linksOut.push(path);
    return;
  }
  // A directory inside is walked where it is; followed here too, it could loop.
  if (isDirectory || stats === undefined) return;
  if (stats.isFile()) tree.entries.push({ path });
  else
    tree.entries.push({
      path,
      unreadable: `the file ${path}: a link to ${kindOf(stats)}, not a regular file: not read`,
    });
}
