/**
 * Loads the CLI bundle's CommonJS chunks as Node's require would, but compiled through
 * vm.Script with the code caches of code-cache.ts (V8 can serialise a vm.Script after it
 * has run; Node's loader gives no such handle). Each chunk becomes a module of require.cache
 * like any other, with its own __filename and __dirname; a chunk requiring another
 * (`require("./chunk-….cjs")`, how the bundle writes its import()s too) gets it from here,
 * anything else (a built-in, the keychain's native addon) from Node's require for that file.
 * The single executable loads the same way, its chunks being its assets.
 */
import { createRequire, Module } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { constants as vmConstants, Script } from 'node:vm';
import type { CodeCache } from './code-cache.js';

/** A file of the bundle's own directory, as a chunk names another. */
const SIBLING = /^\.\/([\w.-]+\.cjs)$/;

/** What Node's CommonJS loader gives a module: a function of these five. */
type ModuleWrapper = (
  exports: unknown,
  require: (id: string) => unknown,
  module: Module,
  filename: string,
  dirname: string,
) => void;

export class ChunkLoader {
  /** Node's require.cache (this module may itself be ESM, under test). */
  private readonly modules: NodeJS.Require['cache'];

  constructor(
    /** The bundle's directory (dist/cli; for the single executable, a name under it that no file has). */
    private readonly dir: string,
    /** Where compiled code is kept; none: every chunk compiled from its source. */
    private readonly cache: CodeCache | undefined,
    /** A chunk's code: its file, or the single executable's asset. */
    private readonly source: (name: string) => string = (name) => readFileSync(join(dir, name), 'utf8'),
  ) {
    this.modules = createRequire(join(dir, 'main.cjs')).cache;
  }

  /** The exports of a chunk of the bundle (`main.cjs`), loading it and what it requires once. */
  load(name: string): unknown {
    const filename = join(this.dir, name);
    const loaded = this.modules[filename];
    if (loaded) return loaded.exports;
    const cachedData = this.cache?.read(name);
    const script = new Script(Module.wrap(this.source(name)), {
      filename,
      ...(cachedData ? { cachedData } : {}),
      // An import() in a chunk, if one ever has one, resolved as in a file Node loaded (Node 20.12+).
      importModuleDynamically: vmConstants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    this.cache?.track(
      name,
      script,
      cachedData === undefined ? 'miss' : script.cachedDataRejected ? 'rejected' : 'hit',
    );
    const module = new Module(filename);
    module.filename = filename;
    this.modules[filename] = module;
    let outside: NodeJS.Require | undefined;
    const nodeRequire = (): NodeJS.Require => (outside ??= createRequire(filename));
    // What a chunk may ask of its require besides calling it, as of Node's.
    const requireFor = Object.assign(
      (id: string): unknown => {
        const sibling = SIBLING.exec(id);
        return sibling ? this.load(sibling[1]!) : nodeRequire()(id);
      },
      {
        resolve: (id: string, options?: { paths?: string[] }) => nodeRequire().resolve(id, options),
        cache: this.modules,
      },
    );
    try {
      (script.runInThisContext() as ModuleWrapper).call(
        module.exports,
        module.exports,
        requireFor,
        module,
        filename,
        this.dir,
      );
    } catch (error) {
      delete this.modules[filename];
      throw error;
    }
    module.loaded = true;
    return module.exports;
  }
}
