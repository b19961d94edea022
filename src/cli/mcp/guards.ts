/**
 * What an assistant may not do, whatever it is told: touch a file outside the
 * directory the server was given, or act in live without the person's leave
 * (`--allow-live`). Each refusal is a tool error saying why and how.
 */
import { lstat, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

export class Refusal extends Error {}

const inside = (root: string, path: string): boolean => {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
};

/**
 * A path an assistant named, as a real path under `root`: relative to it (or
 * absolute inside it), no `..` out of it, and no link anywhere on the way
 * that leads out, and not a directory. `forWriting`: the file itself may
 * not exist yet, and may not be a link.
 */
export async function pathUnderRoot(root: string, given: string, forWriting: boolean): Promise<string> {
  if (given.trim() === '' || given.includes('\0')) throw new Refusal('the path is empty or not a path');
  const realRoot = await realpath(root);
  const wanted = resolve(realRoot, given);
  if (!inside(realRoot, wanted))
    throw new Refusal(
      `${given} is outside the directory this server may use (${realRoot}); use a path inside it`,
    );
  const stat = await lstat(wanted).catch(() => undefined);
  if (stat?.isSymbolicLink())
    throw new Refusal(`${given} is a symbolic link; links are not followed, give the file itself`);
  if (!stat && !forWriting) throw new Refusal(`${given} does not exist in ${realRoot}`);
  // Every file a tool reads is one file (a PDF, a PEM): `envelopes verify <dir>` would verify a whole folder.
  if (stat?.isDirectory()) throw new Refusal(`${given} is a directory; give a file in it`);
  const parent = await realpath(dirname(wanted)).catch(() => undefined);
  if (parent === undefined) throw new Refusal(`${given}: its directory does not exist in ${realRoot}`);
  const real = join(parent, basename(wanted));
  if (!inside(realRoot, real))
    throw new Refusal(
      `${given} leads outside the directory this server may use (${realRoot}), through a link`,
    );
  // A download is written to `<file>.part` first: a link there would carry it out of the root.
  if (forWriting && (await lstat(`${real}.part`).catch(() => undefined))?.isSymbolicLink())
    throw new Refusal(`${given}.part is a symbolic link; remove it first`);
  return real;
}

/** The refusal of a live write without `--allow-live`. */
export function liveRefusal(what: string, key: string, environment: string | null): Refusal {
  const kind =
    environment === 'live'
      ? 'a live key'
      : `a key that is not a test key (environment ${environment ?? 'unknown'})`;
  return new Refusal(
    `refused: ${what} with ${kind} (${key}) acts on real envelopes and real people; the person running this server can allow it by starting it with \`sign-cli mcp --allow-live\``,
  );
}
