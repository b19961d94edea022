/**
 * The sign-cli program: global options, the command tree, and the mapping
 * of every outcome to an exit code (DESIGN.md §2).
 */
import { setMaxListeners } from 'node:events';
import { Command, CommanderError, Option } from 'commander';
import { ExitCode, exitCodeOf } from '../core/errors.js';
import { stuckKeychainCalls } from './keychain.js';
import { escapeControl } from '../core/text.js';
import { VERSION } from '../core/version.js';
import { Output } from './output.js';
import { systemIo, type Io } from './io.js';
import { makeAction, type RunState } from './action.js';
import { registerEnvelopes } from './commands/envelopes/envelopes.js';
import { registerWebhooks } from './commands/webhooks/webhooks.js';
import { registerKeys } from './commands/keys/keys.js';
import { registerConfig } from './commands/config/config.js';
import { registerDoctor } from './commands/doctor/doctor.js';
import { registerSandbox } from './commands/sandbox/sandbox.js';
import { registerCompletion } from './commands/completion/completion.js';
import { registerApi } from './commands/api/api.js';
import { document, type CommandDoc } from './command-doc.js';
import { completes, PROFILES } from './completion-hints.js';
import { allCommands, finishHelp } from './help.js';

export const doc: CommandDoc = {
  summary: 'Create signature envelopes, inspect API keys, and verify webhooks; with a local sandbox of the service.',
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

export function buildProgram(state: RunState): Command {
  const action = makeAction(state);
  const program = document(new Command('sign-cli'), doc)
    .version(VERSION, '-V, --version')
    .option('--base-url <url>', 'service base URL (env SIGN_BASE_URL; default http://127.0.0.1:4010, the local sandbox)')
    .option('--api-key-file <path>', 'read the API key from this file (env SIGN_API_KEY takes precedence)')
    .addOption(new Option('--api-key <key>').hideHelp())
    .addOption(completes(new Option('--profile <name>', 'use this stored profile (env SIGN_PROFILE)'), PROFILES))
    .option('--json', 'print machine-readable JSON on stdout')
    .option('--query <jmespath>', 'print only this part of the JSON output, e.g. envelope.id (JMESPath; implies --json)')
    .option('--raw', 'with --query, print a string result without quotes, like jq -r (default: on)')
    .option('--no-raw', 'with --query, print a string result as JSON, in quotes')
    .option('-v, --verbose', 'trace requests and responses on stderr (API key masked)')
    .option('--no-color', 'no colour, even on a terminal (also NO_COLOR)')
    .option('--no-input', 'never prompt; missing values are errors (also CI)')
    .option('--retries <n>', 'retries for failed requests (env SIGN_RETRIES; default 5)')
    .option('--timeout <seconds>', 'per-request timeout (env SIGN_TIMEOUT; default 30)')
    .option('--rate-store <redis-url>', 'share the rate limit with every run using the same key, through Redis (env SIGN_RATE_STORE)')
    .showSuggestionAfterError()
    // Help and commander's own messages go to the command's IO; what commander echoes of unknown
    // options and arguments is escaped like everything else shown.
    .configureOutput({
      writeOut: (text) => state.io.stdout.write(text),
      writeErr: (text) => state.io.stderr.write(text),
      outputError: (text, write) => write(escapeControl(text)),
      getOutHelpWidth: () => state.io.stdout.columns ?? 80,
      getErrHelpWidth: () => state.io.stderr.columns ?? 80,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .exitOverride();

  registerEnvelopes(program, action);
  registerWebhooks(program, action);
  registerKeys(program, action);
  registerConfig(program, action);
  registerDoctor(program, action);
  registerSandbox(program, action);
  registerApi(program, action);
  registerCompletion(program, action);

  // Global options in every command's help, `help <command...>` at any depth, one style for defaults.
  finishHelp(program);
  // Every command inherits exit handling so usage errors anywhere map to exit 2.
  for (const command of allCommands(program)) command.exitOverride();
  return program;
}

/**
 * Runs the CLI with its IO and its stop signal; resolves to the exit code.
 * No process globals: tests run it in process with in-memory streams.
 */
export async function main(argv: string[], io: Io = systemIo(), signal: AbortSignal = new AbortController().signal): Promise<number> {
  // Every request waiting for a pacer slot listens to it: a bulk create has many at once.
  setMaxListeners(0, signal);
  const state: RunState = { signal, io, argv: argv.slice(2), exitCode: ExitCode.ok };
  // Seen by runProcess's signal handler while the command runs: a serving command ends quietly.
  currentRun = state;
  const program = buildProgram(state);
  try {
    await program.parseAsync(argv);
    return state.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') {
        return ExitCode.ok;
      }
      // commander already printed its one-line message.
      return error.code === 'commander.executeSubCommandAsync' ? ExitCode.failed : ExitCode.usage;
    }
    const output = state.context?.output ?? new Output({ json: false, verbose: argv.includes('--verbose'), color: !argv.includes('--no-color'), stdout: io.stdout, stderr: io.stderr, env: io.env });
    output.error(error);
    return exitCodeOf(error);
  }
}

/** The run in progress (a serving command knows a signal is its normal end). */
let currentRun: RunState | undefined;

/**
 * The CLI as a process (bin/sign-cli.js): signals stop it, a closed pipe ends
 * it quietly. Ctrl-C, a CI timeout's SIGTERM and a closed terminal's (or
 * dropped SSH session's) SIGHUP all mean "stop": nothing new is sent, what is
 * in flight gets at most its --timeout, then a summary; a second one quits at once.
 */
export async function runProcess(argv: string[]): Promise<number> {
  const controller = new AbortController();
  let interrupts = 0;
  let exitCode: number = ExitCode.ok;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts++;
    if (interrupts > 1) process.exit(ExitCode.interrupted);
    if (signal === 'SIGINT' && !currentRun?.context?.serving) process.stderr.write('\ninterrupting… (Ctrl-C again to force)\n');
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  // `sign-cli ... | head` closes stdout early; that is not an error worth a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(exitCode);
  });
  // A terminal that went away (SIGHUP) fails every write with EIO: the run still finishes and
  // journals what it sent; there is nobody left to tell.
  process.stderr.on('error', () => {});
  try {
    exitCode = await main(argv, systemIo(), controller.signal);
    // A keychain call the binding could not stop would hold the process open: its bound has passed, so leave.
    if (stuckKeychainCalls() > 0) {
      await Promise.all([process.stdout, process.stderr].map((stream) => new Promise((resolve) => stream.write('', resolve))));
      process.exit(exitCode);
    }
    return exitCode;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
  }
}
