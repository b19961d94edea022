/**
 * `sign-cli envelopes extend <file.pdf> --tsa <url> [-o out.pdf] [--online] [--trust <ca.pem>]...
 * [--force]`: renews a signed PDF's proof (PAdES B-LTA) with an incremental
 * update (core/ltv/extend.ts): what its DSS lacks and a new document
 * timestamp from the TSA. The input is verified first (nothing is sent for a
 * file that does not prove itself), the result after (nothing is written for
 * one that does not); the input is never replaced unless asked.
 */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import type { Action } from '../../action.js';
import { collect } from '../../flags/values.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import type { ExtendFlags } from './extend-run.js';

export const doc: CommandDoc = {
  summary:
    'renew a signed PDF for the long term (PAdES B-LTA): add what its DSS lacks and a new document timestamp, as an incremental update',
  details: [
    "Adds to the document security store (DSS) what it lacks: every certificate of every chain (the signers', the TSAs', up to the root) and, for each but the roots, an OCSP response or its issuer's CRL, taken from what the file carries (its DSS, its CMS's revocation archive or CAdES values) or, with `--online`, fetched from the responder or CRL the certificate names; then a document timestamp (`ETSI.RFC3161`) from the TSA at `--tsa` over all of it. A copy that lacks nothing gets the timestamp alone: renew it before its last timestamp's certificate expires.",
    'The update follows the last byte: every earlier signature still covers what it covered. The input is verified first (with `--trust`; one that does not verify is exit 1, nothing sent), the result after (written only when it verifies), to `-o` (default `<name>-extended.pdf` beside the input; `-` for stdout); an existing file, the input included, is replaced only with `--force`.',
  ],
  more: [
    'Exit 0 when the result verifies and is written; 1 when the input or the result does not verify, or the TSA or a responder fails; 2 for a file that is not a readable PDF, is encrypted or damaged, an output that exists without `--force`, a `--tsa` that is not an http(s) URL; 130 when interrupted. Certificates still without revocation data are named in a warning (`missing` in `--json`). The TSA and the responders are asked through HTTPS_PROXY, HTTP_PROXY and NO_PROXY, within `--timeout` (30 s) each.',
    '`--json` prints `{"file", "output", "bytes", "sha256", "added": {"certificates", "ocsp_responses", "crls"}, "missing": [{"certificate", "tried"}], "timestamp": {"field", "time", "tsa"}, "verification"}`, `verification` as `envelopes verify --json` prints it.',
  ],
  examples: [
    'curl -s "$SIGN_BASE_URL/_sandbox/ca.pem" > sandbox-ca.pem',
    'sign-cli envelopes extend signed.pdf --tsa "$SIGN_BASE_URL/_sandbox/tsa" --trust sandbox-ca.pem',
    'sign-cli envelopes extend signed-extended.pdf --tsa "$SIGN_BASE_URL/_sandbox/tsa" --trust sandbox-ca.pem -o renewed.pdf --online --json',
  ],
};

export function registerExtend(envelopes: Command, action: Action): void {
  defineCommand(envelopes, 'extend', doc)
    .argument('<file.pdf>', 'the signed PDF')
    .requiredOption(
      '--tsa <url>',
      'the timestamp authority (RFC 3161 over HTTP) that stamps the new document timestamp',
    )
    .option('-o, --output <file>', 'where to write the result; - for stdout (default: <file>-extended.pdf)')
    .option(
      '--online',
      "fetch the revocation data the file lacks from the certificates' OCSP responders and CRLs",
    )
    .option(
      '--trust <ca.pem>',
      "a CA certificate (PEM) to trust besides Node's bundled roots (repeatable)",
      collect,
    )
    .option('--force', 'replace the output file if it exists (the input too, when -o names it)')
    .action(action(extendCommand));
}

/** The run, in a module of its own: loaded when the command runs, not with the other envelopes commands. */
export async function extendCommand(
  ctx: CommandContext,
  flags: ExtendFlags,
  [file]: string[],
): Promise<number> {
  return (await import('./extend-run.js')).runExtend(ctx, flags, file!);
}
