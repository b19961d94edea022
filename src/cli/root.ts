/**
 * The program without its commands: its words (help's first screen), the
 * global options, where commander writes, and what every command inherits
 * once the tree is complete. main.ts adds the nouns a command line needs;
 * program.ts adds them all (the reference, completion, tests).
 */
import { Command, Option } from 'commander';
import { VERSION } from '../core/version.js';
import type { RunState } from './action.js';
import { document, type CommandDoc } from './help/command-doc.js';
import { completes, PROFILES } from './completion/hints.js';
import { allCommands, finishHelp } from './help/help.js';
import { suggestChoices } from './flags/choices.js';

export const doc: CommandDoc = {
  summary:
    'Create signature envelopes, inspect API keys, and verify webhooks; with a local sandbox of the service.',
  more: [
    'Data goes to stdout; progress, warnings and errors to stderr. Exit codes: 0 success, 1 the operation failed, 2 usage error or invalid input (nothing sent), 3 authentication or authorisation, 130 interrupted (`sign-cli help exit-codes`).',
  ],
  examples: [
    'sign-cli sandbox --detach                        # a local service, no account needed',
    'sign-cli envelopes sample > envelope.json        # a valid envelope to start from',
    'sign-cli envelopes create -f envelope.json',
    'sign-cli keys list --local --json',
    'sign-cli help envelopes create                   # help for one command',
  ],
};

/** The program: its words and global options, no command yet. */
export function rootProgram(state: RunState): Command {
  return (
    document(new Command('sign-cli'), doc)
      .version(VERSION, '-V, --version')
      .option(
        '--base-url <url>',
        'service base URL (env SIGN_BASE_URL; default http://127.0.0.1:4010, the local sandbox)',
      )
      .option('--api-key-file <path>', 'read the API key from this file (env SIGN_API_KEY takes precedence)')
      .addOption(new Option('--api-key <key>').hideHelp())
      .addOption(
        completes(new Option('--profile <name>', 'use this stored profile (env SIGN_PROFILE)'), PROFILES),
      )
      .option('--json', 'print machine-readable JSON on stdout')
      .option(
        '--query <jmespath>',
        'print only this part of the JSON output, e.g. envelope.id (JMESPath; implies --json)',
      )
      .option('--raw', 'with --query, print a string result without quotes, like jq -r (default: on)')
      .option('--no-raw', 'with --query, print a string result as JSON, in quotes')
      .option('-v, --verbose', 'trace requests and responses on stderr (API key masked)')
      .option('--no-color', 'no colour, even on a terminal (also NO_COLOR)')
      .option('--no-input', 'never prompt; missing values are errors (also CI)')
      .option('--retries <n>', 'retries for failed requests (env SIGN_RETRIES; default 5)')
      .option('--timeout <seconds>', 'per-request timeout (env SIGN_TIMEOUT; default 30)')
      .option(
        '--rate-store <redis-url>',
        'share the rate limit with every run using the same key, through Redis (env SIGN_RATE_STORE)',
      )
      .showSuggestionAfterError()
      // Help and commander's own messages go to the command's IO; what commander echoes of unknown
      // options and arguments is escaped like everything else shown.
      .configureOutput({
        writeOut: (text) => state.io.stdout.write(text),
        writeErr: (text) => state.io.stderr.write(text),
        // Kept, not written: main.ts shows it through the output, which masks a key typed on the line.
        outputError: (text) => {
          state.commanderError = (state.commanderError ?? '') + text;
        },
        getOutHelpWidth: () => state.io.stdout.columns ?? 80,
        getErrHelpWidth: () => state.io.stderr.columns ?? 80,
        getOutHasColors: () => false,
        getErrHasColors: () => false,
      })
      .exitOverride()
  );
}

/** Help at every depth and exit handling: call once, after the last command is added. */
export function finishProgram(program: Command): Command {
  // Global options in every command's help, `help <command...>` at any depth, one style for defaults.
  finishHelp(program);
  // Every command inherits exit handling so usage errors anywhere map to exit 2.
  for (const command of allCommands(program)) command.exitOverride();
  // A value outside an option's choices gets a "did you mean", as every other choice does.
  suggestChoices(program);
  return program;
}
