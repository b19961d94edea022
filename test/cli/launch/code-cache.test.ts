/**
 * The launcher's chunk loader and its code caches (src/cli/launch), on real files: chunks
 * written to a temporary directory, compiled by V8, their caches written, read back and
 * refused. (That a cache makes a command start faster is bench/startup.mjs's to say.)
 */
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChunkLoader } from '../../../src/cli/launch/chunk-loader.js';
import {
  cacheRoot,
  CodeCache,
  commandKey,
  platformCacheDir,
  STALE_AFTER_MS,
} from '../../../src/cli/launch/code-cache.js';
import { tempDir } from '../../helpers/paths.js';

/** A bundle of two chunks like the CLI's: main.cjs requires a chunk, which requires a built-in. */
function bundle(): string {
  const dir = tempDir('sign-cli-bundle-');
  writeFileSync(
    join(dir, 'main.cjs'),
    '"use strict";var c=require("./chunk-A1.cjs");exports.greet=(n)=>c.upper("hello "+n);exports.where=__filename;exports.resolved=require.resolve("node:path");\n',
  );
  writeFileSync(
    join(dir, 'chunk-A1.cjs'),
    '"use strict";const p=require("node:path");exports.upper=(s)=>s.toUpperCase()+p.sep;exports.dir=__dirname;\n',
  );
  return dir;
}

/** A copy of a bundle elsewhere: another process's view of the same build (require.cache is per process). */
function copyOf(dir: string): string {
  const copy = tempDir('sign-cli-bundle-');
  cpSync(dir, copy, { recursive: true });
  return copy;
}

function run(
  dir: string,
  root: string,
  command = 'envelopes.validate',
): { cache: CodeCache; main: { greet(n: string): string; where: string }; outcomes: string[] } {
  const cache = CodeCache.open({ root, key: 'build1-node', command })!;
  const outcomes: string[] = [];
  const track = cache.track.bind(cache);
  cache.track = (name, script, outcome) => {
    outcomes.push(`${name}:${outcome}`);
    track(name, script, outcome);
  };
  const main = new ChunkLoader(dir, cache).load('main.cjs') as { greet(n: string): string; where: string };
  return { cache, main, outcomes };
}

describe('commandKey', () => {
  it.each([
    [['envelopes', 'validate', 'envelope.json'], 'envelopes.validate'],
    [['keys', 'list', '--local'], 'keys.list'],
    [['--json', 'keys', 'list'], 'keys.list'],
    [['envelopes', 'create', '-f', 'a.json'], 'envelopes.create'],
    [['--help'], 'program.help'],
    [[], 'program'],
    [['envelopes', 'validate', '--help'], 'envelopes.validate.help'],
    [['help', 'envelopes'], 'help.envelopes'],
    [['envelopes', '../x', 'validate'], 'envelopes'],
    [['ENVELOPES'], 'program'],
  ])('%j is %s', (args, key) => {
    expect(commandKey(args)).toBe(key);
  });
});

describe('cacheRoot', () => {
  it("is SIGN_CACHE_DIR, else the platform's cache directory: $XDG_CACHE_HOME or ~/.cache, ~/Library/Caches, %LOCALAPPDATA%", () => {
    expect(cacheRoot({ SIGN_CACHE_DIR: '/c', XDG_CACHE_HOME: '/x' }, () => '/h', 'linux')).toBe('/c');
    expect(cacheRoot({ XDG_CACHE_HOME: '/x' }, () => '/h', 'linux')).toBe(join('/x', 'sign-cli'));
    expect(cacheRoot({}, () => '/h', 'linux')).toBe(join('/h', '.cache', 'sign-cli'));
    expect(cacheRoot({ XDG_CACHE_HOME: '/x' }, () => '/h', 'darwin')).toBe(
      join('/h', 'Library', 'Caches', 'sign-cli'),
    );
    expect(cacheRoot({ LOCALAPPDATA: '/l', XDG_CACHE_HOME: '/x' }, () => '/h', 'win32')).toBe(
      join('/l', 'sign-cli'),
    );
    expect(cacheRoot({}, () => '/h', 'win32')).toBe(join('/h', 'AppData', 'Local', 'sign-cli'));
    expect(cacheRoot({}, () => '')).toBeUndefined();
    // The keychain addon's place (the executable) is the platform's, whatever SIGN_CACHE_DIR says.
    expect(platformCacheDir({ SIGN_CACHE_DIR: '/c' }, () => '/h', 'linux')).toBe(
      join('/h', '.cache', 'sign-cli'),
    );
    expect(
      cacheRoot({}, () => {
        throw new Error('no home');
      }),
    ).toBeUndefined();
  });
});

