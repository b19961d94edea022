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
import {
  CeremonyRefusal,
  answer,
  beginVerification,
  decline,
  sign,
  stageOf,
  viewed,
} from '../journey/ceremony.js';
import { BodyTooLargeError, sendError, sendJson } from '../http.js';
import { findIdRequest } from '../journey/id-requests.js';
import { journeyOf } from '../journey/journey.js';
import { authenticate } from '../http/middleware.js';
import { outbox } from '../pages/outbox.js';
import { sameRealm } from '../store/realm.js';
import { ensureSealed, signedCopy } from '../signing/seal.js';
import type { SandboxServices } from '../http/services.js';
import { sendAsset } from '../pages/assets.js';
import { documentPagesSvg } from '../pages/document-svg.js';
import { readForm } from '../pages/forms.js';
import { page, sendPage } from '../pages/frame.js';
import { html } from '../../core/web/html.js';
import { idPage } from '../pages/id-page.js';
import { outboxPage } from '../pages/outbox-page.js';
import { signerPage } from '../pages/signer-page.js';
import { STRINGS, chosenLanguage, type Language } from '../pages/strings.js';
import type { EnvelopeRecord, SignerRecord } from '../store/records.js';

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

function notFoundPage(res: ServerResponse, lang: Language): void {
  const t = STRINGS[lang];
  sendPage(res, 404, page({ lang, title: t.notFound, main: html`<h1>${t.notFound}</h1>` }));
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
  const signer = /^\/s\/([^/]+)(?:\/(state|signed\.pdf|verify|code|sign|decline))?$/.exec(path);
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
  const links = { baseUrl: services.baseUrl, signerPath: services.links.path.bind(services.links) };
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
    sendPage(res, 200, outboxPage(messages, services.baseUrl, `${url.pathname}${url.search}`));
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
        turn: stage === 'verify' || stage === 'sign',
      };
    }),
  });
}

async function showSigner(
  services: SandboxServices,
  req: IncomingMessage,
  res: ServerResponse,
  found: { envelope: EnvelopeRecord; signer: SignerRecord },
  lang: Language,
  status = 200,
  refusal?: string,
): Promise<void> {
  const { envelope, signer } = found;
  const { token, setCookie } = services.forms.issue(req, services.links.path(envelope, signer));
  const t = STRINGS[lang];
  const pages = await documentPagesSvg(envelope, services.store.audits.get(envelope.id) ?? [], t.page);
  const shown = signerPage({
    envelope,
    signer,
    stage: stageOf(envelope, signer),
    lang,
    path: services.links.path(envelope, signer),
    csrf: token,
    pages,
    ...(refusal ? { refusal } : {}),
  });
  sendPage(res, status, shown, setCookie ? { 'set-cookie': setCookie } : {});
}

const REFUSAL_STATUS: ReadonlyMap<string, number> = new Map([
  ['not_now', 409],
  ['no_request', 409],
  ['consent_required', 400],
  ['reason_required', 400],
  ['bad_answer', 400],
  ['csrf', 403],
]);

async function signerRoute(
  services: SandboxServices,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  token: string,
  action: string | undefined,
): Promise<void> {
  const found = services.links.resolve(token);
  const asked = url.searchParams.get('lang');
  if (!found) {
    notFoundPage(res, chosenLanguage(asked, undefined));
    return;
  }
  const { envelope, signer } = found;
  const engine = services.journey;
  if (req.method === 'GET') {
    const lang = chosenLanguage(asked, envelope.locale);
    if (action === undefined) {
      viewed(engine, envelope, signer);
      await showSigner(services, req, res, found, lang);
    } else if (action === 'state') {
      const stage = stageOf(envelope, signer);
      sendJson(
        res,
        200,
        { stage: stage.stage, envelope_status: envelope.status, signer_status: signer.status },
        { 'cache-control': 'no-store' },
      );
    } else if (action === 'signed.pdf' && envelope.status !== 'completed') {
      sendError(
        res,
        409,
        'envelope_not_completed',
        `the envelope is ${envelope.status}; a signed copy exists once every signer has signed`,
      );
    } else if (action === 'signed.pdf') {
      await ensureSealed(services, envelope);
      const pdf = await signedCopy(services, envelope);
      res.writeHead(200, {
        'content-type': 'application/pdf',
        'content-length': pdf.length,
        'content-disposition': `attachment; filename="${envelope.id}-signed.pdf"`,
        'cache-control': 'no-store',
      });
      res.end(pdf);
    } else sendError(res, 405, 'method_not_allowed', `use POST for ${url.pathname}`, {}, { allow: 'POST' });
    return;
  }
  if (req.method !== 'POST' || action === undefined || action === 'state' || action === 'signed.pdf') {
    sendError(res, 405, 'method_not_allowed', `use GET for ${url.pathname}`, {}, { allow: 'GET' });
    return;
  }
  const form = await readForm(req);
  const lang = chosenLanguage(form.get('lang'), envelope.locale);
  const refuse = (code: string) =>
    showSigner(services, req, res, found, lang, REFUSAL_STATUS.get(code) ?? 400, code);
  if (!services.forms.accepts(req, form, services.links.path(envelope, signer))) return refuse('csrf');
  try {
    // A form comes from the page: a signer who acts has opened it (also in another tab of the same browser).
    viewed(engine, envelope, signer);
    if (action === 'verify') beginVerification(engine, envelope, signer);
    else if (action === 'code')
      answer(engine, envelope, signer, form.get('request') ?? '', (form.get('code') ?? '').trim(), 'code');
    else if (action === 'sign') sign(engine, envelope, signer, form.get('consent') === 'yes');
    else decline(engine, envelope, signer, form.get('reason') ?? '');
  } catch (error) {
    if (error instanceof CeremonyRefusal) return refuse(error.code);
    throw error;
  }
  // Post/redirect/get: a reload does not send the form again.
  res.writeHead(303, {
    location: `${services.links.path(envelope, signer)}?lang=${lang}`,
    'cache-control': 'no-store',
  });
  res.end();
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
  res.writeHead(303, { location: `${url.pathname}?lang=${lang}`, 'cache-control': 'no-store' });
  res.end();
}
