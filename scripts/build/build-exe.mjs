// `npm run build:exe`: sign-cli as single executables (Node's single executable applications),
// one file each that needs no Node installed: dist/exe/sign-cli-<platform>-<arch>[.exe].
//
// - The CLI's chunks, built as the package's are (split, merged, CommonJS), are assets of the
//   executable (`cli/<name>`); its script answers --version and loads the chunks a command
//   needs with the code caches the package's launcher uses (src/cli/launch: V8's compiled code,
//   made after a command ran, in the user's cache directory). One script of the whole CLI
//   took longer to start than the chunks a command needs (docs/assumptions.md "Single
//   executables").
// - Each target's Node binary comes from the npm registry (node-<platform>-<arch>, the same
//   version for every target), and Node's own `--build-sea` (Node 25.5+: no postject) injects
//   the script and the assets, run by a Node of that same version for this machine.
// - The script is ASCII (checked): Node then uses it where it lies in the executable instead of
//   decoding a copy. This machine's target gets V8's code cache of it (made at build time; a
//   code cache is only valid where it was made). The licence notices, some with names that are
//   not ASCII, are the asset `licenses.txt` and a file beside the executables
//   (THIRD-PARTY-NOTICES.txt); the signed copy's fonts are assets (src/sandbox/signing/font-files.ts), and
//   so are the sandbox pages' web fonts and stylesheet (src/sandbox/pages/page-files.ts) and the
//   webhook inspector's files (src/core/web/shipped-files.ts reads them all).
// - The keychain binding (@napi-rs/keyring's native addon for the target, from the registry) is
//   an asset too: scripts/build/exe/keyring-from-asset.cjs writes it to the user's cache directory
//   once, checked by its SHA-256, and loads it from there (a native addon loads only from a file).
//
// SIGN_EXE_TARGETS=linux-x64 (comma-separated) builds fewer; SIGN_EXE_NODE_VERSION picks the Node.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import {
  assertCharset,
  chunksHash,
  cliBundleOptions,
  FONT_FILES,
  FONT_LICENSES,
  INSPECTOR_FILES,
  PAGE_FILES,
  requireFromRoot,
  WEB_FONT_FILES,
} from './cli-bundle.mjs';
import { mergeChunks } from './merge-chunks.mjs';
import { EXE_NODE_VERSION } from './build-exe-settings.mjs';
import { HOST_TARGET, NODE_PACKAGES, registryKeyringAddon, registryNode } from './registry-node.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const NODE_VERSION = EXE_NODE_VERSION;
// The keychain binding's version, as the npm package installs it.
const KEYRING_VERSION = JSON.parse(
  readFileSync(requireFromRoot.resolve('@napi-rs/keyring/package.json'), 'utf8'),
).version;
const host = HOST_TARGET;
const TARGETS = NODE_PACKAGES;
const nodeBinary = (target) => registryNode(target, NODE_VERSION);
const wanted = (process.env.SIGN_EXE_TARGETS ?? Object.keys(TARGETS).join(','))
  .split(',')
  .map((t) => t.trim())
  .filter(Boolean);
for (const target of wanted)
  if (!(target in TARGETS))
    throw new Error(`SIGN_EXE_TARGETS: no target ${target} (${Object.keys(TARGETS).join(', ')})`);

const out = join(root, 'dist', 'exe');
const work = join(root, 'dist', `exe.building-${process.pid}`);
mkdirSync(work, { recursive: true });