describe('the chunk loader', () => {
  it('runs the chunks as Node would: their exports, __filename, __dirname, built-ins, one module each in require.cache', () => {
    const dir = bundle();
    const { main } = run(dir, tempDir());
    expect(main.greet('ada')).toBe(`HELLO ADA/`);
    expect(main.where).toBe(join(dir, 'main.cjs'));
    expect((main as unknown as { resolved: string }).resolved).toBe('node:path');
    const { createRequire } = process.getBuiltinModule('node:module');
    const cached = createRequire(join(dir, 'main.cjs')).cache;
    expect(cached[join(dir, 'chunk-A1.cjs')]?.exports.dir).toBe(dir);
    expect(cached[join(dir, 'main.cjs')]?.loaded).toBe(true);
    // Loaded once: the same exports again.
    expect(
      new ChunkLoader(dir, CodeCache.open({ root: tempDir(), key: 'k', command: 'c' })).load('main.cjs'),
    ).toBe(main);
  });

  it('takes the chunks from elsewhere, as the single executable does from its assets, with no cache at all', () => {
    const files = bundle();
    const asked: string[] = [];
    const virtual = join(tempDir('sign-cli-exe-'), 'sign-cli', 'cli');
    const loader = new ChunkLoader(virtual, undefined, (name) => {
      asked.push(name);
      return readFileSync(join(files, name), 'utf8');
    });
    const main = loader.load('main.cjs') as { greet(n: string): string; where: string };
    expect(main.greet('di')).toBe('HELLO DI/');
    expect(main.where).toBe(join(virtual, 'main.cjs'));
    expect(asked).toEqual(['main.cjs', 'chunk-A1.cjs']);
  });

  it('a chunk that throws is not left half-loaded in require.cache', () => {
    const dir = tempDir('sign-cli-bundle-');
    writeFileSync(join(dir, 'main.cjs'), 'throw new Error("broken chunk");\n');
    const loader = new ChunkLoader(dir, CodeCache.open({ root: tempDir(), key: 'k', command: 'c' }));
    expect(() => loader.load('main.cjs')).toThrow('broken chunk');
    expect(() => loader.load('main.cjs')).toThrow('broken chunk');
  });
});

