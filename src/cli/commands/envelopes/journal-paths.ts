/**
 * Where `envelopes create` keeps its journals (core/journal/journal.ts): one per command, service and
 * environment, under the state directory unless `--journal` names the file.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { checkStateSubdirectory } from '../../../core/journal/ownership.js';
import { serviceIdentity } from '../../../core/service-identity.js';
import type { CommandContext } from '../../context.js';

/** The names in a directory, or none when it cannot be read (it does not exist yet). */
function readdirOrEmpty(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** `$SIGN_STATE_DIR`, else `$XDG_STATE_HOME/sign-cli`, else `~/.local/state/sign-cli`. */
export function stateDir(env: NodeJS.ProcessEnv): string {
  return env.SIGN_STATE_DIR || join(env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'sign-cli');
}

/** Whether a journal may exist for `options` (no hashing, no module loaded): a first run on a machine has none. */
export function mayHaveJournals(env: NodeJS.ProcessEnv, options: { journal?: string }): boolean {
  return options.journal !== undefined
    ? existsSync(options.journal)
    : readdirOrEmpty(join(stateDir(env), 'journals')).length > 0;
}

/**
 * The journal of this command for this service and environment: a test run
 * and a live run of the same files keep separate journals, and any spelling
 * of the base URL finds the same one. `legacy`: where a version that kept one
 * journal per base URL (all environments) put it; read, never written. It prepares them too:
 * the state directory checked (ownership.ts), old journals pruned (`pruneJournals`).
 */
export function prepareJournalPaths(
  ctx: CommandContext,
  options: { journal?: string },
  identity: string,
  baseUrl: string,
  environment: string | null,
  pruneJournals: (dir: string, now: number) => void,
): { path: string; legacy?: string } {
  if (options.journal) return { path: options.journal };
  const name = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 24);
  const root = stateDir(ctx.env);
  const dir = join(root, 'journals');
  // Before anything in it is pruned, read or written: another user must not be able to choose where journals go.
  checkStateSubdirectory(root, 'journals');
  pruneJournals(dir, ctx.io.clock.now());
  return {
    path: join(
      dir,
      `create-${name(`${serviceIdentity(baseUrl)}\n${environment ?? '?'}\n${identity}`)}.jsonl`,
    ),
    legacy: join(dir, `create-${name(`${baseUrl}\n${identity}`)}.jsonl`),
  };
}
