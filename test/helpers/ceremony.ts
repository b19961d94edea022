/**
 * A signer's visit without a browser: a cookie jar, the page's forms read
 * from its HTML, and POSTs as a same-origin form would send them. The browser
 * suite (test/browser) walks the same pages in chromium.
 */
export interface Visit {
  html: string;
  status: number;
}

export interface OutboxMessage {
  id: string;
  envelope_id: string;
  signer_id: string | null;
  kind: string;
  channel: string;
  to: string;
  from: string;
  subject: string;
  text: string;
  link: string | null;
  at: string;
  expires_at: string | null;
}

export class Visitor {
  private cookies = new Map<string, string>();

  constructor(private readonly baseUrl: string) {}

  /** A cookie this visitor holds (as the browser keeps it). */
  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
  }

  async get(path: string): Promise<Visit> {
    const response = await fetch(new URL(path, this.baseUrl), { headers: { cookie: this.cookieHeader() } });
    this.keep(response);
    return { html: await response.text(), status: response.status };
  }

  /** The hidden CSRF field of the last page's forms. */
  static csrf(html: string): string {
    const found = /name="csrf" value="([^"]+)"/.exec(html);
    if (!found) throw new Error(`no form on the page: ${html.slice(0, 300)}`);
    return found[1]!;
  }

  /** POSTs a form; follows the redirect (post/redirect/get) like a browser. */
  async post(
    path: string,
    fields: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<Visit> {
    const response = await fetch(new URL(path, this.baseUrl), {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: this.cookieHeader(),
        'content-type': 'application/x-www-form-urlencoded',
        origin: new URL(this.baseUrl).origin,
        ...headers,
      },
      body: new URLSearchParams(fields).toString(),
    });
    this.keep(response);
    if (response.status === 303) {
      const next = await this.get(response.headers.get('location')!);
      return { ...next, status: 303 };
    }
    return { html: await response.text(), status: response.status };
  }
}

export async function outboxOf(
  baseUrl: string,
  apiKey: string,
  envelopeId?: string,
): Promise<OutboxMessage[]> {
  const response = await fetch(`${baseUrl}/_sandbox/outbox${envelopeId ? `?envelope=${envelopeId}` : ''}`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  if (!response.ok) throw new Error(`outbox: HTTP ${response.status} ${await response.text()}`);
  return ((await response.json()) as { data: OutboxMessage[] }).data;
}

/** Polls until `find` returns something (bounded). */
export async function eventually<T>(find: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

interface SignerLinks {
  signers: { name: string; link: string; turn: boolean }[];
}

/**
 * In a manual journey, `name` signs once it is their turn (a signer without an identity
 * check): their page opened, their name typed as their signature, consent given. The envelope moves only when this is called,
 * so a test decides when each step happens.
 */
export async function signWhenTurn(
  baseUrl: string,
  apiKey: string,
  envelopeId: string,
  name: string,
): Promise<void> {
  const signer = await eventually(async () => {
    const response = await fetch(`${baseUrl}/_sandbox/envelopes/${envelopeId}/links`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    if (!response.ok) throw new Error(`links: HTTP ${response.status} ${await response.text()}`);
    return ((await response.json()) as SignerLinks).signers.find((s) => s.name === name && s.turn);
  }, 60_000);
  const path = new URL(signer.link).pathname;
  const visitor = new Visitor(baseUrl);
  const page = await visitor.get(path);
  // The ceremony's steps: a signature adopted (their name, typed), then consent given.
  const adopted = await visitor.post(`${path}/signature`, {
    csrf: Visitor.csrf(page.html),
    kind: 'typed',
    typed: name,
    lang: 'en',
  });
  const signed = await visitor.post(`${path}/sign`, {
    csrf: Visitor.csrf(adopted.html),
    consent: 'yes',
    lang: 'en',
  });
  // Signed: the form answered with its redirect to "You have signed", or to the envelope's end
  // when this was the last signature.
  if (signed.status !== 303 || !/You have signed|Everyone has signed/.test(signed.html))
    throw new Error(`${name} could not sign: HTTP ${signed.status} ${signed.html.slice(0, 300)}`);
}
