/**
 * The signer's page and its forms, `/s/<token>[/action]` (routes/pages.ts hands them here): the
 * page at the signer's step, its state for the waiting page's script, the signed copy and the
 * signer's own copy, and the POSTs of a person's steps (verify, a code, a signature, sign,
 * decline), each checked by its CSRF token and answered with a redirect back to the step.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  CeremonyRefusal,
  adoptSignature,
  answer,
  beginVerification,
  decline,
  sign,
  stageOf,
  viewed,
} from '../journey/ceremony.js';
import { drawnSignature, typedSignature } from '../documents/signature.js';
import { sendError, sendJson } from '../http.js';
import type { SandboxServices } from '../http/services.js';
import { ensureSealed, signedCopy } from '../signing/seal.js';
import { ownCopyPdf } from '../signing/signed-copy.js';
import { readForm } from '../pages/forms.js';
import { page, sendPage } from '../pages/frame.js';
import { html } from '../../core/web/html.js';
import { signerPage } from '../pages/signer-page.js';
import { STRINGS, chosenLanguage, type Language } from '../pages/strings.js';
import type { EnvelopeRecord, SignerRecord } from '../store/records.js';

export function notFoundPage(res: ServerResponse, lang: Language): void {
  const t = STRINGS[lang];
  sendPage(res, 404, page({ lang, title: t.notFound, main: html`<h1>${t.notFound}</h1>` }));
}

async function showSigner(
  services: SandboxServices,
  req: IncomingMessage,
  res: ServerResponse,
  found: { envelope: EnvelopeRecord; signer: SignerRecord },
  lang: Language,
  status = 200,
  refusal?: string,
  changing = false,
): Promise<void> {
  const { envelope, signer } = found;
  const { token, setCookie } = services.forms.issue(req, services.links.path(envelope, signer));
  const shown = signerPage({
    envelope,
    signer,
    stage: stageOf(envelope, signer),
    lang,
    path: services.links.path(envelope, signer),
    csrf: token,
    document: services.templates.document(envelope, lang),
    signedLanguage: services.templates.signedLanguage(envelope),
    audit: services.store.audits.get(envelope.id) ?? [],
    now: services.clock.now(),
    changing,
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
  ['too_many_requests', 429],
  ['signature_required', 409],
  ['signature_empty', 400],
  ['signature_too_long', 400],
  ['signature_unreadable', 400],
  ['csrf', 403],
]);

export async function signerRoute(
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
      const changing = url.searchParams.get('step') === 'signature';
      await showSigner(services, req, res, found, lang, 200, undefined, changing);
    } else if (action === 'copy.pdf') {
      await sendOwnCopy(services, res, envelope, signer);
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
  if (
    req.method !== 'POST' ||
    action === undefined ||
    action === 'state' ||
    action === 'signed.pdf' ||
    action === 'copy.pdf'
  ) {
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
    if (action === 'verify') beginVerification(engine, envelope, signer, form.get('renew') === 'yes');
    else if (action === 'code')
      answer(engine, envelope, signer, form.get('request') ?? '', (form.get('code') ?? '').trim(), 'code');
    else if (action === 'signature')
      adoptSignature(
        engine,
        envelope,
        signer,
        form.get('kind') === 'drawn'
          ? drawnSignature(form.get('drawn') ?? '')
          : typedSignature(form.get('typed') ?? ''),
      );
    else if (action === 'sign') sign(engine, envelope, signer, form.get('consent') === 'yes');
    else decline(engine, envelope, signer, form.get('reason') ?? '');
  } catch (error) {
    if (error instanceof CeremonyRefusal) return refuse(error.code);
    throw error;
  }
  // Post/redirect/get: a reload does not send the form again; the page comes back at the step.
  res.writeHead(303, {
    location: `${services.links.path(envelope, signer)}?lang=${lang}#step`,
    'cache-control': 'no-store',
  });
  res.end();
}

/** The signer's own copy, once they have signed: the signed copy when everyone has, else the document with the signatures so far. */
async function sendOwnCopy(
  services: SandboxServices,
  res: ServerResponse,
  envelope: EnvelopeRecord,
  signer: SignerRecord,
): Promise<void> {
  if (signer.status !== 'signed') {
    sendError(
      res,
      409,
      'not_signed',
      `the signer is ${signer.status}; their copy exists once they have signed`,
    );
    return;
  }
  let pdf: Buffer;
  if (envelope.status === 'completed') {
    await ensureSealed(services, envelope);
    pdf = await signedCopy(services, envelope);
  } else
    pdf = await ownCopyPdf(
      envelope,
      signer,
      services.store.audits.get(envelope.id) ?? [],
      services.templates,
    );
  res.writeHead(200, {
    'content-type': 'application/pdf',
    'content-length': pdf.length,
    'content-disposition': `attachment; filename="${envelope.id}-${signer.id}.pdf"`,
    'cache-control': 'no-store',
  });
  res.end(pdf);
}
