/**
 * The command tree. The CLI builds the part a command line needs
 * (`programFor`): the program and the noun the line names (`keys` for
 * `sign-cli keys list`) with its commands; where the other nouns' help lines may
 * be shown (the program's help, `help`, a misspelt noun, completion), each of them
 * as a stand-in with its help line only (src/cli/help/command-index.ts, generated). A noun's code
 * loads only when it is used: `sign-cli --help` and `sign-cli keys list` load
 * none of the envelope commands (start-up). Within `envelopes`, the command the
 * line names is the only one registered (command-group.ts): `envelopes validate`
 * loads none of verify's or download's code. The whole tree (`buildProgram`)
 * is what the generated reference, completion scripts and the tests read.
 */
import type { Command } from 'commander';
import { makeAction, type RunState } from './action.js';
import type { RegisterTopLevel } from './command-group.js';
import { COMMAND_INDEX } from './help/command-index.js';
import { addStandIn } from './help/help.js';
import { finishProgram, rootProgram } from './root.js';

/**
 * Each noun's registration, in help's order, imported when it is needed: the one list of the
 * nouns. A noun made of lazily loaded commands (command-group.ts) is told the command the line
 * names in it (undefined: none, or the line names another noun).
 */
const NOUNS: Record<string, (named: string | undefined) => Promise<RegisterTopLevel>> = {
  envelopes: async (named) => (await import('./commands/envelopes/envelopes.js')).envelopesFor(named),
  webhooks: async () => (await import('./commands/webhooks/webhooks.js')).registerWebhooks,
  keys: async () => (await import('./commands/keys/keys.js')).registerKeys,
  config: async () => (await import('./commands/config/config.js')).registerConfig,
  journal: async () => (await import('./commands/journal/journal.js')).registerJournal,
  doctor: async () => (await import('./commands/doctor/doctor.js')).registerDoctor,
  sandbox: async () => (await import('./commands/sandbox/sandbox.js')).registerSandbox,
  api: async () => (await import('./commands/api/api.js')).registerApi,
  mcp: async () => (await import('./commands/mcp/mcp.js')).registerMcp,
  // `completion` and the hidden `__complete` are registered together.
  completion: async () => (await import('./commands/completion/completion.js')).registerCompletion,
};
/** The noun that registers each top-level command (only `__complete` is not its own). */
const registeredBy = (name: string): string | undefined =>
  name === '__complete' ? 'completion' : name in NOUNS ? name : undefined;

/**
 * The first `count` words of a command line that are not options or the values of the program's
 * options (the global options that take one are the program's).
 */
function commandWords(program: Command, argv: readonly string[], count: number): string[] {
  const valued = new Set(
    program.options
      .filter((o) => o.required || o.optional)
      .flatMap((o) => [o.long, o.short])
      .filter((f): f is string => Boolean(f)),
  );
  const words: string[] = [];
  for (let i = 0; i < argv.length && words.length < count; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg.startsWith('-')) {
      if (valued.has(arg)) i++;
      continue;
    }
    words.push(arg);
  }
  return words;
}

/**
 * The top-level command a command line names: its first word that is not an option or an
 * option's value; after `help`, the word that follows too. None for the program's own help and
 * for `--version`.
 */
export function namedCommands(program: Command, argv: readonly string[]): string[] {
  const words = commandWords(program, argv, 2);
  return words[0] === 'help' ? words : words.slice(0, 1);
}

/**
 * The word after the top-level command's (`validate` in `envelopes validate x.json` and in
 * `help envelopes validate`): the command it names within a group, if it is one of the group's.
 */
export function namedSubcommand(program: Command, argv: readonly string[]): string | undefined {
  const words = commandWords(program, argv, 3);
  return words[0] === 'help' ? words[2] : words[1];
}

/**
 * The program for `state.argv`: the nouns it names registered whole; the others as stand-ins when
 * their help lines may be shown (the program's help, `help`, a word that is no noun's, completion),
 * and not at all when the line runs a noun's command (`keys list`: nothing of the other nouns is
 * read, shown or suggested there, so their help lines are not registered for nothing).
 */
export async function programFor(state: RunState): Promise<Command> {
  const action = makeAction(state);
  const program = rootProgram(state);
  const named = namedCommands(program, state.argv);
  const subcommand = namedSubcommand(program, state.argv);
  // Completion scripts are written from the whole tree.
  const wanted = new Set(
    named.includes('completion')
      ? Object.keys(NOUNS)
      : named.map(registeredBy).filter((n): n is string => n !== undefined),
  );
  const loaded = new Map(
    await Promise.all(
      [...wanted].map(
        async (noun) => [noun, await NOUNS[noun]!(noun === named.at(-1) ? subcommand : undefined)] as const,
      ),
    ),
  );
  const alone = named.length === 1 && loaded.size === 1 && !loaded.has('completion');
  for (const entry of COMMAND_INDEX) {
    const noun = registeredBy(entry.name);
    if (noun && loaded.has(noun)) {
      // Registered once, with its companions (completion brings __complete).
      if (noun === entry.name) loaded.get(noun)!(program, action);
    } else if (!alone) addStandIn(program, entry);
  }
  return finishProgram(program);
}

/** The whole tree: every noun registered. */
export async function buildProgram(state: RunState): Promise<Command> {
  const action = makeAction(state);
  const program = rootProgram(state);
  for (const load of Object.values(NOUNS)) (await load(undefined))(program, action);
  return finishProgram(program);
}
