/** `sign-cli webhooks`: the group, its words, and its commands in the order help lists them. */
import type { Command } from 'commander';
import type { Action } from '../../action.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import { registerDeliveries } from './deliveries.js';
import { registerListen } from './listen.js';
import { registerResend } from './resend.js';
import { registerTest } from './test.js';
import { registerTrigger } from './trigger.js';
import { registerVerify } from './verify.js';

export const doc: CommandDoc = {
  summary: 'receive, verify and send signed webhook events; see and resend deliveries',
  more: [
    "The service POSTs each signing event to the envelope's `webhook_url`, signed (Standard Webhooks by default: `webhook-id`, `webhook-timestamp`, `webhook-signature`). Secrets come from `--secret-file` or SIGN_WEBHOOK_SECRET.",
  ],
  examples: [
    'sign-cli webhooks listen --port 4025 --forward-to http://localhost:3000/hooks',
    'sign-cli webhooks trigger signer.signed --to http://127.0.0.1:4020/hooks',
    'sign-cli webhooks deliveries --failed',
  ],
};

export function registerWebhooks(program: Command, action: Action): void {
  const webhooks = defineCommand(program, 'webhooks', doc);
  registerListen(webhooks, action);
  registerVerify(webhooks, action);
  registerTrigger(webhooks, action);
  registerTest(webhooks, action);
  registerDeliveries(webhooks, action);
  registerResend(webhooks, action);
}
