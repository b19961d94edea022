#!/usr/bin/env node
// Launcher only: everything lives in the built CLI (dist/cli, a CommonJS bundle in chunks, loaded
// with require: no ESM loader for it; scripts/build/merge-chunks.mjs; npm run build). The launcher is
// CommonJS too (bin/package.json): an ES module entry would start Node's ESM loader for it alone.
// `--version` is answered from a tiny module without loading the CLI: it is what scripts
// and shell prompts call most often.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { VERSION } = require('../dist/cli/version.cjs');
  // Written straight to the descriptor: process.stdout would load Node's stream modules
  // (src/cli/launch/fd-stream.ts). A non-blocking descriptor (EAGAIN) gets the stream after all.
  try {
    require('node:fs').writeSync(1, `${VERSION}\n`);
  } catch (error) {
    if (error.code === 'EAGAIN') process.stdout.write(`${VERSION}\n`);
    else if (error.code !== 'EPIPE') {
      process.stderr.write(
        `error: could not write to stdout: ${error.code ?? error.message} (check the file or device it goes to)\n`,
      );
      process.exitCode = 1;
    }
  }
} else {
  // --verbose prints the stack of an unexpected error: mapped to src/ (the maps ship with it).
  if (args.includes('--verbose') || args.includes('-v')) process.setSourceMapsEnabled(true);
  // The bundle's chunks, with V8's compiled code of the last runs (src/cli/launch/launch.ts).
  // It exits the process when the command is done (src/cli/main.ts).
  require('../dist/cli/launch.cjs')
    .loadCli(require('node:path').join(__dirname, '..', 'dist', 'cli'), process.argv, process.env)
    .runProcess(process.argv);
}
