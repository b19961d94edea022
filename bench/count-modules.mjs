// Loaded with --import by bench/startup.mjs, in a run of its own (a hook slows loading): counts
// the modules of the CLI bundle a command loads, printed on stderr at exit. Node 22.15+.
import { registerHooks } from 'node:module';

const seen = new Set();
registerHooks({
  load(url, context, next) {
    if (url.includes('/dist/cli/')) seen.add(url);
    return next(url, context);
  },
});
process.on('exit', () => process.stderr.write(`\nsign-cli modules loaded: ${seen.size}\n`));
