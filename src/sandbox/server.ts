/**
 * The local sandbox of the service: the paths and headers of the published
 * interface (docs/service.md), API keys with environment, scopes and
 * expiry, the 600/min limit, idempotency as in the IETF Idempotency-Key draft,
 * the signing journey with signed webhooks, the signed copy and the audit
 * trail, and fault injection for tests.
 * Here: the services are built, the router (router.ts) is served, and the
 * state is closed cleanly.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ValueLists } from '../core/envelope/envelope.js';
import { systemClock, type Clock } from '../core/clock.js';
import { StorageError } from '../core/errors.js';
import { ed25519PublicKeyOf, signStandard } from '../core/webhooks/webhooks.js';
import { Scheduler, createSandboxClock } from './journey/clock.js';
import { writeCredentialsFile } from './store/credentials-file.js';
import { ed25519SigningKey, sandboxCredentials } from './store/credentials.js';
import type { SandboxCa } from './signing/signing-identity.js';
import { latestLedgerTime } from './signing/certificate-ledger.js';
import { Deliverer } from './delivery/deliveries.js';
import { FaultPlan, type FaultSettings } from './http/faults.js';
import { sendError } from './http.js';
import { newId } from './ids.js';
import { JourneyEngine, type JourneyMode } from './journey/journey.js';
import { SignerLinks } from './journey/signer-links.js';
import { FormTokens, formKey } from './pages/forms.js';
import { Templates } from './documents/templates.js';
import { IDEMPOTENCY_RETENTION_MS } from './http/middleware.js';
import { SlidingWindowLimiter } from './http/rate-limiter.js';
import { createRouter } from './router.js';
import { acceptedValues } from './rules.js';
import type { Counters, SandboxServices } from './http/services.js';
import { SandboxStore } from './store/store.js';

export { SANDBOX_LIMITS, SANDBOX_VALUES, acceptedValues } from './rules.js';
export { IDEMPOTENCY_RETENTION_MS } from './http/middleware.js';

export const DEFAULT_SANDBOX_PORT = 4010;
export const DEFAULT_RATE_LIMIT = 600;

export interface SandboxOptions {
  dataDir: string;
  /** How deliveries are signed: HMAC `v1` with the whsec_ secret (default), or Ed25519 `v1a`. */
  signing?: 'hmac' | 'ed25519';
  /**
   * Values to accept beyond SANDBOX_VALUES for the fields the published interface leaves open
   * (docs/service.md, Envelope; `sandbox --accept`).
   */
  accept?: ValueLists;
  host?: string;
  port?: number;
  /** Sandbox clock speed relative to real time (journey steps, expiry, webhook retries). */
  speed?: number;
  /** Real time, which the sandbox clock runs from at `speed` (default the system's). */
  clock?: Pick<Clock, 'now'>;
  /**
   * How long an Idempotency-Key is remembered, in real time (not sped up by `speed`); default
   * IDEMPOTENCY_RETENTION_MS (`sandbox --idempotency-retention`).
   */
  idempotencyRetentionMs?: number;
  /** Fault injection and limits at start-up; `faults.rate_limit` defaults to 600/min. */
  faults?: FaultSettings;
  /** Told when the state cannot be written (a full disk): at most once a minute, and when writing works again. */
  onWarning?: (message: string) => void;
  /**
   * `auto` (default): the sandbox's signers sign by themselves; `manual`: envelopes wait for
   * people on the signer's pages (`sandbox --journey`). Kept per envelope, as it was created.
   */
  journey?: JourneyMode;
  /**
   * A directory of document templates (`sandbox --templates`): `<template_id>.v<version>.txt`
   * each (documents/template-format.ts), beside the built-in ones. One that cannot be read is a
   * TemplateError, and the sandbox does not start.
   */
  templates?: string;
}

export interface RunningSandbox {
  baseUrl: string;
  apiKey: string;
  webhookSecret: string;
  /** With `signing: 'ed25519'`: the `whpk_` key receivers verify deliveries with. */
  webhookPublicKey?: string;
  /** Things to tell the person who started it: skipped log lines, re-issued credentials. */
  notices: string[];
  dataDir: string;
  /** The sandbox CA's certificate (PEM): what its signed copies verify against. */
  caFile: string;
  server: Server;
  close(): Promise<void>;
}

