/**
 * The single executable's entry (scripts/build-exe.mjs): what bin/sign-cli.js
 * does for the npm package, in the one script a single executable application
 * runs (CommonJS, so that V8's code cache built with it is used: no top-level
 * await). `--version` answers before the CLI is evaluated.
 */
import { VERSION } from '../core/version.js';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${VERSION}\n`);
} else {
  void import('./main.js')
    .then(({ runProcess }) => runProcess(process.argv))
    .then((code) => {
      process.exitCode = code;
    });
}
