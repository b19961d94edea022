/** A webhook secret, a sample event and its Standard Webhooks signature, for the webhooks command tests. */
import { Webhook } from 'standardwebhooks';

export const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
/** The environment that gives a command the secret. */
export const env = { SIGN_WEBHOOK_SECRET: SECRET };
/** The standardwebhooks package with the secret: an independent signer and verifier. */
export const wh = new Webhook(SECRET);

/** A `signer.signed` event with a fresh id (or the one given), as its body is sent. */
export function event(id = `evt_${Math.random().toString(36).slice(2)}`) {
  return {
    id,
    body: JSON.stringify({
      id,
      type: 'signer.signed',
      timestamp: new Date().toISOString(),
      data: {
        envelope_id: 'env_1',
        contract_id: 'C-1',
        envelope_status: 'sent',
        signer: { id: 'sgn_1', name: 'Layla Haddad', channel: 'email', order: 1, status: 'signed' },
      },
    }),
  };
}

/** The headers of a delivery of `body`, signed by the standardwebhooks package at `at`. */
export function signed(id: string, body: string, at = new Date()): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': wh.sign(id, at, body),
  };
}

/** A request to a listener (a body unless GET). */
export const post = (url: string, body: string | Buffer, headers: Record<string, string>, method = 'POST') =>
  fetch(url, { method, headers, ...(method === 'GET' ? {} : { body }) });
