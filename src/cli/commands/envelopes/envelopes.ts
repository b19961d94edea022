/** `sign-cli envelopes`: the group, its words, and its commands in the order help lists them. */
import type { Command } from 'commander';
import type { Action } from '../../action.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import { registerAudit } from './audit.js';
import { registerVerify } from './verify.js';
import { registerExtend } from './extend.js';
import { registerCreate } from './create.js';
import { registerDownload } from './download.js';
import { registerGet } from './get.js';
import { registerEnvelopesList } from './list.js';
import { registerOpen } from './open.js';
import { registerSample } from './sample.js';
import { registerValidate } from './validate.js';
import { registerVoid } from './void.js';
import { registerWatch } from './watch.js';

export const doc: CommandDoc = {
  summary: 'create, validate, list, watch and void envelopes',
  more: [
    'An envelope is a document to sign and its signers, each notified on a channel (e-mail or WhatsApp) and signing in order or all at once. `create` checks every request rule of the service locally before anything is sent, and never creates the same envelope twice.',
  ],
  examples: [
    'sign-cli envelopes sample > envelope.json',
    'sign-cli envelopes validate envelope.json',
    'sign-cli envelopes create -f envelope.json',
    'sign-cli envelopes list --status sent --since 7d',
    'sign-cli envelopes watch "$id"',
  ],
};

export function registerEnvelopes(program: Command, action: Action): void {
  const envelopes = defineCommand(program, 'envelopes', doc);
  registerCreate(envelopes, action);
  registerValidate(envelopes, action);
  registerSample(envelopes, action);
  registerGet(envelopes, action);
  registerDownload(envelopes, action);
  registerAudit(envelopes, action);
  registerVerify(envelopes, action);
  registerExtend(envelopes, action);
  registerEnvelopesList(envelopes, action);
  registerWatch(envelopes, action);
  registerOpen(envelopes, action);
  registerVoid(envelopes, action);
}
