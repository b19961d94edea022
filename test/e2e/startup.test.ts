/**
 * The launcher and the bundle it runs: `--version` answered without the CLI, and
 * `envelopes create --dry-run` reading its inputs once when it shows no line per input.
 * (Timings live in bench/startup.mjs; nothing here measures time.)
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, ROOT, runCli, tempDir } from '../helpers/cli.js';
import { basePdf } from '../helpers/pdf-build.js';

const EXAMPLE = JSON.parse(readFileSync(join(ROOT, 'examples', 'envelope.json'), 'utf8')) as Record<
  string,
  unknown
>;
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

function ndjson(n: number): string {
  return (
    Array.from({ length: n }, (_, i) =>
      JSON.stringify({ ...EXAMPLE, title: `Startup ${i}`, contract_id: `CTR-S-${i}` }),
    ).join('\n') + '\n'
  );
}

describe('the launcher', () => {
  it.each([['--version'], ['-V']])('%s prints the package version', async (flag) => {
    const result = await runCli([flag]);
    expect(result).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('exits once the command is done and its output written, whatever else would hold the process open', async () => {
    // A timer that never ends stands for what the CLI cannot stop: a keychain call still running
    // in the binding's thread, a kept-alive connection. Node's own exit would wait for it forever.
    const hold = join(tempDir(), 'hold-open.cjs');
    writeFileSync(hold, 'setInterval(() => {}, 60_000);\n');
    const env = { NODE_OPTIONS: `--require ${hold}` };
    const valid = await runCli(['envelopes', 'validate', join(ROOT, 'examples', 'envelope.json'), '--json'], {
      env,
      timeoutMs: 10_000,
    });
    expect(valid.signal).toBeNull();
    expect(valid.code).toBe(0);
    expect(JSON.parse(valid.stdout)).toMatchObject({ valid: true, errors: [] });
    // The exit code is the command's, and a long output arrives whole.
    const missing = await runCli(['envelopes', 'validate', join(tempDir(), 'none.json')], {
      env,
      timeoutMs: 10_000,
    });
    expect(missing).toMatchObject({ signal: null, code: 2 });
    expect(missing.stderr).toMatch(/^error: .*none\.json: no such file/);
    const script = await runCli(['completion', 'bash'], { env, timeoutMs: 10_000 });
    expect(script.code).toBe(0);
    expect(script.stdout.length).toBeGreaterThan(2000);
    expect(script.stdout.trimEnd().split('\n').at(-1)).toMatch(/complete /);
  });

  it('--version among other arguments still goes through the CLI', async () => {
    const result = await runCli(['--no-color', '--version']);
    expect(result).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it('runs the bundle, whose chunks are loaded only when needed', () => {
    // What main.cjs requires before anything runs, and what those require in turn. The other
    // chunks are reached only through import(), which the CommonJS bundle writes as
    // `Promise.resolve().then(function(){return require("./chunk-…")})`, when a command needs them.
    const dir = join(ROOT, 'dist', 'cli');
    const chunks = readdirSync(dir).filter((f) => /^chunk-[\w-]+\.cjs$/.test(f));
    const lazy = /function\(\)\{return require\("\.\/chunk-[\w-]+\.cjs"\)/;
    const eager = new Set<string>();
    const visit = (file: string): void => {
      const code = readFileSync(join(dir, file), 'utf8');
      for (const match of code.matchAll(/require\("\.\/(chunk-[\w-]+\.cjs)"\)/g)) {
        if (
          lazy.test(
            code.slice(Math.max(0, match.index - 'function(){return '.length), match.index + match[0].length),
          )
        )
          continue;
        if (!eager.has(match[1]!)) {
          eager.add(match[1]!);
          visit(match[1]!);
        }
      }
    };
    visit('main.cjs');
    const dynamic = chunks.filter((chunk) => lazy.test(readFileSync(join(dir, chunk), 'utf8')));
    expect(eager.size).toBeGreaterThan(0);
    expect(dynamic.length).toBeGreaterThan(0);
    expect(eager.size).toBeLessThan(chunks.length / 4);
    // Nothing of the launcher or the bundle goes through the ESM loader.
    expect(readdirSync(dir).filter((f) => /\.m?js$/.test(f))).toEqual([]);
    expect(JSON.parse(readFileSync(join(ROOT, 'bin', 'package.json'), 'utf8'))).toEqual({ type: 'commonjs' });
  });

  it('keeps every chunk to Latin-1: one other character and V8 holds the whole chunk at two bytes a character', () => {
    // scripts/build/cli-bundle.mjs (assertCharset) fails the build on one; this checks what was built.
    const dir = join(ROOT, 'dist', 'cli');
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.cjs'))) {
      expect(readFileSync(join(dir, file), 'utf8').search(/[^\x00-\xff]/), file).toBe(-1);
    }
  });

  it('ships source maps that carry our sources, not the dependencies’ (the package would be half again as large)', () => {
    const dir = join(ROOT, 'dist', 'cli');
    const maps = readdirSync(dir).filter((f) => f.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(10);
    let ours = 0;
    for (const file of maps) {
      const map = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
        sources: string[];
        sourcesContent?: (string | null)[];
      };
      map.sources.forEach((source, i) => {
        if (source.includes('node_modules/'))
          expect(map.sourcesContent?.[i] ?? null, `${file}: ${source}`).toBeNull();
        else if (source.includes('/src/') && map.sourcesContent?.[i]) ours++;
      });
    }
    expect(ours).toBeGreaterThan(50);
  });
});

describe('the code caches of the launcher', () => {
  const cacheFiles = (root: string): string[] => {
    const code = join(root, 'code');
    return existsSync(code)
      ? readdirSync(code).flatMap((build) => readdirSync(join(code, build)).map((f) => `${build}/${f}`))
      : [];
  };

  it('are written by the first run of a command, private, and the next run gives the same answer from them', async () => {
    const root = tempDir('sign-cli-cache-');
    const args = ['envelopes', 'validate', 'examples/envelope.json'];
    const first = await runCli(args, { env: { SIGN_CACHE_DIR: root } });
    expect(first).toMatchObject({ code: 0, stdout: '✓ examples/envelope.json: valid\n', stderr: '' });
    const files = cacheFiles(root);
    expect(files.filter((f) => f.endsWith('/main.cjs.cache'))).toHaveLength(1);
    expect(files.filter((f) => f.endsWith('.cjs.cache')).length).toBeGreaterThan(3);
    expect(files.some((f) => f.endsWith('/ran.envelopes.validate'))).toBe(true);
    expect(files.some((f) => f.endsWith('.tmp'))).toBe(false);
    const build = files[0]!.split('/')[0]!;
    expect(build).toMatch(
      new RegExp(`^[0-9a-f]{16}-node${process.versions.node.replace(/\./g, '\\.')}-${process.arch}$`),
    );
    expect(statSync(join(root, 'code', build)).mode & 0o777).toBe(0o700);
    expect(statSync(join(root, 'code', build, 'main.cjs.cache')).mode & 0o777).toBe(0o600);
    const before = statSync(join(root, 'code', build, 'main.cjs.cache')).mtimeMs;
    const second = await runCli(args, { env: { SIGN_CACHE_DIR: root } });
    expect(second).toEqual(first);
    // Taken, not written again.
    expect(statSync(join(root, 'code', build, 'main.cjs.cache')).mtimeMs).toBe(before);
  });

  it('a damaged cache is refused by V8 and written again; the command does not notice', async () => {
    const root = tempDir('sign-cli-cache-');
    expect((await runCli(['--help'], { env: { SIGN_CACHE_DIR: root } })).code).toBe(0);
    for (const file of cacheFiles(root).filter((f) => f.endsWith('.cjs.cache')))
      writeFileSync(join(root, 'code', file), 'not a code cache');
    const help = await runCli(['--help'], { env: { SIGN_CACHE_DIR: root } });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('envelopes');
    expect(help.stderr).toBe('');
    for (const file of cacheFiles(root).filter((f) => f.endsWith('.cjs.cache')))
      expect(readFileSync(join(root, 'code', file), 'utf8')).not.toBe('not a code cache');
  });

  it('are not read or written in a directory others can write to, nor with NODE_DISABLE_COMPILE_CACHE', async () => {
    const root = tempDir('sign-cli-cache-');
    mkdirSync(join(root, 'code'), { mode: 0o777 });
    chmodSync(join(root, 'code'), 0o777);
    expect((await runCli(['keys', 'list', '--local'], { env: { SIGN_CACHE_DIR: root } })).code).toBe(0);
    expect(cacheFiles(root)).toEqual([]);
    const off = tempDir('sign-cli-cache-');
    expect(
      (
        await runCli(['keys', 'list', '--local'], {
          env: { SIGN_CACHE_DIR: off, NODE_DISABLE_COMPILE_CACHE: '1' },
        })
      ).code,
    ).toBe(0);
    expect(cacheFiles(off)).toEqual([]);
  });
});

/**
 * What a command line loads (through a preload, at exit): the files of the bundle (require.cache)
 * with their bytes, and the modules of Node itself loaded after start (process.moduleLoadList).
 */
