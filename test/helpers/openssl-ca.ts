/**
 * A certificate authority run by OpenSSL, for the revocation tests: `openssl ca` issues
 * certificates (dated as a test needs, with Authority Information Access and CRL distribution
 * points when asked), revokes them (`-revoke`, the revocation date then set in its database as
 * the test says), writes CRLs (`-gencrl` with the lastUpdate and nextUpdate given), and
 * `openssl ocsp` answers OCSP requests from that database (`-reqin`/`-respout`), signed by the
 * CA or by a responder. `serve()` puts the responder and the CRL behind a loopback HTTP server
 * (127.0.0.1, an ephemeral port): OpenSSL makes every answer, Node only carries the bytes.
 * Nothing here is written by the project: the verifier checks what OpenSSL made.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { Party } from './openssl-pki.js';

/** YYYYMMDDHHMMSSZ, as `openssl ca` takes a date. */
const generalized = (d: Date) => `${d.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
/** YYMMDDHHMMSSZ, as its database writes one. */
const utc = (d: Date) => generalized(d).slice(2);

export const DAY = 86_400_000;

export interface IssueOptions {
  /** What the certificate is for: a document signer (default), a TSA, an OCSP responder, or one without the OCSP-signing purpose. */
  kind?: 'signer' | 'tsa' | 'ocsp' | 'plain';
  notBefore?: Date;
  notAfter?: Date;
  /** The OCSP responder its Authority Information Access names. */
  ocspUrl?: string;
  /** Its CRL distribution point. */
  crlUrl?: string;
  /** id-pkix-ocsp-nocheck (a responder's certificate). */
  noCheck?: boolean;
}

const EXTENSIONS: Record<NonNullable<IssueOptions['kind']>, string> = {
  signer: 'keyUsage = critical,digitalSignature,nonRepudiation',
  tsa: 'keyUsage = critical,digitalSignature,nonRepudiation\nextendedKeyUsage = critical,timeStamping',
  ocsp: 'keyUsage = critical,digitalSignature\nextendedKeyUsage = OCSPSigning',
  plain: 'keyUsage = critical,digitalSignature',
};

export class OpenSslCa {
  readonly party: Party;
  private readonly base: string;

  /** A self-signed CA (ten years from two days ago), in a directory of its own under `dir`. */
  constructor(
    dir: string,
    readonly name: string,
    options: { key?: string } = {},
  ) {
    this.base = join(dir, name.replace(/\W+/g, '-').toLowerCase());
    mkdirSync(join(this.base, 'certs'), { recursive: true });
    writeFileSync(join(this.base, 'index.txt'), '');
    writeFileSync(
      join(this.base, 'serial'),
      `${(0x100000 + Math.floor(Math.random() * 0xe00000)).toString(16)}\n`,
    );
    writeFileSync(join(this.base, 'crlnumber'), '01\n');
    writeFileSync(
      join(this.base, 'ca.cnf'),
      [
        '[ ca ]',
        'default_ca = theca',
        '[ theca ]',
        `dir = ${this.base}`,
        'database = $dir/index.txt',
        'new_certs_dir = $dir/certs',
        'serial = $dir/serial',
        'crlnumber = $dir/crlnumber',
        'default_md = sha256',
        'policy = loose',
        'unique_subject = no',
        'copy_extensions = none',
        'email_in_dn = no',
        '[ loose ]',
        'commonName = supplied',
        'organizationName = optional',
        '[ v3_ca ]',
        'basicConstraints = critical,CA:true',
        'keyUsage = critical,keyCertSign,cRLSign',
        'subjectKeyIdentifier = hash',
        '',
      ].join('\n'),
    );
    const key = options.key ?? join(this.base, 'ca.key');
    const now = Date.now();
    this.certify(
      this.request(name, key, join(this.base, 'ca.csr'), { newKey: !options.key }),
      join(this.base, 'ca.crt'),
      [new Date(now - 2 * DAY), new Date(now + 3650 * DAY)],
      ['-selfsign', '-keyfile', key, '-extensions', 'v3_ca'],
    );
    this.party = { name, cert: join(this.base, 'ca.crt'), key };
  }

  private run(...args: string[]): Buffer {
    return execFileSync('openssl', args, { cwd: this.base, stdio: ['pipe', 'pipe', 'pipe'] });
  }

  /** `openssl ca` with this CA's configuration. */
  private ca(...args: string[]): Buffer {
    return this.run('ca', '-config', join(this.base, 'ca.cnf'), ...args);
  }

  /** What `openssl ca` is given to sign as this CA: its certificate and key. */
  private get asThisCa(): string[] {
    return ['-cert', this.party.cert, '-keyfile', this.party.key];
  }

  /** A certificate request for `name` with `key` (an RSA key made there first when `newKey`), at `csr`; returns `csr`. */
  private request(name: string, key: string, csr: string, { newKey }: { newKey: boolean }): string {
    if (newKey) this.run('genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', key);
    this.run('req', '-new', '-key', key, '-subj', `/CN=${name}/O=Elsewhere`, '-out', csr);
    return csr;
  }

  /** `openssl ca` certifies the request `csr` into `out`, valid from `dates[0]` to `dates[1]`; `signing` says by whom and with what extensions. */
  private certify(csr: string, out: string, dates: [Date, Date], signing: string[]): void {
    const [notBefore, notAfter] = dates;
    this.ca(
      '-batch',
      '-notext',
      '-in',
      csr,
      '-out',
      out,
      '-startdate',
      generalized(notBefore),
      '-enddate',
      generalized(notAfter),
      ...signing,
    );
  }

  /** A certificate this CA issues, dated as asked (default: from a day ago for thirty days). */
  issue(name: string, options: IssueOptions = {}): Party {
    const file = name.replace(/\W+/g, '-').toLowerCase();
    const key = join(this.base, `${file}.key`);
    const csr = this.request(name, key, join(this.base, `${file}.csr`), { newKey: true });
    const lines = ['[ ext ]', 'basicConstraints = CA:false', EXTENSIONS[options.kind ?? 'signer']];
    if (options.ocspUrl) lines.push(`authorityInfoAccess = OCSP;URI:${options.ocspUrl}`);
    if (options.crlUrl) lines.push(`crlDistributionPoints = URI:${options.crlUrl}`);
    if (options.noCheck) lines.push('noCheck = ignored');
    writeFileSync(join(this.base, `${file}.ext`), `${lines.join('\n')}\n`);
    const now = Date.now();
    this.certify(
      csr,
      join(this.base, `${file}.crt`),
      [options.notBefore ?? new Date(now - DAY), options.notAfter ?? new Date(now + 30 * DAY)],
      [...this.asThisCa, '-extfile', join(this.base, `${file}.ext`), '-extensions', 'ext'],
    );
    return { name, cert: join(this.base, `${file}.crt`), key };
  }

  /** Revokes `party` (`openssl ca -revoke`), its revocation date then set to `at` in the database. */
  revoke(party: Party, at: Date, reason = 'keyCompromise'): void {
    this.ca(...this.asThisCa, '-revoke', party.cert, '-crl_reason', reason);
    const serial = this.run('x509', '-in', party.cert, '-noout', '-serial')
      .toString()
      .trim()
      .replace(/^serial=/, '');
    const index = join(this.base, 'index.txt');
    const lines = readFileSync(index, 'utf8')
      .split('\n')
      .map((line) => {
        const fields = line.split('\t');
        if (fields[0] !== 'R' || fields[3]?.toUpperCase() !== serial.toUpperCase()) return line;
        fields[2] = `${utc(at)},${reason}`;
        return fields.join('\t');
      });
    writeFileSync(index, lines.join('\n'));
  }

  /** A CRL (DER) from the database, with the dates given. */
  crl(lastUpdate: Date, nextUpdate: Date): Buffer {
    const pem = join(this.base, 'ca.crl.pem');
    this.ca(
      '-gencrl',
      ...this.asThisCa,
      '-crl_lastupdate',
      generalized(lastUpdate),
      '-crl_nextupdate',
      generalized(nextUpdate),
      '-out',
      pem,
    );
    return this.run('crl', '-in', pem, '-outform', 'DER');
  }

  /** An OCSP request (DER) for `party`'s certificate, as `openssl ocsp` writes one. */
  ocspRequest(party: Party): Buffer {
    const out = join(this.base, 'request.der');
    this.run('ocsp', '-issuer', this.party.cert, '-cert', party.cert, '-no_nonce', '-reqout', out);
    return readFileSync(out);
  }

  /** `openssl ocsp`'s answer to a request, from this CA's database, signed by the CA or `signer`, valid `minutes` when given. */
  ocspAnswer(request: Uint8Array, options: { signer?: Party; minutes?: number } = {}): Buffer {
    const input = join(this.base, 'answer-request.der');
    const out = join(this.base, 'response.der');
    writeFileSync(input, request);
    const signer = options.signer ?? this.party;
    this.run(
      'ocsp',
      '-index',
      join(this.base, 'index.txt'),
      '-CA',
      this.party.cert,
      '-rsigner',
      signer.cert,
      '-rkey',
      signer.key,
      '-reqin',
      input,
      '-respout',
      out,
      ...(options.minutes ? ['-nmin', String(options.minutes)] : []),
    );
    return readFileSync(out);
  }

  /** The OCSP response about `party`'s certificate. */
  ocspResponse(party: Party, options: { signer?: Party; minutes?: number } = {}): Buffer {
    return this.ocspAnswer(this.ocspRequest(party), options);
  }

  /** The CA's certificate, DER. */
  der(party: Party = this.party): Buffer {
    return this.run('x509', '-in', party.cert, '-outform', 'DER');
  }
}

/**
 * The CA's OCSP responder (POST /ocsp) and its CRL (GET /ca.crl) over HTTP on 127.0.0.1, an
 * ephemeral port; every answer made by OpenSSL from the CA's database at the time it is asked.
 */
export async function serveCa(
  ca: OpenSslCa,
  crlDates: () => [Date, Date],
): Promise<{ url: string; requests: string[]; stop(): Promise<void> }> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      requests.push(`${request.method} ${request.url}`);
      try {
        if (request.method === 'POST' && request.url === '/ocsp') {
          const body = ca.ocspAnswer(Buffer.concat(chunks));
          response.writeHead(200, { 'content-type': 'application/ocsp-response' }).end(body);
        } else if (request.method === 'GET' && request.url === '/ca.crl') {
          response.writeHead(200, { 'content-type': 'application/pkix-crl' }).end(ca.crl(...crlDates()));
        } else response.writeHead(404).end();
      } catch {
        response.writeHead(500).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