/** The state, clock, engines and counters every handler is given. */
function buildServices(
  options: SandboxOptions,
  notices: string[],
): SandboxServices & { scheduler: Scheduler } {
  // Read before the state is opened: a template in error stops the start with nothing locked.
  const templates =
    options.templates === undefined ? Templates.builtIn() : Templates.fromDirectory(options.templates);
  const store = new SandboxStore(options.dataDir);
  notices.push(...store.problems);
  const realClock = options.clock ?? systemClock;
  // Past the state's last time and the CA's last issue or revocation: a copy completed after a revocation is signed by its successor.
  const clock = createSandboxClock(
    options.speed ?? 1,
    Math.max(store.latestTime, latestLedgerTime(options.dataDir)),
    () => realClock.now(),
  );
  const secrets = sandboxCredentials(store, options.dataDir, realClock.now(), notices);
  if (options.signing === 'ed25519')
    secrets.signingKey = ed25519SigningKey(options.dataDir, store.isNew, notices);
  const scheduler = new Scheduler(clock);
  const counters: Counters = {
    requests: 0,
    created: 0,
    replayed: 0,
    rate_limited: 0,
    by_status: {},
    storage_failures: 0,
  };
  /**
   * The state cannot be written (a full disk): requests get 503 with
   * Retry-After, timers try again later; said at most once a minute.
   */
  let lastStorageWarning = 0;
  const storageTrouble = (error: StorageError): void => {
    counters.storage_failures++;
    if (realClock.now() - lastStorageWarning < 60_000) return;
    lastStorageWarning = realClock.now();
    options.onWarning?.(
      `${error.message}; answering 503 and trying again until it can write (${error.hint ?? ''})`,
    );
  };
  const sign = (id: string, timestamp: number, body: string) => ({
    ...signStandard(secrets.signingKey ?? secrets.webhookSecret, id, timestamp, body),
  });
  const deliverer = new Deliverer(store, clock, realClock, scheduler, sign, storageTrouble);
  const journey = new JourneyEngine(
    store,
    clock,
    scheduler,
    (deliveries) => deliverer.enqueue(deliveries),
    storageTrouble,
    options.journey ?? 'auto',
  );
  return {
    store,
    clock,
    realClock,
    scheduler,
    allowed: acceptedValues(options.accept),
    idempotencyRetentionMs: options.idempotencyRetentionMs ?? IDEMPOTENCY_RETENTION_MS,
    faults: new FaultPlan(options.faults),
    limiter: new SlidingWindowLimiter(options.faults?.rate_limit ?? DEFAULT_RATE_LIMIT),
    journey,
    deliverer,
    counters,
    secrets,
    // Set by startSandbox before the first request: made in the data dir, which the store has just made sure of.
    ca: undefined as unknown as SandboxCa,
    inFlight: new Set<string>(),
    storageTrouble,
    links: new SignerLinks(store, secrets.apiKey),
    forms: new FormTokens(formKey(options.dataDir)),
    // Set by startSandbox once it listens.
    baseUrl: '',
    templates,
  };
}

const urlOf = (host: string, port: number): string =>
  `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

export async function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const notices: string[] = [];
  const services = buildServices(options, notices);
  // Made on first start, read after (keys 0600 in the data dir); the CA's certificate is published.
  try {
    const { SandboxCa } = await import('./signing/signing-identity.js');
    // Dated by the sandbox's clock, which signing times come from (it runs --speed times real time).
    services.ca = await SandboxCa.open(options.dataDir, new Date(services.clock.now()));
  } catch (error) {
    services.store.close();
    throw error;
  }
  const { ca } = services;
  const { store, scheduler, secrets, journey, deliverer } = services;
  const route = createRouter(services);

  const server = createServer((req, res) => {
    res.setHeader('x-request-id', newId('req'));
    route(req, res).catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else if (error instanceof StorageError) {
        // Nothing was acknowledged, nothing changed: the same request later (same Idempotency-Key) is safe.
        services.storageTrouble(error);
        sendError(
          res,
          503,
          'storage_unavailable',
          `the sandbox cannot write its state: ${error.message}; retry later`,
          {},
          { 'retry-after': '5' },
        );
      } else sendError(res, 500, 'internal_error', `sandbox error: ${(error as Error).message}`);
    });
  });
  // Slow or half-open clients must not hold sockets forever.
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  server.keepAliveTimeout = 5_000;

  const host = options.host ?? '127.0.0.1';
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? DEFAULT_SANDBOX_PORT, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    // Port taken: the secrets just made (a new data dir) are kept for the next start, which
    // could not read them back from the hashes in the state; and the data dir is released.
    writeCredentialsFile(options.dataDir, urlOf(host, options.port ?? DEFAULT_SANDBOX_PORT), secrets);
    scheduler.close();
    store.close();
    throw error;
  }
  const baseUrl = urlOf(host, (server.address() as AddressInfo).port);
  services.baseUrl = baseUrl;
  // Its certificates name where it listens (AIA, CRL distribution point): issued now if they name
  // another place. Signing from now on: a copy waits for them, the start does not, unless there
  // are none at all yet (a new data dir: its files are there when it has started).
  const fresh = !ca.hasIssued;
  const issuing = ca.useUrl(baseUrl, new Date(services.clock.now()));
  if (fresh) {
    try {
      await issuing;
    } catch (error) {
      scheduler.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      store.close();
      throw error;
    }
  } else
    issuing.catch((error: unknown) =>
      options.onWarning?.(
        `the sandbox CA could not issue certificates naming ${baseUrl}: ${(error as Error).message}; its copies are signed by the earlier ones`,
      ),
    );
  writeCredentialsFile(options.dataDir, baseUrl, secrets);
  // Work left when the sandbox last stopped carries on where it was.
  journey.resumeAll();
  deliverer.resume();

  return {
    baseUrl,
    apiKey: secrets.apiKey,
    webhookSecret: secrets.webhookSecret,
    ...(secrets.signingKey ? { webhookPublicKey: ed25519PublicKeyOf(secrets.signingKey) } : {}),
    notices,
    dataDir: options.dataDir,
    caFile: ca.caFile,
    server,
    close: async () => {
      scheduler.close();
      // Certificates being issued are written before the data dir is let go.
      await ca.idle();
      await deliverer.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      store.close();
    },
  };
}
