// The CLI's esbuild options and plugins, shared by the package's bundle (scripts/build/build.mjs:
// code splitting, so each command loads only its chunks) and the single executables'
// (scripts/build/build-exe.mjs: one file, as a single executable application needs).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const requireFromRoot = createRequire(`${root}package.json`);

/**
 * The fonts the signed copy embeds (src/sandbox/signing/font-files.ts reads them): copied beside the
 * package's bundle, assets of each single executable. The installed-package and executable
 * checks in CI make a signed copy, so a list that drifted from font-files.ts fails there.
 */
export const FONT_FILES = ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf'];

/**
 * The sandbox pages' web fonts (src/sandbox/pages/page-files.ts reads them): WOFF2 subsets of the
 * fonts above, made by scripts/fonts/web-fonts.sh, and the handwriting fonts of a typed signature
 * (scripts/fonts/signature-fonts.sh; the signed copy draws with them too,
 * src/sandbox/signing/font-files.ts), kept in assets/fonts; copied beside the bundle with their
 * licences and carried by each single executable as the fonts above are.
 */
export const WEB_FONT_FILES = [
  'sandbox-sans.woff2',
  'sandbox-sans-bold.woff2',
  'signature-latin.woff',
  'signature-latin-ext.woff',
  'signature-arabic.woff',
];

/** The licences of the fonts of assets/fonts, copied beside them (and into the executables' notices). */
export const FONT_LICENSES = ['OFL-DancingScript.txt', 'OFL-ArefRuqaa.txt'];

/**
 * The sandbox pages' own files kept in assets/pages (src/sandbox/pages/page-files.ts reads them):
 * copied to dist/pages and carried by each single executable as the fonts are.
 */
export const PAGE_FILES = ['ceremony.css', 'ceremony.js'];

/**
 * The webhook inspector's files kept in assets/inspector (src/core/web/shipped-files.ts reads them):
 * its stylesheet, its page script, and the SQLite writer it runs as a worker thread; copied to
 * dist/inspector and carried by each single executable as the fonts are.
 */
export const INSPECTOR_FILES = ['inspector.css', 'inspector.js', 'sqlite-writer.js'];

/**
 * Parts of dependencies the bundle replaces, each by a stand-in for what sign-cli uses of it
 * (by importing package: another package importing the same name gets the real one).
 *
 * - chalk detects colour support at its load (its vendored supports-color reads
 *   tty.isatty, and node:tty loads net and the stream modules). sign-cli decides colour
 *   itself (src/cli/render/output.ts) and makes each Chalk with that level, so the detection is
 *   replaced by "none" (chalk's default instance, which sign-cli does not use). What it saves:
 *   scripts/build/README.md.
 */
const STUBS = {
  chalk: {
    '#supports-color': 'export default { stdout: false, stderr: false };',
  },
};
const packageStubs = {
  name: 'package-stubs',
  setup(build) {
    const names = [...new Set(Object.values(STUBS).flatMap((stubs) => Object.keys(stubs)))];
    const filter = new RegExp(`^(${names.map((name) => name.replace(/[./#]/g, '\\$&')).join('|')})$`);
    build.onResolve({ filter }, (args) => {
      const pkg = Object.keys(STUBS).find((name) =>
        args.importer.includes(`${sep}node_modules${sep}${name}${sep}`),
      );
      return pkg && args.path in STUBS[pkg]
        ? { path: `${pkg}:${args.path}`, namespace: 'package-stub' }
        : undefined;
    });
    build.onLoad({ filter: /.*/, namespace: 'package-stub' }, (args) => {
      const [pkg, name] = [
        args.path.slice(0, args.path.indexOf(':')),
        args.path.slice(args.path.indexOf(':') + 1),
      ];
      return {
        contents: `${STUBS[pkg][name]}\n`,
        loader: 'js',
      };
    });
  },
};

/**
 * The MCP SDK (`sign-cli mcp` only) gets zod from a copy of its own (`zod-for-mcp`, an npm alias of
 * the same zod), as does src/cli/mcp for its tools' schemas. The SDK uses zod's classic API; sharing
 * zod's files with the zod/mini every other command uses would make esbuild split them into chunks
 * both reach, and every command that validates would load the classic API's code and locales
 * (about 130 KB more, and a file more: test/e2e/startup.test.ts).
 */
const ZOD_USERS = ['@modelcontextprotocol/sdk', 'zod-to-json-schema'];
const mcpZod = {
  name: 'mcp-zod',
  setup(build) {
    build.onResolve({ filter: /^zod(\/.*)?$/ }, (args) => {
      if (
        !ZOD_USERS.some((name) =>
          args.importer.includes(`${sep}node_modules${sep}${name.replace('/', sep)}${sep}`),
        )
      )
        return undefined;
      return { path: requireFromRoot.resolve(args.path.replace(/^zod/, 'zod-for-mcp')) };
    });
  },
};

