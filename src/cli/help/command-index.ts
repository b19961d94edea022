// Written by `npm run docs` from the command tree (src/cli/program.ts); test/cli/reference.test.ts
// fails when it is stale. The program's help lists these without loading their code.
import type { IndexEntry } from './help.js';

export const COMMAND_INDEX: readonly IndexEntry[] = [
  { name: "envelopes", term: "envelopes", summary: "create, validate, list, watch and void envelopes", hidden: false },
  { name: "webhooks", term: "webhooks", summary: "receive, verify and send signed webhook events; see and resend deliveries", hidden: false },
  { name: "keys", term: "keys", summary: "API keys: stored profiles and the service's listing, always masked", hidden: false },
  { name: "config", term: "config", summary: "read and change settings (base URL, default profile, rate, timeouts, endpoint paths, webhook scheme)", hidden: false },
  { name: "journal", term: "journal", summary: "see and prune the create journals: what each input became, on this machine or in a shared store", hidden: false },
  { name: "doctor", term: "doctor", summary: "check Node, config, base URL, TLS, clock, the active key and the Redis stores; explain anything wrong", hidden: false },
  { name: "sandbox", term: "sandbox [options]", summary: "run a local sandbox of the service (no account needed)", hidden: false },
  { name: "api", term: "api [options] <path>", summary: "call any endpoint of the service, with your key, pacing and retries", hidden: false },
  { name: "mcp", term: "mcp [options]", summary: "serve the envelope service to AI assistants over MCP (stdio), with the same safety as the CLI", hidden: false },
  { name: "completion", term: "completion <shell>", summary: "print a shell completion script", hidden: false },
  { name: "__complete", term: "__complete [source]", summary: "list names for shell completion", hidden: true },
];
