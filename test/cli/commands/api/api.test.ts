/** `sign-cli api`, in process against an in-process sandbox: GET, fields, POST exactly once, --paginate, --include, exit codes. */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE, example } from '../../../helpers/envelopes.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  // A limit ten times the service's, so seeding a long listing takes a moment, not 25 s.
  sandbox = await startTestSandbox({ faults: { rate_limit: 6000 } });
});
afterAll(async () => {
  await sandbox?.stop();
});
const api = (args: string[], options: { input?: string } = {}) =>
  runCommand(['api', ...args], { env: sandbox.env, ...options });

describe('api', () => {
  it('GETs a path with the key and prints the JSON; --query picks a part', async () => {
    const keys = await api(['/api/v1/api-keys']);
    expect(keys.code, keys.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(keys.stdout))).toMatch(/sk_test_\*\*\*\*/);
    expect(keys.stdout).not.toContain(sandbox.apiKey.slice(8, -4));
  });

  it('POSTs the same body twice and creates one envelope (a derived Idempotency-Key)', async () => {
    const before = await sandbox.envelopeCount();
    const body = JSON.stringify({ ...example(), contract_id: `API-${process.pid}` });
    const first = await api(['/api/v1/envelopes', '--input', '-', '--query', 'id'], { input: body });
    const second = await api(['/api/v1/envelopes', '--input', '-', '--query', 'id'], { input: body });
    expect(first.code, first.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(0);
    expect(first.stdout.trim()).toMatch(/^env_\w+$/);
    expect(second.stdout.trim()).toBe(first.stdout.trim());
    expect(await sandbox.envelopeCount()).toBe(before + 1);
  });

  it('builds a body from -f and -F fields, nested, and sends fields of a GET as the query', async () => {
    const base = example() as {
      title: string;
      document: { template_id: string; version: number };
      signers: { name: string; email: string }[];
    };
    const created = await api([
      '/api/v1/envelopes',
      '-f',
      `title=${base.title} (fields)`,
      '-f',
      `contract_id=API-F-${process.pid}`,
      '-f',
      `document.template_id=${base.document.template_id}`,
      '-F',
      `document.version=${base.document.version}`,
      '-f',
      'signers[][name]=Layla Haddad',
      '-f',
      'signers[][channel]=email',
      '-f',
      'signers[][email]=layla.haddad@example.com',
      '-F',
      'sequential=false',
      '--query',
      '[title, document.version, length(signers), sequential]',
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toEqual([`${base.title} (fields)`, base.document.version, 1, false]);
    const listed = await api([
      '/api/v1/envelopes',
      '-X',
      'GET',
      '-f',
      `contract_id=API-F-${process.pid}`,
      '--query',
      'data[].contract_id',
    ]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([`API-F-${process.pid}`]);
  });

  it('--paginate prints every envelope of a long listing once, one JSON line each', async () => {
    const sample = await runCommand(['envelopes', 'sample', '--count', '250']);
    const seeded = await runCommand(
      ['envelopes', 'create', '--ndjson', '-f', '-', '--concurrency', '16', '--rate', '6000'],
      { env: sandbox.env, input: sample.stdout },
    );
    expect(seeded.code, seeded.stderr).toBe(0);
    const total = await sandbox.envelopeCount();
    expect(total).toBeGreaterThanOrEqual(250);
    const all = await api(['/api/v1/envelopes', '--paginate', '--query', 'id']);
    expect(all.code, all.stderr).toBe(0);
    const ids = all.stdout.trim().split('\n');
    expect(ids.length).toBe(total);
    expect(new Set(ids).size).toBe(total);
  });

  it('--include prints the status line and headers; --silent prints nothing', async () => {
    const included = await api(['/api/v1/api-keys', '--include']);
    expect(included.code).toBe(0);
    expect(included.stdout).toMatch(/^HTTP 200\n/);
    expect(included.stdout).toMatch(/^content-type: application\/json/m);
    const silent = await api(['/api/v1/api-keys', '--silent']);
    expect(silent.code).toBe(0);
    expect(silent.stdout).toBe('');
  });

  it('prints a non-2xx body and exits 1, or 3 for 401/403; a URL or bad field is exit 2 and nothing is sent', async () => {
    const missing = await api(['/api/v1/envelopes/env_nope']);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/not_found|error/);
    expect(missing.stderr).toMatch(/^error: GET \/api\/v1\/envelopes\/env_nope: HTTP 404/m);
    const refused = await runCommand(['api', '/api/v1/api-keys'], {
      env: { ...sandbox.env, SIGN_API_KEY: 'sk_test_unknownunknownunknown0000' },
    });
    expect(refused.code).toBe(3);
    const before = await sandbox.envelopeCount();
    expect((await api(['https://evil.example/api/v1/envelopes'])).code).toBe(2);
    expect((await api(['/api/v1/envelopes', '-f', 'novalue'])).stderr).toMatch(/-f novalue: not key=value/);
    expect((await api(['/api/v1/envelopes', '-H', 'broken'])).code).toBe(2);
    const forged = await api(['/api/v1/envelopes', '-H', 'X-A: 1\r\nX-Forged: 2']);
    expect(forged.code).toBe(2);
    // One line: the break shown, not made.
    expect(forged.stderr.split('\n')[0]).toMatch(
      /^error: -H X-A: 1\\(r\\)?nX-Forged: 2: not "Name: value" on one line/,
    );
    expect(await sandbox.envelopeCount()).toBe(before);
  });

  it('reads -F @file as text', async () => {
    const result = await api([
      '/api/v1/envelopes',
      '-X',
      'GET',
      '-F',
      `contract_id=@${EXAMPLE}`,
      '--include',
      '--silent',
    ]);
    expect(result.code).toBe(0);
    expect(readFileSync(EXAMPLE, 'utf8').length).toBeGreaterThan(0);
  });
});
