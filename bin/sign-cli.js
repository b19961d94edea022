#!/usr/bin/env node
// Launcher only: everything lives in the built CLI.
import { main } from '../dist/cli/main.js';

main(process.argv).then((code) => {
  process.exitCode = code;
});
