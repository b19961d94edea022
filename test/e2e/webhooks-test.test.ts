/**
 * `webhooks test` as CI runs it: the built binary, spawned, against a
 * receiver behind a spawned `webhooks listen --forward-to`, and against a
 * faulty receiver; the exit code and the JUnit file are what the job reads.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { startListenerProcess, type ListenerProcess } from '../helpers/listener.js';
import { startTestReceiver, type TestReceiver } from '../helpers/webhook-receivers.js';
import { SECRET } from '../helpers/webhook-events.js';

const env = { SIGN_WEBHOOK_SECRET: SECRET };
const work = tempDir('sign-cli-webhooks-test-');
let reference: TestReceiver;
let faulty: TestReceiver;
let listener: ListenerProcess;

beforeAll(async () => {
  reference = await startTestReceiver({ secret: SECRET });
  faulty = await startTestReceiver({ secret: SECRET, fault: 'fails-on-unknown-type' });
  listener = await startListenerProcess(['--forward-to', reference.url], env);
});

afterAll(async () => {
  await listener?.stop();
  await reference?.close();
  await faulty?.close();
});

const report = (file: string) => {
  const xml = readFileSync(file, 'utf8');
  expect(XMLValidator.validate(xml)).toBe(true);
  return new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml).testsuites as {
    tests: string;
    failures: string;
    testsuite: { testcase: { classname: string; failure?: { message: string } }[] };
  };
};

describe('webhooks test, spawned', () => {
  it('passes a receiver behind webhooks listen --forward-to: exit 0, a JUnit file with 11 passing testcases', async () => {
    const file = join(work, 'pass.xml');
    const result = await runCli(['webhooks', 'test', `${listener.url}/hooks`, '--junit', file], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^11 passed, 0 failed in \d+\.\d s: http:\/\/127\.0\.0\.1:\d+\/hooks \(standard scheme\)$/m,
    );
    const suites = report(file);
    expect(suites).toMatchObject({ tests: '11', failures: '0' });
    expect(reference.handled.length).toBeGreaterThan(13 + 50);
  });

  it('fails a receiver that answers 500 to an event type it does not know: exit 1, one failure saying what came back', async () => {
    const file = join(work, 'fail.xml');
    const result = await runCli(['webhooks', 'test', faulty.url, '--junit', file], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /ignores what it does not know .*unknown type signer\.reassigned → 500; unknown fields → 200 .*FAIL/,
    );
    const suites = report(file);
    expect(suites).toMatchObject({ tests: '11', failures: '1' });
    const failed = suites.testsuite.testcase.filter((c) => c.failure);
    expect(failed.map((c) => [c.classname, c.failure!.message])).toEqual([
      [
        'webhooks-test.ignores-unknown',
        'expected 2xx, not 5xx; got unknown type signer.reassigned → 500; unknown fields → 200',
      ],
    ]);
  });
});
