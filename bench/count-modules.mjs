// Loaded with --import by bench/startup.mjs, in a run of its own: counts the modules of the CLI
// bundle a command loads (require.cache at exit, where the launcher's chunk loader puts each
// chunk as Node's require would; launch.cjs, the loader itself, not counted), printed on stderr.
import { createRequire } from 'node:module';

const cache = createRequire(import.meta.url).cache;
process.on('exit', () => {
  const loaded = Object.keys(cache).filter(
    (file) => file.includes('/dist/cli/') && !file.endsWith('launch.cjs'),
  );
  process.stderr.write(`\nsign-cli modules loaded: ${loaded.length}\n`);
});
