/**
 * A corpus of invalid envelope documents, each given to the built CLI as a
 * careless user or an attacker would: every one must exit 2 with one-line
 * messages that name the field (or the line and column of broken JSON), show
 * no raw control character, and send nothing: the API it points at is a
 * recording server that must receive no request at all.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, type CliResult } from '../helpers/cli.js';
import { recordFigures } from './figures.js';
import { baseEnvelope } from './support.js';

type Envelope = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Case = [name: string, content: string | Buffer | ((e: Envelope) => void), expected: RegExp];

const deepArray = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const raw = (mutate: (text: string) => string) => mutate(JSON.stringify(baseEnvelope(), null, 2));
let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;

const CASES: Case[] = [
  // Types
  ['title-number', (e) => (e.title = 5), /title: must be a non-empty string, got the number 5/],
  ['title-null', (e) => (e.title = null), /title: must be a non-empty string, got null/],
  ['title-empty', (e) => (e.title = ''), /title: must not be empty/],
  ['title-spaces', (e) => (e.title = '   '), /title: must not be empty/],
  ['title-array', (e) => (e.title = ['Lease']), /title: must be a non-empty string, got an array/],
  ['title-object', (e) => (e.title = { text: 'Lease' }), /title: must be a non-empty string, got an object/],
  ['title-missing', (e) => delete e.title, /title: is required/],
  ['contract-id-number', (e) => (e.contract_id = 42), /contract_id: must be a non-empty string/],
  ['contract-id-empty', (e) => (e.contract_id = ''), /contract_id: must not be empty/],
  ['document-missing', (e) => delete e.document, /document: is required/],
  [
    'document-string',
    (e) => (e.document = 'tpl_lease'),
    /document: must be an object with template_id and version/,
  ],
  ['template-missing', (e) => delete e.document.template_id, /document\.template_id: is required/],
  [
    'template-number',
    (e) => (e.document.template_id = 7),
    /document\.template_id: must be a non-empty string/,
  ],
  ['version-zero', (e) => (e.document.version = 0), /document\.version: must be a positive integer/],
  ['version-negative', (e) => (e.document.version = -1), /document\.version: must be a positive integer/],
  [
    'version-fraction',
    (e) => (e.document.version = 1.5),
    /document\.version: must be a positive integer, got the number 1\.5/,
  ],
  [
    'version-string',
    (e) => (e.document.version = '3'),
    /document\.version: must be a positive integer, got the string "3"/,
  ],
  ['version-null', (e) => (e.document.version = null), /document\.version: must be a positive integer/],
  ['signers-missing', (e) => delete e.signers, /signers: is required/],
  ['signers-empty', (e) => (e.signers = []), /signers: must list at least one signer/],
  ['signers-object', (e) => (e.signers = e.signers[0]), /signers: must be an array of signer objects/],
  ['signer-string', (e) => (e.signers[0] = 'Layla'), /signers\[0\]: must be a signer object/],
  ['signer-null', (e) => (e.signers[1] = null), /signers\[1\]: must be a signer object/],
  ['signer-name-missing', (e) => delete e.signers[0].name, /signers\[0\]\.name: is required/],
  ['signer-name-empty', (e) => (e.signers[0].name = ''), /signers\[0\]\.name: must not be empty/],
  ['signer-name-number', (e) => (e.signers[1].name = 12), /signers\[1\]\.name: must be a non-empty string/],
  ['channel-missing', (e) => delete e.signers[0].channel, /signers\[0\]\.channel: is required/],
  ['channel-number', (e) => (e.signers[0].channel = 1), /signers\[0\]\.channel: must be a channel name/],
  ['channel-empty', (e) => (e.signers[1].channel = ' '), /signers\[1\]\.channel: must not be empty/],
  ['sequential-string', (e) => (e.sequential = 'yes'), /sequential: must be true or false/],
  ['sequential-number', (e) => (e.sequential = 1), /sequential: must be true or false/],
  ['level-number', (e) => (e.signature_level = 2), /signature_level: must be a signature level name/],
  ['level-empty', (e) => (e.signature_level = ''), /signature_level: must not be empty/],
  ['expiry-zero', (e) => (e.expires_in_days = 0), /expires_in_days: must be a positive integer/],
  ['expiry-negative', (e) => (e.expires_in_days = -5), /expires_in_days: must be a positive integer/],
  ['expiry-fraction', (e) => (e.expires_in_days = 2.5), /expires_in_days: must be a positive integer/],
  ['expiry-string', (e) => (e.expires_in_days = '14'), /expires_in_days: must be a positive integer/],
  ['locale-number', (e) => (e.locale = 1), /locale: must be a language code/],
  ['locale-empty', (e) => (e.locale = ''), /locale: must not be empty/],
  [
    'verification-number',
    (e) => (e.signers[0].verification = 3),
    /signers\[0\]\.verification: must be a verification method name/,
  ],
  [
    'verification-empty',
    (e) => (e.signers[0].verification = ''),
    /signers\[0\]\.verification: must not be empty/,
  ],
  // Contacts
  [
    'email-missing',
    (e) => delete e.signers[0].email,
    /signers\[0\]\.email: is required when channel is "email"/,
  ],
  [
    'email-no-at',
    (e) => (e.signers[0].email = 'layla.example.com'),
    /signers\[0\]\.email: must be an e-mail address/,
  ],
  [
    'email-no-dot',
    (e) => (e.signers[0].email = 'layla@example'),
    /signers\[0\]\.email: must be an e-mail address/,
  ],
  [
    'email-space',
    (e) => (e.signers[0].email = 'lay la@example.com'),
    /signers\[0\]\.email: must be an e-mail address/,
  ],
  [
    'email-number',
    (e) => (e.signers[0].email = 5),
    /signers\[0\]\.email: must be an e-mail address, got the number 5/,
  ],
  [
    'phone-missing',
    (e) => delete e.signers[1].phone,
    /signers\[1\]\.phone: is required when channel is "whatsapp"/,
  ],
  // Phones
  [
    'phone-local',
    (e) => (e.signers[1].phone = '0501234567'),
    /signers\[1\]\.phone: is a national number .*add the country code/,
  ],
  [
    'phone-invalid-for-country',
    (e) => (e.signers[1].phone = '+971 50 123 456'),
    /signers\[1\]\.phone: is not a valid number for its country code/,
  ],
  [
    'phone-zero-country',
    (e) => (e.signers[1].phone = '+0501234567'),
    /signers\[1\]\.phone: must be an international phone number/,
  ],
  [
    'phone-short',
    (e) => (e.signers[1].phone = '+12345'),
    /signers\[1\]\.phone: must be an international phone number/,
  ],
  [
    'phone-long',
    (e) => (e.signers[1].phone = '+1234567890123456'),
    /signers\[1\]\.phone: must be an international phone number/,
  ],
  [
    'phone-no-plus',
    (e) => (e.signers[1].phone = '971501234567'),
    /signers\[1\]\.phone: has digits but no \+/,
  ],
  [
    'phone-letters',
    (e) => (e.signers[1].phone = '+97150abc4567'),
    /signers\[1\]\.phone: must be an international phone number/,
  ],
  [
    'phone-spreadsheet',
    (e) => (e.signers[1].phone = '9.71501E+11'),
    /signers\[1\]\.phone: was stored by a spreadsheet as a number/,
  ],
  [
    'email-zero-width',
    (e) => (e.signers[0].email = 'layla@example.com\u200b'),
    /signers\[0\]\.email: contains an invisible zero width space \(U\+200B\)/,
  ],
  [
    'channel-case',
    (e) => (e.signers[0].channel = 'Email'),
    /signers\[0\]\.channel: "Email" is not a known channel; did you mean "email"\?/,
  ],
  [
    'phone-number',
    (e) => (e.signers[1].phone = 971501234567),
    /signers\[1\]\.phone: must be a phone number in international form, got the number/,
  ],
  // URLs
  ['url-words', (e) => (e.webhook_url = 'not a url'), /webhook_url: must be an absolute http\(s\) URL/],
  [
    'url-ftp',
    (e) => (e.webhook_url = 'ftp://example.com/hooks'),
    /webhook_url: must be an absolute http\(s\) URL/,
  ],
  ['url-relative', (e) => (e.webhook_url = '/hooks'), /webhook_url: must be an absolute http\(s\) URL/],
  [
    'url-javascript',
    (e) => (e.webhook_url = 'javascript:alert(1)'),
    /webhook_url: must be an absolute http\(s\) URL/,
  ],
  [
    'url-number',
    (e) => (e.webhook_url = 80),
    /webhook_url: must be an absolute http\(s\) URL, got the number 80/,
  ],
  ['url-no-host', (e) => (e.webhook_url = 'http://'), /webhook_url: must be an absolute http\(s\) URL/],
  // Orders
  [
    'order-missing',
    (e) => delete e.signers[1].order,
    /signers\[1\]\.order: is required when sequential is true/,
  ],
  [
    'order-duplicate',
    (e) => (e.signers[1].order = 1),
    /signers\[1\]\.order: duplicates the order of signers\[0\]/,
  ],
  ['order-zero', (e) => (e.signers[0].order = 0), /signers\[0\]\.order: must be an integer from 1/],
  ['order-negative', (e) => (e.signers[0].order = -1), /signers\[0\]\.order: must be an integer from 1/],
  ['order-fraction', (e) => (e.signers[0].order = 1.5), /signers\[0\]\.order: must be an integer from 1/],
  [
    'order-string',
    (e) => (e.signers[0].order = '1'),
    /signers\[0\]\.order: must be an integer from 1, got the string "1"/,
  ],
  // Huge strings and arrays
  [
    'huge-title',
    (e) => (e.title = 'x'.repeat(20_000)),
    /title: must be at most 10,000 characters, got 20,000/,
  ],
  [
    'huge-contract-id',
    (e) => (e.contract_id = 'C'.repeat(50_000)),
    /contract_id: must be at most 10,000 characters/,
  ],
  [
    'huge-signer-name',
    (e) => (e.signers[0].name = 'n'.repeat(100_000)),
    /signers\[0\]\.name: must be at most 10,000 characters/,
  ],
  [
    'huge-signers',
    (e) =>
      (e.signers = Array.from({ length: 1001 }, (_, i) => ({
        name: `S${i}`,
        channel: 'email',
        email: `s${i}@example.com`,
        order: i + 1,
      }))),
    /signers: must list at most 1,000 signers, got 1,001/,
  ],
  // Refused by its size before it is read: a file past the service's 1 MiB limit is never parsed.
  [
    'huge-unknown-field',
    (e) => (e.notes = 'z'.repeat(2 * 1024 * 1024)),
    /huge-unknown-field\.json: larger than 1 MiB \(1,048,576 bytes\), the most one envelope may be/,
  ],
  [
    'huge-url',
    (e) => (e.webhook_url = `https://example.com/${'p'.repeat(20_000)}`),
    /webhook_url: must be at most 10,000 characters/,
  ],
  // Deep nesting
  [
    'deep-title',
    `{"title":${'['.repeat(100_000)}`,
    /invalid JSON at line 1, column \d+: nested deeper than 64 levels/,
  ],
  [
    'deep-unknown',
    raw((t) => t.replace(/}\s*$/, `,"extra":${deepArray(5000)}}`)),
    /nested deeper than 64 levels/,
  ],
  [
    'deep-objects',
    raw((t) => t.replace(/}\s*$/, `,"extra":${'{"a":'.repeat(40)}1${'}'.repeat(40)}}`)),
    /extra(\.a)+: nested deeper than 32 levels/,
  ],
  // Duplicate keys
  [
    'dup-title',
    '{"title":5,"title":"Lease","document":{"template_id":"t","version":1},"signers":[{"name":"A","channel":"email","email":"a@example.com"}]}',
    /invalid JSON at line 1, column 12: duplicate key "title"/,
  ],
  [
    'dup-channel',
    raw((t) => t.replace('"channel": "whatsapp"', '"channel": "whatsapp", "channel": "email"')),
    /duplicate key "channel" \(first at line \d+, column \d+\)/,
  ],
  ['dup-escaped', raw((t) => t.replace('"title":', '"t\\u0069tle": "x", "title":')), /duplicate key "title"/],
  [
    'dup-version',
    raw((t) => t.replace('"version": 3', '"version": 3, "version": 4')),
    /duplicate key "version"/,
  ],
  // BOM, binary, empty, not JSON
  ['double-bom', `\ufeff\ufeff${JSON.stringify(baseEnvelope())}`, /invalid JSON at line 1, column 1/],
  // UTF-16 with a BOM is read (the encodings a spreadsheet writes); another code page is refused, named.
  [
    'windows-1256',
    Buffer.from(
      JSON.stringify({ ...baseEnvelope(), title: 'عقد' }).replace(/[^\x00-\x7f]/g, '?'),
      'latin1',
    ).fill(0xd9, 12, 13),
    /not UTF-8 text \(from line 1\)/,
  ],
  [
    'binary',
    Buffer.from(Array.from({ length: 512 }, () => Math.floor(random() * 256))),
    /invalid JSON at line \d+, column \d+|not UTF-8 text/,
  ],
  ['empty', '', /invalid JSON at line 1, column 1: the input is empty/],
  ['whitespace', '  \n \n', /the input is empty/],
  ['nan', raw((t) => t.replace('"version": 3', '"version": NaN')), /invalid JSON at line \d+, column \d+/],
  [
    'infinity',
    raw((t) => t.replace('"version": 3', '"version": Infinity')),
    /invalid JSON at line \d+, column \d+/,
  ],
  ['trailing-comma', raw((t) => t.replace(/\n}\s*$/, ',\n}')), /invalid JSON at line \d+, column 1/],
  ['comment', raw((t) => t.replace('{', '{ // the lease\n')), /invalid JSON at line 1, column 3/],
  ['single-quotes', "{'title': 'Lease'}", /invalid JSON at line 1, column 2/],
  ['truncated', raw((t) => t.slice(0, Math.floor(t.length / 2))), /invalid JSON at line \d+, column \d+/],
  ['nul-byte', raw((t) => t.replace('"title"', '"ti\u0000tle"')), /invalid JSON at line \d+, column \d+/],
  [
    'escape-bytes',
    '{"title":\u001b]0;PWNED\u0007 }',
    /invalid JSON at line 1, column 10: unexpected token '\\u001b'/,
  ],
  ['top-array', JSON.stringify([baseEnvelope()]), /must be a JSON object \(an envelope\), got an array/],
  ['top-string', '"an envelope"', /must be a JSON object \(an envelope\), got the string/],
  ['top-null', 'null', /must be a JSON object \(an envelope\), got null/],
  ['top-number', '42', /must be a JSON object \(an envelope\), got the number 42/],
];

let recorder: Server;
let requests = 0;
let baseUrl: string;
const dir = tempDir('sign-cli-corpus-');

beforeAll(async () => {
  recorder = createServer((req, res) => {
    requests++;
    req.resume();
    res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":"env_should_never_happen"}');
  });
  await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;
});
afterAll(async () => {
  recorder.closeAllConnections();
  await new Promise((resolve) => recorder.close(resolve));
});

function write([name, content]: Case): string {
  const path = join(dir, `${name}.json`);
  if (typeof content === 'function') {
    const envelope = baseEnvelope() as Envelope;
    envelope.webhook_url = 'https://example.com/hooks';
    content(envelope);
    writeFileSync(path, JSON.stringify(envelope, null, 2));
  } else writeFileSync(path, content);
  return path;
}

describe('a corpus of invalid envelopes', () => {
  it(`each of ${CASES.length} exits 2 with one-line messages naming the field, and nothing reaches the API`, async () => {
    expect(CASES.length).toBeGreaterThanOrEqual(80);
    const env = { SIGN_BASE_URL: baseUrl, SIGN_API_KEY: 'sk_test_CorpusKeyNeverSent0000000' };
    const results: [Case, CliResult][] = [];
    const queue = [...CASES];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          results.push([next, await runCli(['envelopes', 'create', '-f', write(next)], { env })]);
        }
      }),
    );
    const failures: string[] = [];
    for (const [[name, , expected], result] of results) {
      const lines = result.stderr.split('\n').filter(Boolean);
      const problems = [
        result.code !== 2 && `exit ${result.code}`,
        !expected.test(result.stderr) && `no match for ${expected}`,
        /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(result.stderr) && 'a raw control character',
        lines.some((l) => l.length > 1000) && 'a line over 1,000 characters',
        !lines.some((l) => l.startsWith('error: ')) && 'no error line',
        result.stdout !== '' && 'output on stdout',
      ].filter(Boolean);
      if (problems.length > 0)
        failures.push(`${name}: ${problems.join(', ')}\n${result.stderr.slice(0, 600)}`);
    }
    recordFigures('corpus', {
      'invalid documents': CASES.length,
      'exited 2 naming the field': CASES.length - failures.length,
      'requests reaching the API': requests,
    });
    expect(failures).toEqual([]);
    expect(requests).toBe(0);
  });
});
