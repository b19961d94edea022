/**
 * A new user's first hour, at an 80-column terminal: the README's by-hand
 * flow (sandbox, sample, validate, create twice, get, list, watch, download,
 * verify, audit, keys list, doctor, a listener and a trigger, the outbox, a
 * mistyped choice, a forgotten argument, and the help of each command), in
 * process on a fake terminal 80 columns wide. Every line fits, and no line
 * break falls inside a word or an id (test/helpers/terminal-fit.ts): judged
 * against the same commands run on a terminal wide enough that nothing is
 * fitted.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, startCommand, startListener, type TestListener } from '../helpers/in-process.js';
import { tempDir } from '../helpers/paths.js';
import { fitProblems, wordsIn } from '../helpers/terminal-fit.js';

const WIDTH = 80;
/** Wide enough that no table is cut and no line wrapped: the reference words. */
const WIDE = 100_000;

const work = tempDir('sign-cli-first-hour-');
const dataDir = join(work, 'sandbox');
let env: Record<string, string> = {};
let sandbox: ReturnType<typeof startCommand> | undefined;
let listener: TestListener | undefined;
let id = '';

/** What each step printed at 80 columns, and at the reference width. */
const narrow = new Map<string, string>();
const wide: string[] = [];

/** A step at 80 columns, then (when `again`) once more at the reference width, in the same state. */
async function step(name: string, args: string[], options: { again?: boolean; code?: number } = {}) {
  const result = await runCommand(args, { env, tty: true, columns: WIDTH });
  expect(result.code, `${name}: ${result.stderr}`).toBe(options.code ?? 0);
  narrow.set(name, result.stdout + result.stderr);
  if (options.again !== false) {
    const reference = await runCommand(args, { env, tty: true, columns: WIDE });
    wide.push(reference.stdout + reference.stderr);
  }
  return result;
}

beforeAll(async () => {
  // The sandbox as the README starts it, in the foreground here; its start-up lines are a step.
  sandbox = startCommand(['sandbox', '--port', '0', '--speed', '40', '--data-dir', dataDir], {
    tty: true,
    columns: WIDTH,
  });
  await sandbox.waitFor('Ctrl-C stops it', 60_000);
  narrow.set('sandbox', sandbox.io.stdout.text + sandbox.io.stderr.text);
  const reference = startCommand(['sandbox', '--port', '0', '--data-dir', join(work, 'wide')], {
    tty: true,
    columns: WIDE,
  });
  await reference.waitFor('Ctrl-C stops it', 60_000);
  reference.interrupt();
  const stopped = await reference.done;
  wide.push(stopped.stdout + stopped.stderr);
  // The credentials.env the README sources.
  env = Object.fromEntries(
    [
      ...readFileSync(join(dataDir, 'credentials.env'), 'utf8').matchAll(/^export (\w+)=["']?([^"'\n]*)/gm),
    ].map((m) => [m[1]!, m[2]!]),
  );
  // One state directory for every step, as a person's: the second create finds the first in the journal.
  env.SIGN_STATE_DIR = join(work, 'state');
  listener = await startListener([], env, { tty: true, columns: WIDTH });
});

afterAll(async () => {
  await listener?.stop();
  sandbox?.interrupt();
  await sandbox?.done;
});

describe('the first hour, at 80 columns', () => {
  it('runs the README flow with every line whole at 80 columns', async () => {
    const envelope = join(work, 'envelope.json');
    const sample = await step('sample', ['envelopes', 'sample']);
    writeFileSync(
      envelope,
      JSON.stringify({ ...JSON.parse(sample.stdout), webhook_url: `${listener!.url}/webhooks` }, null, 2),
    );
    await step('validate', ['envelopes', 'validate', envelope]);
    const created = await runCommand(['envelopes', 'create', '-f', envelope, '--query', 'envelope.id'], {
      env,
    });
    expect(created.code, created.stderr).toBe(0);
    id = created.stdout.trim();
    const again = await step('create again', ['envelopes', 'create', '-f', envelope]);
    // Its line keeps the file's name and what happened, wrapped rather than cut.
    expect(again.stdout.replace(/\n +/g, ' ')).toMatch(
      new RegExp(
        `^= \\S*/envelope\\.json: already created ${id} in test by an earlier run; not sent again \\(--new creates another\\)$`,
        'm',
      ),
    );
    await step('get', ['envelopes', 'get', id]);
    await step('list', ['envelopes', 'list', '--since', '1h']);
    await step('watch', ['envelopes', 'watch', id, '--interval', '0.1']);
    const signed = join(work, 'signed.pdf');
    await step('download', ['envelopes', 'download', id, '-o', signed]);
    const verified = await step('verify', ['envelopes', 'verify', signed], { code: 1 });
    // The table says why each ✗ failed, whole (wrapped under its column), as a pipe shows it.
    const piped = await runCommand(['envelopes', 'verify', signed], { env });
    const reasons = [...piped.stdout.matchAll(/ ✗ {2}(.+)$/gm)].map((m) => m[1]!);
    expect(reasons.length).toBeGreaterThan(0);
    const table = verified.stdout.slice(0, verified.stdout.indexOf('REVISION')).replace(/\s+/g, ' ');
    for (const reason of reasons) expect(table).toContain(reason);
    await step('verify trusted', [
      'envelopes',
      'verify',
      signed,
      '--trust',
      join(dataDir, 'ca.pem'),
      '--envelope',
      id,
    ]);
    await step('verify with no file', ['envelopes', 'verify'], { code: 2 });
    await step('audit', ['envelopes', 'audit', id, '--verify']);
    await step('keys list', ['keys', 'list']);
    await step('doctor', ['doctor']);
    await step('trigger', ['webhooks', 'trigger', 'envelope.completed', '--to', listener!.url], {
      again: false,
    });
    await step('outbox', ['sandbox', 'outbox']);
    await step('a mistyped choice', ['sandbox', '--journey', 'manul'], { code: 2 });
    for (const command of [
      ['sandbox'],
      ['envelopes', 'sample'],
      ['envelopes', 'validate'],
      ['envelopes', 'create'],
      ['envelopes', 'get'],
      ['envelopes', 'list'],
      ['envelopes', 'watch'],
      ['envelopes', 'download'],
      ['envelopes', 'verify'],
      ['envelopes', 'audit'],
      ['keys', 'list'],
      ['doctor'],
      ['webhooks', 'listen'],
      ['webhooks', 'trigger'],
      ['sandbox', 'outbox'],
    ])
      await step(`${command.join(' ')} --help`, [...command, '--help']);
    await listener!.waitForStdout((lines) => lines.some((line) => line.includes('envelope.completed')));
    narrow.set('listener', [...listener!.stdout, ...listener!.stderr].join('\n'));

    const words = wordsIn(wide);
    const problems = [...narrow].flatMap(([name, text]) =>
      fitProblems(text, WIDTH, words).map((problem) => `${name}: ${problem}`),
    );
    expect(problems).toEqual([]);
  });
});
