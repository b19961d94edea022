// Written by `npm run docs` from the command tree (src/cli/program.ts); test/cli/reference.test.ts
// fails when it is stale. `sign-cli envelopes --help` lists these without loading their code.
import type { IndexEntry } from '../../help/help.js';

export const ENVELOPES_INDEX: readonly IndexEntry[] = [
  { name: "create", term: "create [options]", summary: "create envelopes from JSON files, a directory, NDJSON or stdin, or with a prompt; everything is validated before anything is sent", hidden: false },
  { name: "validate", term: "validate [options] [path...]", summary: "check envelope files against the request rules without sending anything", hidden: false },
  { name: "sample", term: "sample [options]", summary: "print a valid example envelope to start from (JSON on stdout)", hidden: false },
  { name: "get", term: "get <id>", summary: "show one envelope", hidden: false },
  { name: "download", term: "download [options] <id>", summary: "save the signed copy (PDF) of a completed envelope", hidden: false },
  { name: "audit", term: "audit [options] <id>", summary: "show the audit trail of an envelope; --verify checks its hash chain", hidden: false },
  { name: "verify", term: "verify [options] <file.pdf>", summary: "check, offline, that a signed PDF is the signed document, unaltered: every signature, every later revision, its certificate chain, and (with --envelope) the audit trail", hidden: false },
  { name: "list", term: "list [options]", summary: "list envelopes, newest first", hidden: false },
  { name: "watch", term: "watch [options] <id>", summary: "follow an envelope and its signers until it is final (exit 0 completed, 1 otherwise)", hidden: false },
  { name: "open", term: "open [options] <id>", summary: "open a signer's signing page in the sandbox (prints its link; opens a browser where there is one)", hidden: false },
  { name: "void", term: "void [options] <id>", summary: "void an envelope still under way: its signers can no longer sign (asks first)", hidden: false },
];
