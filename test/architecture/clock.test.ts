/**
 * One clock: the CLI, the listener and the sandbox read the time only through an injected
 * clock (the command's io.clock, the listener's and the sandbox's `clock` option, the sandbox's
 * services), so a test can set it. A direct read (`Date.now`, `new Date()`, `performance.now()`,
 * `process.hrtime`) is allowed only where the list below says why.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCANNED = ['src/cli', 'src/listener', 'src/sandbox'];
const DIRECT_READ = /\bDate\.now\b|\bnew Date\(\s*\)|\bperformance\.now\b|\bprocess\.hrtime\b/;

/** Each allowed read: the file, the line's text (trimmed), and why it cannot take a clock. */
const ALLOWED: { file: string; line: string; why: string }[] = [
  {
    file: 'src/sandbox/journey/clock.ts',
    line: 'realNow: () => number = Date.now,',
    why: 'the default real time of the sandbox clock itself; startSandbox passes its injected clock',
  },
  {
    file: 'src/cli/launch/code-cache.ts',
    line: "if (made) pruneStale(join(options.root, 'code'), options.key, options.now ?? Date.now());",
    why: "the launcher runs before the CLI's Io and clock exist; `now` is injected by its tests",
  },
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/** Every line of the scanned code that reads the time directly, as `file:line: text`. */
function directReads(): { file: string; number: number; line: string }[] {
  return SCANNED.flatMap((dir) => sourceFiles(join(ROOT, dir))).flatMap((path) => {
    const file = relative(ROOT, path).split('\\').join('/');
    return readFileSync(path, 'utf8')
      .split('\n')
      .flatMap((text, i) => (DIRECT_READ.test(text) ? [{ file, number: i + 1, line: text.trim() }] : []));
  });
}

describe('one clock', () => {
  const reads = directReads();

  it('reads the time in src/cli, src/listener and src/sandbox only through an injected clock', () => {
    const stray = reads
      .filter((read) => !ALLOWED.some((allowed) => allowed.file === read.file && allowed.line === read.line))
      .map((read) => `${read.file}:${read.number}: ${read.line}`);
    expect(stray).toEqual([]);
  });

  it('keeps no allowance that is no longer needed', () => {
    const unused = ALLOWED.filter(
      (allowed) => !reads.some((read) => read.file === allowed.file && read.line === allowed.line),
    ).map((allowed) => `${allowed.file}: ${allowed.line}`);
    expect(unused).toEqual([]);
  });

  it('catches each kind of direct read', () => {
    for (const text of [
      'const t = Date.now();',
      'const now = options.now ?? Date.now;',
      'stamp(new Date())',
      'const t0 = performance.now();',
      'process.hrtime.bigint()',
    ])
      expect(DIRECT_READ.test(text), text).toBe(true);
    // Reading a value is not reading the clock.
    for (const text of ['new Date(clock.now())', 'new Date(row.expires)', 'Date.parse(header)'])
      expect(DIRECT_READ.test(text), text).toBe(false);
  });
});
