/**
 * The launcher and the bundle it runs: `--version` answered without the CLI, and
 * `envelopes create --dry-run` reading its inputs once when it shows no line per input.
 * (Timings live in bench/startup.mjs; nothing here measures time.)
 */
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';

const EXAMPLE = JSON.parse(readFileSync(join(ROOT, 'examples', 'envelope.json'), 'utf8')) as Record<string, unknown>;
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

function ndjson(n: number): string {
  return Array.from({ length: n }, (_, i) => JSON.stringify({ ...EXAMPLE, title: `Startup ${i}`, contract_id: `CTR-S-${i}` })).join('\n') + '\n';
}

describe('the launcher', () => {
  it.each([['--version'], ['-V']])('%s prints the package version', async (flag) => {
    const result = await runCli([flag]);
    expect(result).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('--version among other arguments still goes through the CLI', async () => {
    const result = await runCli(['--no-color', '--version']);
    expect(result).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it('runs the bundle, whose chunks are loaded only when needed', () => {
    // What main.js loads before anything runs: its static imports, and theirs. The other
    // chunks are reached only through import(), when a command needs them.
    const dir = join(ROOT, 'dist', 'cli');
    const chunks = readdirSync(dir).filter((f) => /^chunk-[\w-]+\.js$/.test(f));
    const eager = new Set<string>();
    const visit = (file: string): void => {
      const code = readFileSync(join(dir, file), 'utf8');
      for (const [, chunk] of code.matchAll(/(?:^|[;}\s])(?:import|export)\s*(?:[\w${},*\s]+from\s*)?"\.\/(chunk-[\w-]+\.js)"/g)) {
        if (!eager.has(chunk!)) {
          eager.add(chunk!);
          visit(chunk!);
        }
      }
    };
    visit('main.js');
    const dynamic = chunks.filter((chunk) => readFileSync(join(dir, chunk), 'utf8').match(/import\("\.\/chunk-[\w-]+\.js"\)/));
    expect(eager.size).toBeGreaterThan(0);
    expect(dynamic.length).toBeGreaterThan(0);
    expect(eager.size).toBeLessThan(chunks.length / 4);
  });
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
    const result = await runCli(['envelopes', 'create', '--ndjson', '-f', fifo, '--dry-run'], { timeoutMs: 15_000 }).finally(() => writer.kill());
    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('dry run: 60 envelopes valid, nothing sent (would POST to http://127.0.0.1:4010/api/v1/envelopes)');
  });

  it('with 50 inputs or fewer, names each one, in order', async () => {
    const dir = tempDir();
    const file = join(dir, 'three.ndjson');
    writeFileSync(file, ndjson(3));
    const result = await runCli(['envelopes', 'create', '--ndjson', '-f', file, '--dry-run']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([1, 2, 3].map((n) => `✓ ${file}:${n}: valid; would POST to http://127.0.0.1:4010/api/v1/envelopes`));
    expect(result.stderr).toContain('dry run: 3 envelopes valid, nothing sent');
  });

  it('with --json, prints every envelope as it would be sent', async () => {
    const dir = tempDir();
    const file = join(dir, 'many.ndjson');
    writeFileSync(file, ndjson(55));
    const result = await runCli(['envelopes', 'create', '--ndjson', '-f', file, '--dry-run', '--json']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { input: string; status: string; envelope: { title: string } });
    expect(lines).toHaveLength(55);
    expect(lines[54]).toMatchObject({ input: `${file}:55`, status: 'valid', envelope: { title: 'Startup 54' } });
  });
});
