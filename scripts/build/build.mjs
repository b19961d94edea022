// `npm run build`: the library and the CLI bundle.
//
// - The library (`import { SignClient } from 'esign-envelopes-cli'`): esbuild bundles
//   dist/core/index.js and dist/core/pacing/shared-budget.js with what they use (undici, zod, pkijs,
//   the Redis client, …), so the installed package has no runtime dependency to fetch; tsc
//   type-checks all of src/ and emits the .d.ts of dist/core (what it emits elsewhere is removed).
//   Source maps embed their sources (src/ is not in the package).
// - The CLI: one minified bundle with code splitting, dist/cli/main.cjs, whose heavy
//   parts (undici, zod, conf, inquirer, the table renderer, the sandbox, the listener), reached
//   through dynamic import(), land in their own chunks and load only when a command needs
//   them; Rollup then merges esbuild's many small chunks and writes them as CommonJS, loaded
//   with require (scripts/build/merge-chunks.mjs): start-up
//   cost is the modules a command loads and their number (bench/startup.mjs). Only the keychain's
//   native addon stays outside it (EXTERNAL_PACKAGES); the signed copy's fonts and the sandbox
//   pages' web fonts (assets/fonts) are copied to dist/fonts, and the pages' stylesheet
//   (assets/pages) to dist/pages.
// - dist/cli/version.cjs: the version alone, so the launcher answers --version without
//   loading the CLI; dist/cli/launch.cjs: what loads the bundle's chunks with the code caches
//   of src/cli/launch (made after a command ran: what it ran is not compiled again).
// Everything is built beside dist/ and then put in its place, so that a run of the CLI (or
// of the tests) during a build finds the old build or the new one, never half of one, and
// nothing of a deleted source survives.
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import {
  assertCharset,
  chunksHash,
  cliBundleOptions,
  FONT_FILES,
  PAGE_FILES,
  requireFromRoot,
  WEB_FONT_FILES,
} from './cli-bundle.mjs';
import { mergeChunks } from './merge-chunks.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
// A sibling of dist/ (same depth: src/core/version.ts finds package.json at ../../).
const out = `dist.building-${process.pid}`;
rmSync(`${root}${out}`, { recursive: true, force: true });

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
try {
  execFileSync(
    process.execPath,
    [tsc, '-p', 'tsconfig.build.json', '--outDir', out, '--emitDeclarationOnly'],
    { cwd: root, stdio: 'inherit' },
  );
} catch {
  rmSync(`${root}${out}`, { recursive: true, force: true });
  console.error('build: tsc failed (above); dist/ left as it was');
  process.exit(1);
}
for (const dir of ['cli', 'listener', 'sandbox'])
  rmSync(`${root}${out}/${dir}`, { recursive: true, force: true });

const result = await esbuild.build(
  cliBundleOptions({ outdir: `${out}/cli-split`, splitting: true, version }),
);
await mergeChunks({ from: `${root}${out}/cli-split`, to: `${root}${out}/cli` });
// The launcher's loader (src/cli/launch): on its own, not a chunk of the bundle, with the hash of
// the bundle it loads, under which its code caches are kept (a cache is for one build only).
const build = chunksHash(`${root}${out}/cli`, 'dist/cli');
await esbuild.build({
  absWorkingDir: root,
  entryPoints: ['src/cli/launch/launch.ts'],
  outfile: `${out}/cli/launch.cjs`,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.19',
  minify: true,
  define: { SIGN_BUILD_ID: JSON.stringify(build) },
  logLevel: 'warning',
});
assertCharset('dist/cli/launch.cjs', readFileSync(`${root}${out}/cli/launch.cjs`, 'utf8'));
// The worker thread of an archive run of `envelopes verify` (src/cli/commands/envelopes/verify-pool.ts
// starts a few): one file of its own with the verifier and the reader of a PDF, so a worker loads
// that and nothing of the CLI (a chunk shared with the bundle would bring the CLI's code the merge put
// beside the core's). Not in the launcher's hash: it is loaded by Node in the worker, without the
// code caches. The single executable has none (its chunks are not files): it verifies on one thread.
await esbuild.build({
  absWorkingDir: root,
  entryPoints: ['src/cli/commands/envelopes/verify-worker.ts'],
  outfile: `${out}/cli/verify-worker.cjs`,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.19',
  minify: true,
  sourcemap: 'linked',
  sourcesContent: true,
  logLevel: 'warning',
});
assertCharset('dist/cli/verify-worker.cjs', readFileSync(`${root}${out}/cli/verify-worker.cjs`, 'utf8'));
rmSync(`${root}${out}/cli-split`, { recursive: true });
writeFileSync(`${root}${out}/cli/version.cjs`, `exports.VERSION = ${JSON.stringify(version)};\n`);
mkdirSync(`${root}${out}/fonts`);
for (const file of FONT_FILES)
  copyFileSync(requireFromRoot.resolve(`dejavu-fonts-ttf/ttf/${file}`), `${root}${out}/fonts/${file}`);
copyFileSync(requireFromRoot.resolve('dejavu-fonts-ttf/LICENSE'), `${root}${out}/fonts/LICENSE`);
for (const file of WEB_FONT_FILES) copyFileSync(`${root}assets/fonts/${file}`, `${root}${out}/fonts/${file}`);
mkdirSync(`${root}${out}/pages`);
for (const file of PAGE_FILES) copyFileSync(`${root}assets/pages/${file}`, `${root}${out}/pages/${file}`);

// The library, self-contained: its dependencies bundled (not minified: a library is read in a debugger).
await esbuild.build({
  absWorkingDir: root,
  entryPoints: {
    'core/index': 'src/core/index.ts',
    'core/pacing/shared-budget': 'src/core/pacing/shared-budget.ts',
  },
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  mainFields: ['module', 'main'],
  sourcemap: 'linked',
  sourcesContent: true,
  chunkNames: 'core/chunk-[hash]',
  // The CommonJS dependencies (undici, …) call require() for Node built-ins: an ESM bundle has none of its own.
  banner: {
    js: 'import { createRequire as __signCliRequire } from "node:module"; const require = __signCliRequire(import.meta.url);',
  },
  legalComments: 'eof',
  logLevel: 'warning',
});
if (process.env.BUILD_METAFILE) writeFileSync(process.env.BUILD_METAFILE, JSON.stringify(result.metafile));

// The maps keep our sources (stacks under --verbose show src/ lines) but not the dependencies'
// own, which would triple the package for code nobody debugs from a stack trace here.
for (const dir of ['cli', 'core', 'core/pacing']) {
  for (const file of readdirSync(`${root}${out}/${dir}`).filter((f) => /\.c?js\.map$/.test(f))) {
    const path = `${root}${out}/${dir}/${file}`;
    const map = JSON.parse(readFileSync(path, 'utf8'));
    map.sourcesContent = map.sources.map((source, i) =>
      source.includes('node_modules/') ? null : (map.sourcesContent?.[i] ?? null),
    );
    writeFileSync(path, JSON.stringify(map));
  }
}

// The swap: dist/ is missing only between these two calls.
const old = `${root}dist.old-${process.pid}`;
try {
  renameSync(`${root}dist`, old);
} catch (error) {
  if (error.code !== 'ENOENT') throw error;
}
renameSync(`${root}${out}`, `${root}dist`);
// The single executables (npm run build:exe) are built from src/ on their own: they survive a build.
if (existsSync(`${old}/exe`)) renameSync(`${old}/exe`, `${root}dist/exe`);
rmSync(old, { recursive: true, force: true });