/**
 * Node built-ins, which stay outside the bundle. An ESM `import … from 'node:fs'` makes Node
 * build a module facade of fs that reads every property (lazy getters included, loading
 * more modules), and `import process from 'node:process'` reads all of process (including
 * process.report, a module of its own). So each ESM import of a built-in gets the module
 * straight from process.getBuiltinModule (Node 20.16+), its properties as exports, each read
 * only by a chunk that imports it.
 * Some built-ins a command may never use are loaded on first use instead, not at start-up:
 * our modules' crypto, fs/promises, os, readline, stream/promises and zlib (functions only: importing
 * anything else fails the build); child_process required by commander (for executable
 * subcommands, which sign-cli has none of; it brings net and dgram); crypto imported by conf
 * (for encryption, unused here).
 */
const LAZY_IN_OUR_MODULES = [
  'node:crypto',
  'node:fs/promises',
  'node:os',
  'node:readline',
  'node:stream/promises',
  // Loaded by verify only when a PDF has a compressed stream it reads (zlib brings node:stream).
  'node:zlib',
];
const LAZY_IN_PACKAGES = { commander: ['node:child_process'], conf: ['node:crypto'] };
const builtins = {
  name: 'builtins',
  setup(build) {
    build.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      if (!isBuiltin(args.path)) return undefined;
      const id = args.path.startsWith('node:') ? args.path : `node:${args.path}`;
      const pkg = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/
        .exec(args.importer)?.[1]
        ?.replace('\\', '/');
      const lazy =
        pkg === undefined ? LAZY_IN_OUR_MODULES.includes(id) : (LAZY_IN_PACKAGES[pkg] ?? []).includes(id);
      if (args.kind === 'require-call')
        return lazy ? { path: id, namespace: 'builtin-lazy-cjs' } : { path: args.path, external: true };
      if (args.kind !== 'import-statement') return { path: args.path, external: true };
      if (lazy) return { path: id, namespace: pkg === undefined ? 'builtin-lazy' : 'builtin-lazy-default' };
      // One stand-in per importing file, so it lands in that file's chunk (no chunk of its own).
      return { path: `${id}|${relative(root, args.importer)}`, namespace: 'builtin' };
    });
    const get = (id) => `process.getBuiltinModule(${JSON.stringify(id)})`;
    build.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => {
      const id = args.path.slice(0, args.path.indexOf('|'));
      const real = process.getBuiltinModule(id);
      // Every own property, accessors included: on Node 22+ some exports (AsyncLocalStorage,
      // which @inquirer/core imports) are lazy getters. A getter is read only when the chunk
      // of a module that imports it is evaluated (unimported exports are dropped), so the
      // names a build can offer do not depend on the Node that builds it.
      const names = Object.getOwnPropertyNames(real).filter(
        (name) => name !== 'default' && /^[A-Za-z_$][\w$]*$/.test(name),
      );
      // Pure calls: esbuild drops the exports nobody imports.
      return {
        contents: [
          `const load = () => ${id === 'node:process' ? 'globalThis.process' : get(id)};`,
          'const pick = (name) => load()[name];',
          'export default /* @__PURE__ */ load();',
          ...names.map(
            (name, i) =>
              `const e${i} = /* @__PURE__ */ pick(${JSON.stringify(name)}); export { e${i} as ${JSON.stringify(name)} };`,
          ),
        ].join('\n'),
        loader: 'js',
      };
    });
    build.onLoad({ filter: /.*/, namespace: 'builtin-lazy' }, (args) => {
      const real = process.getBuiltinModule(args.path);
      const names = Object.keys(real).filter(
        (name) => /^[a-z]\w*$/.test(name) && typeof real[name] === 'function',
      );
      return {
        contents: [
          'let real;',
          `const load = () => (real ??= ${get(args.path)});`,
          ...names.map((name) => `export function ${name}(...args) { return load().${name}(...args); }`),
        ].join('\n'),
        loader: 'js',
      };
    });
    build.onLoad({ filter: /.*/, namespace: 'builtin-lazy-default' }, (args) => ({
      contents: `let real; export default new Proxy({}, { get: (_, key) => (real ??= ${get(args.path)})[key] });`,
      loader: 'js',
    }));
    build.onLoad({ filter: /.*/, namespace: 'builtin-lazy-cjs' }, (args) => ({
      contents: `let real; module.exports = new Proxy({}, { get: (_, key) => (real ??= ${get(args.path)})[key] });`,
      loader: 'js',
    }));
  },
};

/**
 * `await import('undici')` in Node gives undici's named exports (Node reads them off the
 * CommonJS module). esbuild's chunk for a dynamically imported CommonJS package exports
 * only `default`, so `const { request } = await import('undici')` would get undefined. Our
 * dynamic imports of CommonJS packages go through a stand-in ESM module that names every
 * export, as Node would.
 */
