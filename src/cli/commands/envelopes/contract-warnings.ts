/**
 * One contract, one live envelope: an input whose contract_id an earlier run
 * of the same command already created an envelope for (a spreadsheet row
 * edited after it was sent, say) is named before it makes a second one.
 * Sent all the same (the edit may be deliberate: a corrected name), but never
 * silently; `--dry-run` names them too, reading the journal without running.
 */
import { contentHash } from '../../../core/client/idempotency.js';
import { createdContracts, type JournalEntry } from '../../../core/journal/journal.js';
import { isRecord } from '../../../core/envelope/records.js';
import type { Output } from '../../render/output.js';
import type { InputSet } from '../../input/envelope-inputs.js';
import { formatTime } from '../../render/time.js';

/** The warning for `ref`, about to make a second envelope for `contractId`. */
export function warnSecondForContract(
  output: Output,
  ref: string,
  contractId: string,
  earlier: JournalEntry,
): void {
  const what = earlier.envelope_id ? earlier.envelope_id : 'an envelope';
  const when = earlier.at ? ` on ${formatTime(earlier.at)}` : '';
  output.warn(
    `${ref}: contract ${contractId} already has ${what} (created${when} by an earlier run of this command from ${earlier.ref}); this changed input makes a second envelope for it (void the first with \`sign-cli envelopes void ${earlier.envelope_id ?? '<id>'} --reason …\` if it replaces it)`,
  );
}

/**
 * For a dry run: each valid input that the journal at `path` has not created,
 * whose contract already has an envelope from it. Returns how many were named.
 */
export async function dryRunContractWarnings(
  output: Output,
  inputs: InputSet,
  path: string,
  fingerprint: string,
): Promise<number> {
  const created = createdContracts(path, fingerprint);
  if (created.size === 0) return 0;
  const copies = new Map<string, number>();
  let named = 0;
  for await (const read of inputs.read()) {
    if ('error' in read || !isRecord(read.value) || typeof read.value.contract_id !== 'string') continue;
    const hash = contentHash(read.value);
    const copy = (copies.get(hash) ?? 0) + 1;
    copies.set(hash, copy);
    const earlier = created.get(read.value.contract_id);
    if (earlier && earlier.id !== `${hash}#${copy}`) {
      warnSecondForContract(output, read.source, read.value.contract_id, earlier);
      named++;
    }
  }
  return named;
}