function loadedBy(
  args: string[],
  env: Record<string, string | undefined> = {},
  exitCode = 0,
): { files: string[]; bytes: number; builtins: string[] } {
  const dir = tempDir();
  const preload = join(dir, 'loaded.cjs');
  const report = join(dir, 'loaded.json');
  writeFileSync(
    preload,
    [
      'const atStart = new Set(process.moduleLoadList);',
      "process.on('exit', () => require('node:fs').writeFileSync(",
      `  ${JSON.stringify(report)},`,
      '  JSON.stringify({',
      `    files: Object.keys(require.cache).filter((p) => p.includes(${JSON.stringify(join(ROOT, 'dist', 'cli'))})),`,
      "    builtins: process.moduleLoadList.filter((m) => m.startsWith('NativeModule ') && !atStart.has(m)).map((m) => m.slice(13)),",
      '  }),',
      '));',
      '',
    ].join('\n'),
  );
  const config = join(dir, 'config');
  const run = spawnSync(process.execPath, ['--require', preload, BIN, ...args], {
    cwd: ROOT,
    env: cleanEnv({ SIGN_CONFIG_DIR: config, ...env }),
    stdio: 'ignore',
  });
  expect(run.status).toBe(exitCode);
  const loaded = JSON.parse(readFileSync(report, 'utf8')) as { files: string[]; builtins: string[] };
  // launch.cjs is the launcher's loader (src/cli/launch), loaded by every command line but --version.
  const files = loaded.files.filter((file) => !file.endsWith('launch.cjs'));
  return {
    files,
    bytes: files.reduce((sum, file) => sum + statSync(file).size, 0),
    builtins: loaded.builtins,
  };
}

