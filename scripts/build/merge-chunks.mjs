// The CLI bundle's second pass: Rollup re-chunks esbuild's split output into fewer, larger
// chunks, and writes them as CommonJS.
// - Fewer chunks: esbuild splits at every dynamic import() (about sixty) and makes one chunk
//   for each set of entry points that shares code, so a command loaded dozens of files, most
//   under 1 KB. esbuild has no option to merge small chunks; Rollup's experimentalMinChunkSize
//   merges a chunk below the size into another one only where that runs no code an entry would
//   not have run anyway. It does not weigh what a merge costs the commands that did not need the
//   small chunk: a pure one (only functions) is merged into whichever chunk adds the fewest bytes,
//   often the one every command loads. So what a command imports with import() is marked as a
//   module with effects (keptLazy): it is merged only where it would have loaded anyway, and what
//   loads lazily still loads lazily.
// - CommonJS: Node loads a CommonJS file with a synchronous require (read, compile with the
//   compile cache, run), where an ES module goes through the ESM loader's asynchronous jobs,
//   its linking of every import and export, and its module records (what each saves:
//   scripts/build/README.md). esbuild cannot split CommonJS output; Rollup can, and its
//   dynamic imports become require() calls (dynamicImportInCjs: false), so nothing the CLI
//   loads goes through the ESM loader.
// Rollup reads esbuild's modules as plain ESM (no plugins beyond the two below), keeps
// esbuild's source maps as the base of its own (stacks under --verbose still show src/
// lines), and esbuild minifies each merged chunk again.
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { rollup } from 'rollup';
import { transform } from 'esbuild';

/**
 * A chunk below this size (bytes of minified code) is merged where that is safe. Chosen by
 * measurement on Node 24, the Node users run (bench/startup.mjs): fewer, larger files start
 * faster than more, smaller ones holding less code (V8 compiles a function only when it first
 * runs, and the code caches spare the parsing); larger sizes merged nothing more.
 */
const MIN_CHUNK_SIZE = 50_000;

/** Dependencies loaded only when something is wrong: chardet names the encoding of a file that is not UTF-8. */
const RARE = ['chardet'];

/**
 * esbuild's files that another imports with import(): each is what a command loads when it needs
 * it (a noun, one of its commands, the sandbox, undici, …).
 */
async function dynamicImportTargets(from) {
  const targets = new Set();
  for (const file of (await readdir(from)).filter((f) => f.endsWith('.js'))) {
    const code = await readFile(join(from, file), 'utf8');
    for (const match of code.matchAll(/\bimport\("\.\/([\w-]+\.js)"\)/g)) targets.add(join(from, match[1]));
  }
  return targets;
}

/**
 * Loads each esbuild module with its source map, which Rollup then maps through. The modules in
 * `keptLazy` are given effects ('no-treeshake', which changes nothing else with treeshake off): a
 * module with effects is never merged where it would not have run.
 */
const withSourceMaps = (keptLazy) => ({
  name: 'esbuild-source-maps',
  async load(id) {
    const code = await readFile(id, 'utf8');
    const link = /\n\/\/# sourceMappingURL=(\S+)\s*$/.exec(code);
    if (!link) return code;
    const map = JSON.parse(await readFile(join(dirname(id), link[1]), 'utf8'));
    const body = code.slice(0, link.index + 1);
    // Code only a rare error needs is kept out of the chunks every command loads too: the merge
    // would put a small dependency whose top level only defines functions (as esbuild wraps
    // CommonJS) into the chunk every command reads.
    const rare =
      map.sources.length > 0 &&
      map.sources.every((source) => RARE.some((name) => source.includes(`node_modules/${name}/`)));
    return keptLazy.has(id) || rare
      ? { code: body, map, moduleSideEffects: 'no-treeshake' }
      : { code: body, map };
  },
});

/** Minifies each output chunk again (Rollup writes readable code), keeping licence comments at its end. */
const minify = {
  name: 'minify',
  async renderChunk(code) {
    const result = await transform(code, {
      minify: true,
      format: 'cjs',
      target: 'node20.19',
      sourcemap: true,
      legalComments: 'eof',
    });
    return { code: result.code, map: result.map };
  },
};

/**
 * Re-chunks the bundle whose entry is `${from}/main.js` into `to` (main.cjs and its chunks,
 * CommonJS, with linked source maps). Every import that is not a path between esbuild's own files is
 * one esbuild left to Node (built-ins, the keychain's native addon, a dependency's optional
 * require it could not resolve), and stays as it is.
 */
export async function mergeChunks({ from, to }) {
  const bundle = await rollup({
    input: { main: join(from, 'main.js') },
    external: (id, importer) => importer !== undefined && !id.startsWith('.') && !id.startsWith('/'),
    plugins: [withSourceMaps(await dynamicImportTargets(from))],
    // esbuild already chose what to keep; a second tree-shake could only misjudge a side effect.
    treeshake: false,
    // Rollup's chunk-merging report is an info log: a build prints only what needs a look.
    logLevel: 'warn',
    onwarn(warning, warn) {
      // Cycles between esbuild's chunks are its own (and harmless: they import functions).
      if (warning.code !== 'CIRCULAR_DEPENDENCY') warn(warning);
    },
  });
  try {
    await bundle.write({
      dir: to,
      format: 'cjs',
      // .cjs: the package is "type": "module".
      entryFileNames: '[name].cjs',
      chunkFileNames: 'chunk-[hash].cjs',
      // import() of a chunk becomes require(): no ESM loader at all (above).
      dynamicImportInCjs: false,
      sourcemap: true,
      experimentalMinChunkSize: MIN_CHUNK_SIZE,
      plugins: [minify],
    });
  } finally {
    await bundle.close();
  }
}