describe('the code caches', () => {
  it('are written after the first run (0600, in a 0700 directory) and taken by the next one', () => {
    const root = tempDir();
    const dir = bundle();
    const first = run(dir, root);
    expect(first.outcomes).toEqual(['main.cjs:miss', 'chunk-A1.cjs:miss']);
    expect(first.cache.persist().sort()).toEqual(['chunk-A1.cjs', 'main.cjs']);
    const files = readdirSync(first.cache.dir).sort();
    expect(files).toEqual(['chunk-A1.cjs.cache', 'main.cjs.cache', 'ran.envelopes.validate']);
    expect(statSync(join(first.cache.dir, 'main.cjs.cache')).mode & 0o777).toBe(0o600);
    expect(statSync(first.cache.dir).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(first.cache.dir, 'chunk-A1.cjs.cache')).length).toBeGreaterThan(0);

    const second = run(copyOf(dir), root);
    expect(second.outcomes).toEqual(['main.cjs:hit', 'chunk-A1.cjs:hit']);
    expect(second.main.greet('bo')).toBe('HELLO BO/');
    // The same command with its caches taken: nothing to write.
    expect(second.cache.persist()).toEqual([]);
  });

  it('the first run of another command line writes every chunk it loaded again, once', () => {
    const root = tempDir();
    const dir = bundle();
    run(dir, root).cache.persist();
    const other = run(copyOf(dir), root, 'keys.list');
    expect(other.outcomes).toEqual(['main.cjs:hit', 'chunk-A1.cjs:hit']);
    expect(other.cache.persist().sort()).toEqual(['chunk-A1.cjs', 'main.cjs']);
    expect(existsSync(join(other.cache.dir, 'ran.keys.list'))).toBe(true);
    expect(run(copyOf(dir), root, 'keys.list').cache.persist()).toEqual([]);
  });

  it('a cache V8 refuses (another V8, other flags, a damaged file) is not used, and is written again', () => {
    const root = tempDir();
    const dir = bundle();
    const first = run(dir, root);
    first.cache.persist();
    writeFileSync(join(first.cache.dir, 'chunk-A1.cjs.cache'), Buffer.alloc(64, 7));
    const second = run(copyOf(dir), root);
    expect(second.outcomes).toEqual(['main.cjs:hit', 'chunk-A1.cjs:rejected']);
    expect(second.main.greet('cy')).toBe('HELLO CY/');
    expect(second.cache.persist()).toEqual(['chunk-A1.cjs']);
    expect(run(copyOf(dir), root).outcomes).toEqual(['main.cjs:hit', 'chunk-A1.cjs:hit']);
  });

  it('are not kept where another user could write them: a directory open to others, or a link', () => {
    const root = tempDir();
    mkdirSync(join(root, 'code', 'k'), { recursive: true, mode: 0o700 });
    chmodSync(join(root, 'code', 'k'), 0o777);
    expect(CodeCache.open({ root, key: 'k', command: 'c' })).toBeUndefined();
    chmodSync(join(root, 'code', 'k'), 0o700);
    chmodSync(join(root, 'code'), 0o775);
    expect(CodeCache.open({ root, key: 'k', command: 'c' })).toBeUndefined();
    chmodSync(join(root, 'code'), 0o700);
    expect(CodeCache.open({ root, key: 'k', command: 'c' })).toBeDefined();
    symlinkSync(join(root, 'code', 'k'), join(root, 'code', 'linked'));
    expect(CodeCache.open({ root, key: 'linked', command: 'c' })).toBeUndefined();
  });

  it('a directory that cannot be made or written means no cache, never a failure', () => {
    const root = tempDir();
    writeFileSync(join(root, 'code'), 'a file where the directory would be');
    expect(CodeCache.open({ root, key: 'k', command: 'c' })).toBeUndefined();

    const readOnly = tempDir();
    const dir = bundle();
    const { cache } = run(dir, readOnly);
    chmodSync(cache.dir, 0o500);
    try {
      // root may write anywhere: then the caches are written, which is no failure either.
      const written = cache.persist();
      expect(written.length === 0 || process.getuid?.() === 0).toBe(true);
      expect(readdirSync(cache.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    } finally {
      chmodSync(cache.dir, 0o700);
    }
  });

  it('a new build or runtime removes the caches of others untouched for a week, and keeps the recent ones', () => {
    const root = tempDir();
    const now = Date.now();
    for (const name of ['old-build', 'recent-build'])
      mkdirSync(join(root, 'code', name), { recursive: true, mode: 0o700 });
    const weekAgo = (now - STALE_AFTER_MS - 60_000) / 1000;
    utimesSync(join(root, 'code', 'old-build'), weekAgo, weekAgo);
    CodeCache.open({ root, key: 'new-build', command: 'c', now });
    expect(readdirSync(join(root, 'code')).sort()).toEqual(['new-build', 'recent-build']);
  });
});