try {
  // The keychain binding's native addon travels as an asset of each executable, loaded by a stand-in.
  const keyringFromAsset = {
    name: 'keyring-from-asset',
    setup(build) {
      build.onResolve({ filter: /^@napi-rs\/keyring$/ }, () => ({
        path: '@napi-rs/keyring',
        namespace: 'keyring-from-asset',
      }));
      // As ESM naming the binding's classes: in a split bundle, `await import()` of a CommonJS
      // module gives only its `default` (src/cli/config/keychain.ts reads AsyncEntry).
      build.onLoad({ filter: /.*/, namespace: 'keyring-from-asset' }, () => ({
        contents: `import binding from ${JSON.stringify(join(root, 'scripts', 'build', 'exe', 'keyring-from-asset.cjs'))};\nexport default binding;\nexport const { AsyncEntry, Entry } = binding;\n`,
        resolveDir: root,
        loader: 'js',
      }));
    },
  };
  // The CLI's chunks, split and merged as the package's are (scripts/build/build.mjs), each an asset
  // `cli/<name>` that the executable's script loads when a command needs it, with the code
  // caches of src/cli/launch. Their licence notices go beside them (below), not in them.
  const split = join(work, 'split');
  const chunks = join(work, 'cli');
  await esbuild.build({
    ...cliBundleOptions({
      outdir: split,
      splitting: true,
      version,
      plugins: [keyringFromAsset],
      external: [],
    }),
    legalComments: 'external',
  });
  await mergeChunks({ from: split, to: chunks });
  const build = chunksHash(chunks, "the executable's cli");
  const chunkFiles = readdirSync(chunks).filter((f) => f.endsWith('.cjs'));
  // The dependencies' licence notices (some with names beyond ASCII): the asset `licenses.txt`
  // and a file beside the executables. esbuild writes them per chunk; each block once.
  const blocks = new Set(
    readdirSync(split)
      .filter((f) => f.endsWith('.LEGAL.txt'))
      .sort()
      .flatMap((f) =>
        readFileSync(join(split, f), 'utf8')
          .replace(/^Bundled license information:\n\n/, '')
          .split(/\n(?=\S)/),
      )
      .map((block) => block.trimEnd())
      .filter(Boolean),
  );
  // The fonts' licences too: the handwriting fonts (SIL OFL) travel as assets of the executable.
  for (const file of FONT_LICENSES)
    blocks.add(
      `assets/fonts (${file}):\n${readFileSync(join(root, 'assets', 'fonts', file), 'utf8').trimEnd()}`,
    );
  const notices = join(work, 'THIRD-PARTY-NOTICES.txt');
  writeFileSync(notices, `Bundled license information:\n\n${[...blocks].join('\n\n')}\n`);

  // The executable's script: --version, and the loader of the chunks.
  const bundle = join(work, 'sign-cli.cjs');
  const base = cliBundleOptions({
    outdir: work,
    splitting: false,
    version,
    entryPoints: { 'sign-cli': 'src/cli/exe.ts' },
    external: [],
  });
  await esbuild.build({
    ...base,
    // CommonJS: the executable's code cache (made at build time) is used for a CommonJS main.
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    sourcemap: false,
    metafile: false,
    // A single executable's script has no file of its own: import.meta.url names the executable.
    // Its `require` gives Node's built-ins, all the script asks of it.
    define: { ...base.define, 'import.meta.url': '__signCliExeUrl', SIGN_BUILD_ID: JSON.stringify(build) },
    banner: { js: 'const __signCliExeUrl=require("node:url").pathToFileURL(process.execPath).href;' },
    legalComments: 'none',
  });
  assertCharset("the executable's script", readFileSync(bundle, 'utf8'), 'ascii');

  // The builder: a Node of the targets' version for this machine.
  const builder = nodeBinary(host);
  mkdirSync(out, { recursive: true });
  // Printed here; written to the docs only by `npm run sizes`, the command that measures them.
  const sizes = [];
  for (const target of wanted) {
    const exe = join(out, `sign-cli-${target}${target.startsWith('win') ? '.exe' : ''}`);
    const config = {
      main: bundle,
      mainFormat: 'commonjs',
      executable: nodeBinary(target),
      output: `${exe}.part`,
      disableExperimentalSEAWarning: true,
      useCodeCache: target === host,
      useSnapshot: false,
      assets: {
        ...Object.fromEntries(
          FONT_FILES.map((f) => [`fonts/${f}`, requireFromRoot.resolve(`dejavu-fonts-ttf/ttf/${f}`)]),
        ),
        ...Object.fromEntries(WEB_FONT_FILES.map((f) => [`fonts/${f}`, join(root, 'assets', 'fonts', f)])),
        ...Object.fromEntries(PAGE_FILES.map((f) => [`pages/${f}`, join(root, 'assets', 'pages', f)])),
        ...Object.fromEntries(
          INSPECTOR_FILES.map((f) => [`inspector/${f}`, join(root, 'assets', 'inspector', f)]),
        ),
        'keyring.node': registryKeyringAddon(target, KEYRING_VERSION),
        'licenses.txt': notices,
        ...Object.fromEntries(chunkFiles.map((f) => [`cli/${f}`, join(chunks, f)])),
      },
    };
    const configFile = join(work, `sea-${target}.json`);
    writeFileSync(configFile, JSON.stringify(config, null, 2));
    execFileSync(builder, ['--build-sea', configFile], { stdio: ['ignore', 'inherit', 'inherit'] });
    renameSync(`${exe}.part`, exe);
    chmodSync(exe, 0o755);
    const sha256 = createHash('sha256').update(readFileSync(exe)).digest('hex');
    sizes.push([target, statSync(exe).size, sha256]);
    console.log(
      `${exe}: ${(statSync(exe).size / 1e6).toFixed(1)} MB, Node ${NODE_VERSION}${config.useCodeCache ? ', code cache' : ''}, sha256 ${sha256.slice(0, 16)}…`,
    );
  }
  copyFileSync(notices, join(out, 'THIRD-PARTY-NOTICES.txt'));
  writeFileSync(
    join(out, 'SHA256SUMS'),
    sizes
      .map(([target, , sha]) => `${sha}  sign-cli-${target}${target.startsWith('win') ? '.exe' : ''}\n`)
      .join(''),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
