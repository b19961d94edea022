/**
 * The single executable's entry (scripts/build/build-exe.mjs): what bin/sign-cli.js
 * does for the npm package, in the one script a single executable application
 * runs (CommonJS, so that V8's code cache built with it is used: no top-level
 * await); the CLI's chunks are the executable's assets. `--version` answers
 * before the CLI is loaded, written as bin/sign-cli.js writes it: straight to a
 * pipe or a file (fd-stream.ts), not through process.stdout, whose stream and
 * net modules take longer than the rest.
 */
import { VERSION } from '../core/version.js';
import { fdStream } from './launch/fd-stream.js';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const onError = (error: NodeJS.ErrnoException): void => {
    if (error.code === 'EPIPE') return;
    process.stderr.write(
      `error: could not write to stdout: ${error.code ?? error.message} (check the file or device it goes to)\n`,
    );
    process.exitCode = 1;
  };
  fdStream(1, onError, () => process.stdout).write(`${VERSION}\n`);
} else {
  // The CLI's chunks are the executable's assets (scripts/build/build-exe.mjs), loaded as the package's launcher loads its files.
  void import('./launch/executable.js').then(({ loadExecutableCli }) =>
    loadExecutableCli(process.argv, process.env).runProcess(process.argv),
  );
}
