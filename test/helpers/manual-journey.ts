/**
 * The manual journey driven over HTTP without a browser (test/sandbox/ceremony*.test.ts): an
 * envelope made through the API, the links and messages its signers get, their visits
 * (helpers/ceremony.ts), and the events a receiver got for it.
 */
import { request } from 'node:http';
import { expect } from 'vitest';
import { Visitor, eventually, outboxOf, type Visit } from './ceremony.js';
import type { TestSandbox } from './in-process.js';
import { eventTypes, type Receiver } from './receiver.js';

export interface EnvelopeJson {
  status: string;
  signers: { status: string; decline_reason?: string }[];
}
export interface LinksJson {
  journey: string;
  signers: { link: string; turn: boolean }[];
}
export interface EventJson {
  type: string;
  data: { envelope_id: string; reason?: string };
}

/** A two-signer lease: Layla (UAE PASS, e-mail) first, then Omar (WhatsApp); events to `webhookUrl`. */
export const leaseBody = (webhookUrl: string | undefined, overrides: Record<string, unknown> = {}) => ({
  title: 'Office lease renewal 2027',
  contract_id: `CTR-${crypto.randomUUID()}`,
  document: { template_id: 'tpl_lease_renewal', version: 3 },
  signers: [
    {
      name: 'Layla Haddad',
      email: 'layla@example.com',
      channel: 'email',
      order: 1,
      verification: 'uae_pass',
    },
    { name: 'Omar Khalil', phone: '+971501234567', channel: 'whatsapp', order: 2 },
  ],
  sequential: true,
  locale: 'en',
  webhook_url: webhookUrl,
  ...overrides,
});

export async function create(sandbox: TestSandbox, input: unknown, apiKey = sandbox.apiKey): Promise<string> {
  const response = await fetch(`${sandbox.baseUrl}/api/v1/envelopes`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      'idempotency-key': crypto.randomUUID(),
    },
    body: JSON.stringify(input),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

export async function envelope(sandbox: TestSandbox, id: string): Promise<EnvelopeJson> {
  const response = await fetch(`${sandbox.baseUrl}/api/v1/envelopes/${id}`, {
    headers: { authorization: `Bearer ${sandbox.apiKey}` },
  });
  return (await response.json()) as EnvelopeJson;
}

export async function links(sandbox: TestSandbox, id: string, apiKey = sandbox.apiKey) {
  const response = await fetch(`${sandbox.baseUrl}/_sandbox/envelopes/${id}/links`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  return { status: response.status, body: (await response.json()) as LinksJson };
}

/** The events `receiver` got for one envelope, in order. */
export const eventsFor = (receiver: Receiver, id: string): EventJson[] =>
  receiver.deliveries
    .map((d) => JSON.parse(d.body) as EventJson)
    .filter((event) => event.data.envelope_id === id);

/** The event types delivered for one envelope, in order. */
export const eventsOf = (receiver: Receiver, id: string): string[] =>
  eventTypes(receiver.deliveries.filter((d) => (JSON.parse(d.body) as EventJson).data.envelope_id === id));

export async function invitation(sandbox: TestSandbox, id: string, to: string) {
  return eventually(async () =>
    (await outboxOf(sandbox.baseUrl, sandbox.apiKey, id)).find((m) => m.kind === 'invitation' && m.to === to),
  );
}

export const pathOf = (link: string) => new URL(link).pathname;

/** A form POSTed with exactly these headers (fetch may add its own; node:http adds none). */
export function rawPost(
  baseUrl: string,
  path: string,
  cookie: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const form = new URLSearchParams(fields).toString();
  return new Promise((resolve, reject) => {
    request(
      `${baseUrl}${path}`,
      {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      },
    )
      .on('error', reject)
      .end(form);
  });
}

/** Layla verifies in the ID app and signs; then Omar signs. */
export async function signAll(sandbox: TestSandbox, id: string): Promise<void> {
  const layla = new Visitor(sandbox.baseUrl);
  const first = await invitation(sandbox, id, 'layla@example.com');
  const page = await layla.get(pathOf(first.link!));
  expect(page.html).toContain('Verify with UAE PASS');
  const verifying = await layla.post(`${pathOf(first.link!)}/verify`, {
    csrf: Visitor.csrf(page.html),
    lang: 'en',
  });
  const shown = /id="id-number">(\d+)</.exec(verifying.html)![1]!;
  const request = (await outboxOf(sandbox.baseUrl, sandbox.apiKey, id)).find((m) => m.kind === 'id_request')!;
  expect(request).toMatchObject({ channel: 'app', to: 'Layla Haddad' });
  const phone = new Visitor(sandbox.baseUrl);
  const app = await phone.get(pathOf(request.link!));
  const choices = [...app.html.matchAll(/name="choice" value="(\d+)"/g)].map((m) => m[1]);
  expect(choices).toHaveLength(3);
  expect(choices).toContain(shown);
  const done = await phone.post(pathOf(request.link!), {
    csrf: Visitor.csrf(app.html),
    choice: shown,
    lang: 'en',
  });
  // The app hands the person back to the signing page, at their next step: their signature.
  expect(done.html).toContain('Step 2 of 3');
  expect(done.html).toContain('Your name, as your signature');
  await adoptAndSign(layla, pathOf(first.link!), 'Layla Haddad');

  const omar = new Visitor(sandbox.baseUrl);
  const second = await invitation(sandbox, id, '+971501234567');
  await adoptAndSign(omar, pathOf(second.link!), 'Omar Khalil');
}

/** A signer types their name as their signature, sees it shown back, and signs with it. */
export async function adoptAndSign(visitor: Visitor, link: string, typed: string): Promise<Visit> {
  const page = await visitor.get(link);
  const adopted = await visitor.post(`${link}/signature`, {
    csrf: Visitor.csrf(page.html),
    kind: 'typed',
    typed,
    lang: 'en',
  });
  expect(adopted.html).toContain('Your signature, as it will appear on the document');
  expect(adopted.html).toContain(
    `class="signature-typed" dir="auto" role="img" aria-label="Your signature">${typed}</p>`,
  );
  const signed = await visitor.post(`${link}/sign`, {
    csrf: Visitor.csrf(adopted.html),
    consent: 'yes',
    lang: 'en',
  });
  expect(signed.html).toMatch(/You have signed|Everyone has signed/);
  return signed;
}