const DYNAMIC_CJS = ['undici'];
const dynamicCommonJs = {
  name: 'dynamic-commonjs-named-exports',
  setup(build) {
    const ours = `${sep}src${sep}`;
    const filter = new RegExp(`^(${DYNAMIC_CJS.join('|')})$`);
    build.onResolve({ filter }, (args) =>
      args.kind === 'dynamic-import' && args.importer.includes(ours)
        ? { path: args.path, namespace: 'dynamic-cjs' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'dynamic-cjs' }, (args) => {
      const names = Object.keys(requireFromRoot(args.path)).filter(
        (name) => /^[A-Za-z_$][\w$]*$/.test(name) && name !== 'default',
      );
      return {
        contents: [
          `import m from ${JSON.stringify(args.path)};`,
          'export default m;',
          ...names.map((name) => `export const ${name} = m.${name};`),
        ].join('\n'),
        loader: 'js',
        resolveDir: root,
      };
    });
  },
};

/**
 * Loaded from node_modules at run time, not bundled: @napi-rs/keyring (API keys in the OS
 * keychain, src/cli/config/keychain.ts) is a native addon, found by its loader among its platform
 * packages. It is an optional dependency: where it cannot be installed (an offline install,
 * a platform without a prebuilt binary) keys go to the 0600 file with a warning. pdfkit and
 * fontkit are bundled: the signed copy uses neither pdfkit's standard fonts (read from its
 * data files) nor PDF/A's colour profile, only the DejaVu fonts, which the build copies to
 * dist/fonts (src/sandbox/signing/font-files.ts).
 */
export const EXTERNAL_PACKAGES = ['@napi-rs/keyring'];

/**
 * The CLI bundle's options: `outdir`, and `splitting` (the package) or not (an executable);
 * `plugins` are added after ours (an executable's stand-ins for what it cannot load).
 */
export function cliBundleOptions({
  outdir,
  splitting,
  version,
  entryPoints = { main: 'src/cli/main.ts' },
  plugins = [],
  external = EXTERNAL_PACKAGES,
}) {
  return {
    absWorkingDir: root,
    entryPoints,
    outdir,
    bundle: true,
    splitting,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    // ESM builds of dependencies first: they tree-shake.
    mainFields: ['module', 'main'],
    minify: true,
    // Maps ship only with the sources they point to.
    sourcemap: 'linked',
    sourcesContent: true,
    chunkNames: 'chunk-[hash]',
    define: { __SIGN_CLI_VERSION__: JSON.stringify(version) },
    // CommonJS dependencies call require() for Node built-ins (all else is bundled); an ESM
    // bundle has no require. process.getBuiltinModule (Node 20.16+) gives them without
    // loading node:module; anything else falls back to a real require.
    banner: {
      js: 'const require=(id)=>process.getBuiltinModule(id)??process.getBuiltinModule("node:module").createRequire(import.meta.url)(id);',
    },
    legalComments: 'eof',
    external,
    plugins: [...plugins, packageStubs, mcpZod, builtins, dynamicCommonJs],
    metafile: true,
    logLevel: 'warning',
  };
}

/**
 * V8 keeps a script's source at one byte a character only while every character is Latin-1: one
 * character beyond (a "…" in a regular expression; esbuild escapes strings, not regex literals)
 * doubles the whole script in memory. A single executable's script must be ASCII: only then does
 * Node use it where it lies, where any other character makes it decode and copy the 4 MB script
 * on every start (bench/startup.mjs). So the build fails on one, saying where it is.
 */
const CHARSETS = { latin1: /[^\x00-\xff]/, ascii: /[^\x00-\x7f]/ };
export function assertCharset(file, text, charset = 'latin1') {
  const at = text.search(CHARSETS[charset]);
  if (at === -1) return;
  const line = text.slice(0, at).split('\n').length;
  const context = text.slice(Math.max(0, at - 40), at + 20).replace(/\s+/g, ' ');
  const escape = `\\u${text.codePointAt(at).toString(16).padStart(4, '0')}`;
  throw new Error(
    `${file}:${line}: ${JSON.stringify(text[at])} is not ${charset === 'ascii' ? 'ASCII' : 'Latin-1'} (in "${context}"); write it as an escape (${escape}) in the source`,
  );
}

/**
 * The hash of a built bundle's chunks (every .cjs in `dir`, by name and content), checking each
 * is Latin-1 on the way: the build's id, under which the launcher keeps its code caches
 * (src/cli/launch), since V8 checks only a cached source's length.
 */
export function chunksHash(dir, label) {
  const hash = createHash('sha256');
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.cjs'))
    .sort()) {
    const code = readFileSync(join(dir, file), 'utf8');
    assertCharset(`${label}/${file}`, code, 'latin1');
    hash.update(`${file}\0`).update(code);
  }
  return hash.digest('hex').slice(0, 16);
}
