/**
 * Envelope inputs are bounded while they are read, by the service's request
 * size limit: a JSON file, JSON on stdin and each NDJSON line past it are
 * refused with exit 2 and one line naming the input, nothing sent; a line is
 * never held whole past the limit (readline would: a 1 GB line crashed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../src/core/endpoints.js';
import { boundedLines, LineTooLongError } from '../../src/cli/input/lines.js';
import { example, workspace } from '../helpers/envelopes.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../helpers/in-process.js';

const work = workspace('sign-cli-input-bounds-');
let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.stop();
});

/** An envelope whose JSON is `bytes` long: a valid envelope with a filler field. */
function envelopeOf(bytes: number): string {
  const base = JSON.stringify({ ...example(), notes: '' });
  return base.replace('"notes":""', `"notes":"${'n'.repeat(bytes - base.length)}"`);
}

async function collect(chunks: AsyncIterable<string>, max: number): Promise<string[]> {
  const out: string[] = [];
  for await (const line of boundedLines(chunks, max)) out.push(line);
  return out;
}

async function* from(...chunks: string[]): AsyncGenerator<string> {
  yield* chunks;
}

describe('boundedLines', () => {
  it('splits as readline does: \\n, \\r\\n (also across chunks), a lone \\r, a last line without a break', async () => {
    expect(await collect(from('a\nb\r\nc\rd', '\r', '\ne\n\nf'), 100)).toEqual([
      'a',
      'b',
      'c',
      'd',
      'e',
      '',
      'f',
    ]);
    expect(await collect(from('ab', 'c\n', '\n'), 100)).toEqual(['abc', '']);
    expect(await collect(from(''), 100)).toEqual([]);
  });

  it('counts a line in UTF-8 bytes; past the bound it stops at once, naming the line, without reading on', async () => {
    expect(await collect(from('ééé\n'), 6)).toEqual(['ééé']);
    await expect(collect(from('ok\n', 'éééé\n'), 6)).rejects.toMatchObject({ line: 2, maxBytes: 6 });
    let pulled = 0;
    async function* endless(): AsyncGenerator<string> {
      yield '{"title":"short"}\n';
      for (;;) {
        pulled++;
        yield 'x'.repeat(65_536);
      }
    }
    const error = await collect(endless(), MAX_BODY_BYTES).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LineTooLongError);
    expect((error as LineTooLongError).line).toBe(2);
    expect(pulled).toBe(MAX_BODY_BYTES / 65_536 + 1);
  });
});

describe('envelope inputs past the service limit', () => {
  it('an NDJSON line one byte over the limit: exit 2, one line naming file:line and the limit, nothing sent', async () => {
    const file = work.write(
      'long-line.ndjson',
      `${JSON.stringify(example())}\n${envelopeOf(MAX_BODY_BYTES + 1)}\n`,
    );
    const validated = await runCommand(['envelopes', 'validate', '--ndjson', file], { env: sandbox.env });
    expect(validated.code).toBe(2);
    expect(validated.stderr).toBe(
      `error: ${file}:2: the line is longer than 1 MiB (1,048,576 bytes), the most one envelope may be (the service takes no larger request); nothing was sent (hint: one envelope per line: look for a huge field or a line break missing between envelopes)\n`,
    );
    const before = await sandbox.envelopeCount();
    const created = await runCommand(['envelopes', 'create', '--ndjson', '-f', '-'], {
      env: sandbox.env,
      input: `${JSON.stringify(example())}\n${envelopeOf(MAX_BODY_BYTES + 1)}\n`,
    });
    expect(created.code).toBe(2);
    expect(created.stderr).toMatch(/^error: -:2: the line is longer than 1 MiB/);
    expect(await sandbox.envelopeCount()).toBe(before);
  });

  it('a JSON file or JSON on stdin one byte over the limit: exit 2, one line naming it, nothing sent', async () => {
    const file = work.write('big.json', envelopeOf(MAX_BODY_BYTES + 1));
    const validated = await runCommand(['envelopes', 'validate', file], { env: sandbox.env });
    expect(validated.code).toBe(2);
    expect(validated.stderr).toBe(
      `error: ${file}: larger than 1 MiB (1,048,576 bytes), the most one envelope may be (the service takes no larger request); nothing was sent\n`,
    );
    const before = await sandbox.envelopeCount();
    const created = await runCommand(['envelopes', 'create', '-f', '-'], {
      env: sandbox.env,
      input: envelopeOf(MAX_BODY_BYTES + 1),
    });
    expect(created.code).toBe(2);
    expect(created.stderr).toMatch(/^error: stdin: larger than 1 MiB \(1,048,576 bytes\)/);
    expect(await sandbox.envelopeCount()).toBe(before);
  });

  it('a --template one byte over the limit: exit 2, one line naming it, nothing sent', async () => {
    const csv = work.write('recipients.csv', 'name,email\nLayla Haddad,layla@example.com\n');
    const template = work.write('big-template.json', envelopeOf(MAX_BODY_BYTES + 1));
    const before = await sandbox.envelopeCount();
    const created = await runCommand(['envelopes', 'create', '--csv', csv, '--template', template], {
      env: sandbox.env,
    });
    expect(created.code).toBe(2);
    expect(created.stderr).toBe(
      `error: --template ${template}: larger than 1 MiB (1,048,576 bytes), the most one envelope may be (the service takes no larger request); nothing was sent\n`,
    );
    expect(await sandbox.envelopeCount()).toBe(before);
  });
});
