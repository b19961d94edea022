/** `sign-cli envelopes`: the group, its words, and its commands in the order help lists them. */
import { commandGroup, type GroupCommands, type RegisterTopLevel } from '../../command-group.js';
import type { CommandDoc } from '../../help/command-doc.js';

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

/** The commands, in help's order: a command line that names one loads its code alone (command-group.ts). */
const COMMANDS: GroupCommands = {
  create: async () => (await import('./create.js')).registerCreate,
  validate: async () => (await import('./validate.js')).registerValidate,
  sample: async () => (await import('./sample.js')).registerSample,
  get: async () => (await import('./get.js')).registerGet,
  download: async () => (await import('./download.js')).registerDownload,
  audit: async () => (await import('./audit.js')).registerAudit,
  verify: async () => (await import('./verify.js')).registerVerify,
  extend: async () => (await import('./extend.js')).registerExtend,
  list: async () => (await import('./list.js')).registerEnvelopesList,
  watch: async () => (await import('./watch.js')).registerWatch,
  open: async () => (await import('./open.js')).registerOpen,
  void: async () => (await import('./void.js')).registerVoid,
};

/** `envelopes` for a command line naming `named` in it (undefined: every command). */
export function envelopesFor(named: string | undefined): Promise<RegisterTopLevel> {
  return commandGroup('envelopes', doc, COMMANDS, named);
}
