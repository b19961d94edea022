/**
 * The ceremony's HTTP side: the signer's pages (`/s/<token>…`), the ID app's
 * page (`/_sandbox/id/<request>`), the outbox (`/_sandbox/outbox`: JSON with
 * an API key, a page without), each signer's link
 * (`/_sandbox/envelopes/<id>/links`) and the pages' own files. Returns false
 * for any other path.
 *
 * Who may see what: a signer's page and the ID app's page are reached by
 * their unguessable token alone, as the real links are. The outbox and the
 * links hold every signer's token, so their JSON needs an API key and shows
 * only that key's account and environment (the sandbox's own key sees all),
 * and the outbox page (for a browser, which has no key) is answered only to
 * this machine, under a loopback Host name (no DNS rebinding).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { safeEqual } from '../../core/webhooks/webhooks.js';
import { CeremonyRefusal, answer, stageOf } from '../journey/ceremony.js';
import { BodyTooLargeError, sendError, sendJson } from '../http.js';
import { findIdRequest } from '../journey/id-requests.js';
import { journeyOf } from '../journey/journey.js';
import { authenticate } from '../http/middleware.js';
import { outbox } from '../pages/outbox.js';
import { sameRealm } from '../store/realm.js';
import type { SandboxServices } from '../http/services.js';
import { sendAsset } from '../pages/assets.js';
import { readForm } from '../pages/forms.js';
import { sendPage } from '../pages/frame.js';
import { idPage } from '../pages/id-page.js';
import { outboxPage } from '../pages/outbox-page.js';
import { chosenLanguage, type Language } from '../pages/strings.js';
import { notFoundPage, signerRoute } from './signer-route.js';
import type { EnvelopeRecord } from '../store/records.js';

const isLoopbackAddress = (address: string | undefined): boolean =>
  !!address && (/^(::ffff:)?127\./.test(address) || address === '::1');

/** A request from this machine, to a loopback name: what the outbox page is shown to. */
function fromThisMachine(req: IncomingMessage): boolean {
  let host: string;
  try {
    host = new URL(`http://${req.headers.host ?? ''}`).hostname;
  } catch {
    return false;
  }
  return (
    isLoopbackAddress(req.socket.remoteAddress) &&
    (host === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '[::1]')
  );
}

