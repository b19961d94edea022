/**
 * `sign-cli envelopes`: the group, its words, and its commands in the order help lists them. Only
 * the command a command line names is registered whole; the others are stand-ins with their help
 * line (./command-index.ts, generated), as program.ts does for the top-level commands. The code of
 * `create` and `verify`, the largest, loads only for a command line that names them:
 * `envelopes validate` reads none of it (start-up; scripts/build/merge-chunks.mjs keeps their
 * chunks apart).
 */
import type { Command } from 'commander';
import type { Action } from '../../action.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import { addStandIn } from '../../help/help.js';
import { ENVELOPES_INDEX } from './command-index.js';
import { registerAudit } from './audit.js';
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

type Register = (envelopes: Command, action: Action) => void;

/**
 * Each command's registration, in help's order: imported with this file, or (the largest, which
 * the other command lines never need) when a command line names it.
 */
const COMMANDS: Record<string, () => Register | Promise<Register>> = {
  create: async () => (await import('./create.js')).registerCreate,
  validate: () => registerValidate,
  sample: () => registerSample,
  get: () => registerGet,
  download: () => registerDownload,
  audit: () => registerAudit,
  verify: async () => (await import('./verify.js')).registerVerify,
  list: () => registerEnvelopesList,
  watch: () => registerWatch,
  open: () => registerOpen,
  void: () => registerVoid,
};

/**
 * The registration of `sign-cli envelopes` with `named` registered whole (`'all'`: every command,
 * the whole tree's) and its other commands as stand-ins.
 */
export async function envelopesRegistration(
  named: 'all' | readonly string[],
): Promise<(program: Command, action: Action) => void> {
  const wanted =
    named === 'all' ? Object.keys(COMMANDS) : named.filter((name) => Object.hasOwn(COMMANDS, name));
  const loaded = new Map(
    await Promise.all(wanted.map(async (name) => [name, await COMMANDS[name]!()] as const)),
  );
  return (program, action) => {
    const envelopes = defineCommand(program, 'envelopes', doc);
    // The whole tree is registered from the code itself (the index is written from it).
    if (named === 'all') for (const register of loaded.values()) register(envelopes, action);
    else
      for (const entry of ENVELOPES_INDEX) {
        const register = loaded.get(entry.name);
        if (register) register(envelopes, action);
        else addStandIn(envelopes, entry);
      }
  };
}