const CSV = ['--csv', 'examples/recipients.csv', '--template', 'examples/template.json'];

describe('what everyday commands load', () => {
  // Start-up is the code a command loads (bench/startup.mjs). A module that only names a
  // constant can pull a chunk of half a megabyte (undici, the webhook code) into every
  // command when the bundler merges chunks: these bounds catch that, not a few bytes more.
  it.each([
    // Measured: 119.5 KB, 179.8, 315.4, 343.3, 356.9 and 384.8 KB (Node 24 and 20 alike).
    [['--help'], 2, 123_000],
    [['keys', 'list', '--local'], 12, 183_000],
    // libphonenumber's code and its metadata (about 130 KB, read a country at a time when a
    // phone is checked) cost validate about 1 % (A/B of 51 interleaved rounds).
    // Within envelopes, only the command named is loaded (src/cli/command-group.ts), in files
    // of its own; the envelope's shape is checked without zod (src/core/envelope/schema.ts).
    [['envelopes', 'validate', 'examples/envelope.json'], 13, 319_000],
    // A dry run loads none of the sending half (create-send.ts, its report and progress: 7 KB).
    [['envelopes', 'create', '-f', 'examples/envelope.json', '--dry-run'], 17, 347_000],
    // A spreadsheet adds its reader and csv-parse (about 44 KB in 2 files).
    [['envelopes', 'validate', ...CSV], 15, 360_000],
    [['envelopes', 'create', ...CSV, '--dry-run'], 19, 388_000],
  ])('%j loads at most %i files of the bundle, %i bytes', (args, maxFiles, maxBytes) => {
    const { files, bytes } = loadedBy(args);
    expect(files.length).toBeGreaterThan(0);
    expect(files.length).toBeLessThanOrEqual(maxFiles);
    expect(bytes).toBeLessThanOrEqual(maxBytes);
  });

  it('envelopes validate and create load no other envelopes command, and no zod', () => {
    // Each command's one-line summary (its doc, in its own module) stands for its code.
    const summaryOf = (command: string): string => {
      const source = readFileSync(join(ROOT, 'src', 'cli', 'commands', 'envelopes', `${command}.ts`), 'utf8');
      return /summary: '([^']+)'/.exec(source)![1]!;
    };
    const others = ['audit', 'download', 'get', 'list', 'sample', 'void', 'watch'].map(summaryOf);
    for (const [args, own] of [
      [['envelopes', 'validate', 'examples/envelope.json'], 'validate'],
      [['envelopes', 'create', '-f', 'examples/envelope.json', '--dry-run'], 'create'],
    ] as const) {
      const text = loadedBy([...args])
        .files.map((file) => readFileSync(file, 'latin1'))
        .join('\n');
      if (own === 'validate') expect(text).toContain(summaryOf('validate'));
      // Only the command a line names is registered (src/cli/command-group.ts).
      for (const summary of others) expect(text, `${own} loads "${summary}"`).not.toContain(summary);
      // The envelope's shape is plain code (src/core/envelope/schema.ts); zod is sign-cli mcp's alone.
      expect(text, `${own} loads zod`).not.toContain('$ZodType');
    }
  });

  // Node's own modules cost start-up too: its streams are 19 modules, fs/promises 12 more. An
  // import of a class from node:stream in a module every command loads (the in-memory IO of
  // the tests and the mcp tools, memory-io.ts), or of fs/promises where verify alone uses it,
  // loaded them for every command line. What the launcher needs (module, vm), what commander
  // reads (process) and the config file's env-paths (os) are all an everyday command loads.
  it.each([
    [['--help']],
    [['keys', 'list', '--local']],
    [['envelopes', 'validate', 'examples/envelope.json']],
    [['envelopes', 'create', '-f', 'examples/envelope.json', '--dry-run']],
  ])('%j loads none of Node’s streams, readline, fs/promises, net or crypto', (args) => {
    const { builtins } = loadedBy(args);
    expect(builtins).toContain('vm');
    expect(
      builtins.filter((name) =>
        /^(stream|internal\/streams\/|string_decoder|readline|internal\/readline\/|internal\/fs\/promises|fs\/promises|net|tty|crypto|internal\/crypto\/|child_process)/.test(
          name,
        ),
      ),
    ).toEqual([]);
    // Node 20 and 22 add their ESM loader's two (internal/modules/esm/…) to the five of Node 24.
    expect(builtins.length).toBeLessThanOrEqual(8);
  });
});