export async function handlePages(
  services: SandboxServices,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<boolean> {
  try {
    return await route(services, req, res, url);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    sendError(res, 413, 'body_too_large', 'a form of these pages is a few fields; this one is over 16 KB');
    return true;
  }
}

async function route(
  services: SandboxServices,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<boolean> {
  const path = url.pathname;
  const asset = /^\/_sandbox\/assets\/([\w.-]+)$/.exec(path);
  if (asset && req.method === 'GET') {
    if (!sendAsset(res, asset[1]!)) sendError(res, 404, 'not_found', `no sandbox asset ${asset[1]!}`);
    return true;
  }
  const signer = /^\/s\/([^/]+)(?:\/(state|signed\.pdf|copy\.pdf|verify|code|signature|sign|decline))?$/.exec(
    path,
  );
  if (signer) {
    await signerRoute(services, req, res, url, signer[1]!, signer[2]);
    return true;
  }
  const id = /^\/_sandbox\/id\/([^/]+)$/.exec(path);
  if (id) {
    await idRoute(services, req, res, url, id[1]!);
    return true;
  }
  if (path === '/_sandbox/outbox' && req.method === 'GET') {
    outboxRoute(services, req, res, url);
    return true;
  }
  const links = /^\/_sandbox\/envelopes\/([^/]+)\/links$/.exec(path);
  if (links && req.method === 'GET') {
    let id: string;
    try {
      id = decodeURIComponent(links[1]!);
    } catch {
      sendError(res, 400, 'invalid_path', `the path ${path} has a malformed %-escape`);
      return true;
    }
    linksRoute(services, req, res, id);
    return true;
  }
  return false;
}

/** The envelopes a key may see here: its own realm's, or every one for the sandbox's own key. */
function visibleTo(services: SandboxServices, req: IncomingMessage, res: ServerResponse) {
  const key = authenticate(services, req, res, 'envelopes:read');
  if (!key) return undefined;
  const admin = safeEqual(
    /^Bearer\s+(\S+)/i.exec(req.headers.authorization ?? '')?.[1] ?? '',
    services.secrets.apiKey,
  );
  return (envelope: EnvelopeRecord) => admin || sameRealm(envelope, key);
}

function outboxRoute(services: SandboxServices, req: IncomingMessage, res: ServerResponse, url: URL): void {
  const only = url.searchParams.get('envelope');
  const links = {
    baseUrl: services.baseUrl,
    signerPath: services.links.path.bind(services.links),
    senderOf: (envelope: EnvelopeRecord) => services.store.keys.get(envelope.owner)?.name ?? envelope.owner,
  };
  const pick = (visible: (e: EnvelopeRecord) => boolean) =>
    [...services.store.envelopes.values()].filter((e) => visible(e) && (!only || e.id === only));
  if (req.headers.authorization === undefined) {
    if (!fromThisMachine(req)) {
      sendError(
        res,
        403,
        'loopback_only',
        'the outbox page is shown on this machine only; with an API key, GET it as JSON',
      );
      return;
    }
    const messages = outbox(
      pick(() => true),
      links,
      services.clock.now(),
    );
    sendPage(res, 200, outboxPage(messages, chosenLanguage(url.searchParams.get('lang'), 'en'), url));
    return;
  }
  const visible = visibleTo(services, req, res);
  if (!visible) return;
  sendJson(res, 200, { data: outbox(pick(visible), links, services.clock.now()) });
}

function linksRoute(services: SandboxServices, req: IncomingMessage, res: ServerResponse, id: string): void {
  const visible = visibleTo(services, req, res);
  if (!visible) return;
  const envelope = services.store.envelopes.get(id);
  if (!envelope || !visible(envelope)) {
    sendError(res, 404, 'envelope_not_found', `no envelope with id ${id}`);
    return;
  }
  sendJson(res, 200, {
    envelope_id: envelope.id,
    status: envelope.status,
    journey: journeyOf(envelope),
    signers: envelope.signers.map((s) => {
      const stage = stageOf(envelope, s).stage;
      return {
        id: s.id,
        name: s.name,
        order: s.order ?? null,
        channel: s.channel,
        ...(s.email ? { email: s.email } : {}),
        ...(s.phone ? { phone: s.phone } : {}),
        status: s.status,
        link: `${services.baseUrl}${services.links.path(envelope, s)}`,
        turn: stage === 'verify' || stage === 'signature' || stage === 'sign',
      };
    }),
  });
}

async function idRoute(
  services: SandboxServices,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  requestId: string,
): Promise<void> {
  const found = findIdRequest(services.store, requestId);
  if (!found) {
    notFoundPage(res, chosenLanguage(url.searchParams.get('lang'), undefined));
    return;
  }
  const { envelope, signer, request } = found;
  const isOpen = () =>
    request.outcome === undefined &&
    request.expires_at > services.clock.now() &&
    stageOf(envelope, signer).stage === 'verify';
  const link = `/_sandbox/id/${request.id}`;
  const show = (lang: Language, status = 200, refusal?: string) => {
    const { token, setCookie } = services.forms.issue(req, link);
    sendPage(
      res,
      status,
      idPage({
        envelope,
        signer,
        request,
        open: isOpen(),
        lang,
        csrf: token,
        signerPath: services.links.path(envelope, signer),
        now: services.clock.now(),
        ...(refusal ? { refusal } : {}),
      }),
      setCookie ? { 'set-cookie': setCookie } : {},
    );
  };
  if (req.method === 'GET') {
    show(chosenLanguage(url.searchParams.get('lang'), envelope.locale));
    return;
  }
  if (req.method !== 'POST') {
    sendError(
      res,
      405,
      'method_not_allowed',
      `use GET or POST for ${url.pathname}`,
      {},
      { allow: 'GET, POST' },
    );
    return;
  }
  const form = await readForm(req);
  const lang = chosenLanguage(form.get('lang'), envelope.locale);
  if (!services.forms.accepts(req, form, link)) {
    show(lang, 403, 'csrf');
    return;
  }
  if (isOpen() && request.kind === 'app') {
    try {
      answer(services.journey, envelope, signer, request.id, form.get('choice') ?? '', 'app');
    } catch (error) {
      if (!(error instanceof CeremonyRefusal)) throw error;
      // Not one of the three numbers: no answer, nothing changes.
      if (error.code === 'bad_answer') {
        show(lang, 400);
        return;
      }
    }
  }
  // The app hands the person back to the signing page once verified (on the same phone too); otherwise it says why not.
  const location =
    request.outcome === 'verified'
      ? `${services.links.path(envelope, signer)}?lang=${lang}#step`
      : `${url.pathname}?lang=${lang}`;
  res.writeHead(303, { location, 'cache-control': 'no-store' });
  res.end();
}
