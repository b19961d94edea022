/**
 * `sign-cli completion bash|zsh|fish`: shell completion generated from the
 * command tree itself (commands, options, arguments, and the hints of
 * completion/hints.ts), so it never drifts from the commands. The same scripts
 * are committed under completions/ (`npm run completions` rewrites them).
 *
 * Values that live in the user's config (profile names) are not written into
 * the script: it runs `sign-cli __complete profiles` when Tab is pressed
 * (hidden; one name a line; nothing at all on any error).
 */
import { existsSync } from 'node:fs';
import { Argument, type Command } from 'commander';
import { ExitCode } from '../../exit-codes.js';
import { DYNAMIC_SOURCES, type DynamicSource } from '../../completion/hints.js';
import { SHELLS } from '../../completion/shells.js';

/** The shells a script is written for (completion/scripts.ts writes them). */
import type { Action } from '../../action.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import type { CommandContext } from '../../context.js';

/** What `sign-cli __complete <source>` prints: names only, nothing on any error. */
async function dynamicCandidates(source: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  if (!(DYNAMIC_SOURCES as readonly string[]).includes(source)) return [];
  switch (source as DynamicSource) {
    case 'profiles': {
      // Opening the config makes a missing config dir (as conf does): a Tab must not.
      const dir = env.SIGN_CONFIG_DIR;
      if (dir && !existsSync(dir)) return [];
      const [{ ConfigFile }, { PROFILE_NAME_RE }] = await Promise.all([
        import('../../config/config-file.js'),
        import('../../config/profiles.js'),
      ]);
      const profiles = ConfigFile.open(env).store.profiles ?? {};
      return Object.keys(profiles)
        .filter((name) => PROFILE_NAME_RE.test(name))
        .sort();
    }
  }
}

export const doc: CommandDoc = {
  summary: 'print a shell completion script',
  details: [
    'Generated from the command tree: commands, options, flag choices, and values that depend on your setup: `keys use <TAB>`, `keys remove <TAB>` and `--profile <TAB>` offer your profile names (read when Tab is pressed), `webhooks trigger <TAB>` the event types, `config get|set|unset <TAB>` the setting names. zsh and fish show a description beside each candidate. The same scripts are in completions/ (`npm run completions` rewrites them).',
  ],
  more: [
    "bash needs the bash-completion package (loaded by the default ~/.bashrc); without it, `echo 'source <(sign-cli completion bash)' >> ~/.bashrc`. zsh needs the directory on fpath, in ~/.zshrc before compinit: `fpath=(~/.zsh/completions $fpath); autoload -U compinit && compinit`.",
  ],
  examples: [
    'mkdir -p ~/.local/share/bash-completion/completions && sign-cli completion bash > ~/.local/share/bash-completion/completions/sign-cli',
    'mkdir -p ~/.zsh/completions && sign-cli completion zsh > ~/.zsh/completions/_sign-cli',
    'mkdir -p ~/.config/fish/completions && sign-cli completion fish > ~/.config/fish/completions/sign-cli.fish',
  ],
};

export function registerCompletion(program: Command, action: Action): void {
  defineCommand(program, 'completion', doc)
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .action(action(completionCommand));

  program
    .command('__complete', { hidden: true })
    .description('list names for shell completion')
    .argument('[source]')
    .allowExcessArguments()
    .action(action(completeCommand));
}

export async function completionCommand(
  ctx: CommandContext,
  _flags: unknown,
  [shell]: string[],
): Promise<number> {
  // The script writers load only here: no other command pays for parsing them at start-up.
  const { completionScript } = await import('../../completion/scripts.js');
  let root: Command = ctx.command!;
  while (root.parent) root = root.parent;
  ctx.io.stdout.write(completionScript(root, shell as (typeof SHELLS)[number]));
  return ExitCode.ok;
}

/** `sign-cli __complete <source>`: one name a line, and nothing at all on any error. */
export async function completeCommand(
  ctx: CommandContext,
  _flags: unknown,
  [source]: string[],
): Promise<number> {
  try {
    const names = await dynamicCandidates(source ?? '', ctx.env);
    if (names.length) ctx.io.stdout.write(`${names.join('\n')}\n`);
  } catch {
    // Completion must never print an error into the user's command line.
  }
  return ExitCode.ok;
}