describe('envelopes verify', () => {
  // Of Node's own modules, verify needs crypto (which brings the streams). It reads the file with
  // node:fs's callbacks, not fs/promises (which loads 9 more: readline's, the REPL's history,
  // the watchers), and paces itself on process.hrtime, not the performance global (perf_hooks
  // and 10 of its own): on Node 24, 40 modules of Node where it loaded 61 (bench/verify.mjs).
  it('loads crypto and none of fs/promises, readline or perf_hooks', () => {
    const pdf = join(tempDir(), 'unsigned.pdf');
    writeFileSync(pdf, basePdf());
    // An unsigned PDF fails (exit 1) after the whole verification: the file read, paced, hashed.
    const { builtins } = loadedBy(['envelopes', 'verify', pdf], {}, 1);
    expect(builtins).toContain('crypto');
    expect(
      builtins.filter((name) =>
        /^(fs\/promises|internal\/fs\/promises|readline|internal\/readline\/|internal\/repl\/|perf_hooks|internal\/perf\/)/.test(
          name,
        ),
      ),
    ).toEqual([]);
  });
});

describe('the launcher and node:os', () => {
  it.skipIf(process.platform === 'win32')(
    '--help finds the cache under $HOME without loading node:os, as os.homedir() would read it',
    () => {
      const home = tempDir('sign-cli-home-');
      const { builtins } = loadedBy(['--help'], {
        HOME: home,
        SIGN_CACHE_DIR: undefined,
        XDG_CACHE_HOME: undefined,
      });
      expect(builtins).not.toContain('os');
      expect(readdirSync(join(home, '.cache', 'sign-cli', 'code'))).toHaveLength(1);
    },
  );
});

describe('envelopes create --dry-run', () => {
  it('with more than 50 inputs and no --json, reads them once: a named pipe is enough', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'inputs.ndjson');
    execFileSync('mkfifo', [fifo]);
    // The pipe can be read only once: a second pass would wait for a writer that never comes.
    const writer = spawn('sh', ['-c', `cat > "${fifo}"`], { stdio: ['pipe', 'ignore', 'ignore'] });
    writer.stdin.end(ndjson(60));
    // Opening the pipe for reading releases the writer; if the CLI never does, it must not linger.
    const result = await runCli(['envelopes', 'create', '--ndjson', '-f', fifo, '--dry-run'], {
      timeoutMs: 15_000,
    }).finally(() => writer.kill());
    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'dry run: 60 envelopes valid, nothing sent (would POST to http://127.0.0.1:4010/api/v1/envelopes)',
    );
  });

  it('with 50 inputs or fewer, names each one, in order', async () => {
    const dir = tempDir();
    const file = join(dir, 'three.ndjson');
    writeFileSync(file, ndjson(3));
    const result = await runCli(['envelopes', 'create', '--ndjson', '-f', file, '--dry-run']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual(
      [1, 2, 3].map((n) => `✓ ${file}:${n}: valid; would POST to http://127.0.0.1:4010/api/v1/envelopes`),
    );
    expect(result.stderr).toContain('dry run: 3 envelopes valid, nothing sent');
  });

  it('with --json, prints every envelope as it would be sent', async () => {
    const dir = tempDir();
    const file = join(dir, 'many.ndjson');
    writeFileSync(file, ndjson(55));
    const result = await runCli(['envelopes', 'create', '--ndjson', '-f', file, '--dry-run', '--json']);
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { input: string; status: string; envelope: { title: string } });
    expect(lines).toHaveLength(55);
    expect(lines[54]).toMatchObject({
      input: `${file}:55`,
      status: 'valid',
      envelope: { title: 'Startup 54' },
    });
  });
});
