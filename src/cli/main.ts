/**
 * The sign-cli program as a process: the command tree a command line needs,
 * and the mapping of every outcome to an exit code (docs/commands/exit-codes.md).
 */
import { typedSecrets } from './flags/typed-secrets.js';
import { setMaxListeners } from 'node:events';
import { CommanderError } from 'commander';
import { ExitCode, exitCodeOf } from './exit-codes.js';
import { systemIo, type Io } from './process/io.js';
import { type RunState } from './action.js';
import { programFor } from './program.js';
import { usageOf } from './help/help.js';

export { doc } from './root.js';

/**
 * Runs the CLI with its IO and its stop signal; resolves to the exit code.
 * No process globals: tests run it in process with in-memory streams.
 */
export async function main(
  argv: string[],
  io: Io = systemIo(),
  signal?: AbortSignal | (() => AbortSignal),
): Promise<number> {
  // The stop signal is made when a command first needs it: help and usage errors never do
  // (an AbortController loads Node's abort internals, a few ms of start-up).
  let resolved: AbortSignal | undefined;
  const stopSignal = (): AbortSignal => {
    if (!resolved) {
      resolved = typeof signal === 'function' ? signal() : (signal ?? new AbortController().signal);
      // Every request waiting for a pacer slot listens to it: a bulk create has many at once.
      setMaxListeners(0, resolved);
    }
    return resolved;
  };
  const state: RunState = {
    get signal() {
      return stopSignal();
    },
    io,
    argv: argv.slice(2),
    exitCode: ExitCode.ok,
    // Handed down rather than imported, so that a command that runs others (mcp) makes no import circle.
    main,
  };
  // Seen by runProcess's signal handler while the command runs: a serving command ends quietly.
  currentRun = state;
  const program = await programFor(state);
  try {
    await program.parseAsync(argv);
    return state.exitCode;
  } catch (error) {
    const newOutput = async () => {
      const output = new (await import('./render/output.js')).Output({
        json: false,
        verbose: argv.includes('--verbose'),
        color: !argv.includes('--no-color'),
        stdout: io.stdout,
        stderr: io.stderr,
        env: io.env,
      });
      for (const secret of typedSecrets(state.argv)) output.protect(secret);
      return output;
    };
    if (error instanceof CommanderError) {
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.code === 'commander.help'
      ) {
        return ExitCode.ok;
      }
      // commander's one-line message echoes what was typed (`unknown command 'sk_live_…'`): shown
      // through the output, escaped and with the environment's key and secrets masked.
      if (state.commanderError !== undefined) {
        const [output, { escapeControl }, { habitHint }] = await Promise.all([
          newOutput(),
          import('../core/envelope/text.js'),
          import('./help/gh-habits.js'),
        ]);
        // A habit from gh spelt another way here: the pointer, on the error's line.
        const hint = habitHint(state.argv, error.code);
        // It says more than commander's own "(Did you mean --json?)", which it replaces.
        const said = state.commanderError.replace(/\n$/, '');
        const message = hint
          ? `${said.replace(/\n\(Did you mean [^\n]*\)$/, '')} (hint: ${hint})`
          : // A required argument left out: what the command wants, and an example.
            error.code === 'commander.missingArgument'
            ? `${said} (${usageOf(program, state.argv)})`
            : said;
        // Escaped line by line first: a typed escape sequence must not pass for the output's own colour.
        for (const line of message.split('\n')) output.info(escapeControl(line));
      }
      return error.code === 'commander.executeSubCommandAsync' ? ExitCode.failed : ExitCode.usage;
    }
    await state.context?.protectStoredKeys();
    const output = state.context?.output ?? (await newOutput());
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
 * The process exits when the command is done and its output written.
 */
export async function runProcess(argv: string[]): Promise<never> {
  // Made when the command first asks for its signal; a stop before that aborts it as it is made.
  let controller: AbortController | undefined;
  let stopped = false;
  const signal = (): AbortSignal => {
    if (!controller) {
      controller = new AbortController();
      if (stopped) controller.abort();
    }
    return controller.signal;
  };
  let interrupts = 0;
  let exitCode: number = ExitCode.ok;
  let lostOutput: NodeJS.ErrnoException | undefined;
  const io = systemIo((fd, error) => {
    // `sign-cli ... | head` closes stdout early; that is not an error worth a stack trace.
    if (fd === 1 && error.code === 'EPIPE') process.exit(exitCode);
    // A full disk or a device that refuses (stdout to a file): the output asked for is lost.
    // A terminal that went away (SIGHUP) fails every write with EIO: the run still finishes
    // and journals what it sent; there is nobody left to tell.
    if (fd === 1 && error.code !== 'EIO') lostOutput ??= error;
  });
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts++;
    if (interrupts > 1) process.exit(ExitCode.interrupted);
    if (signal === 'SIGINT' && !currentRun?.context?.serving)
      io.stderr.write('\ninterrupting… (Ctrl-C again to force)\n');
    stopped = true;
    controller?.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  try {
    exitCode = await main(argv, io, signal);
    // What the command wrote is handed to the OS before the process leaves (drained() waits
    // until every write has left or failed, and a failure has been heard).
    await io.drained();
    // No false success: what the command printed did not all arrive.
    if (lostOutput && exitCode === ExitCode.ok) {
      io.stderr.write(
        `error: could not write the output to stdout: ${lostOutput.code ?? lostOutput.message} (check the file or device it goes to, and the space left there)\n`,
      );
      exitCode = ExitCode.failed;
      await io.drained();
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
  }
  // Leave now, not when the event loop empties: Node's own exit first tears the whole heap
  // down first, and a keychain call the binding could
  // not stop (keychain.ts) or a kept-alive connection would hold the process open. The code
  // caches are written on 'exit' (launch/).
  process.exit(exitCode);
}
