/** `sign-cli envelopes audit <id> [--verify]`: the audit trail, and a check of its hash chain. */
import type { Command } from 'commander';
import { verifyAuditChain } from '../../../core/envelope/audit.js';
import { ExitCode } from '../../exit-codes.js';
import type { CommandContext } from '../../context.js';
import { cellText, type Column } from '../../render/cell.js';
import { formatTime } from '../../render/time.js';
import type { Action } from '../../action.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';

/** Sequence, time, event and actor are read by; the detail gives way on a narrow terminal. */
export const AUDIT_COLUMNS: readonly Column[] = [
  { head: '#', whole: true },
  { head: 'TIME', whole: true },
  { head: 'EVENT' },
  { head: 'ACTOR' },
  { head: 'DETAIL', cut: true, min: 16 },
];

export const doc: CommandDoc = {
  summary: 'show the audit trail of an envelope; --verify checks its hash chain',
  details: [
    '`--verify` exits 1 if any entry was changed, removed, inserted or reordered, or if the trail does not end at the head hash the service reports; an empty trail, or one without a head hash, does not verify either.',
  ],
  more: [
    'Format: `{"envelope_id", "hash_algorithm": "sha256", "head_hash", "entries": [...]}`; each entry is `{"seq", "at", "type", "actor", "detail", "event_id", "prev_hash", "hash"}` where `actor` is `api_key:<id> (<name>)`, `signer:<id> (<name>)` or `system`, `prev_hash` is the previous entry\'s `hash` (64 zeros for the first), and `hash` is the SHA-256 (hex) of the entry\'s canonical JSON (keys sorted, no spaces) without its `hash` field. Anyone holding the last hash can check the whole trail (`verifyAuditChain()` in the library). An answer that is not an audit trail is exit 1.',
  ],
  examples: ['sign-cli envelopes audit "$id"', 'sign-cli envelopes audit "$id" --verify --json'],
};

export function registerAudit(envelopes: Command, action: Action): void {
  defineCommand(envelopes, 'audit', doc)
    .argument('<id>', 'envelope id')
    .option('--verify', 'check that no entry was changed, removed, added or reordered (exit 1 if one was)')
    .action(action(auditCommand));
}

export async function auditCommand(
  ctx: CommandContext,
  options: { verify?: boolean },
  [id]: string[],
): Promise<number> {
  const { output } = ctx;
  const client = await ctx.client({}, ['getAuditTrail']);
  let trail;
  try {
    trail = await client.getAuditTrail(id!, ctx.signal);
  } finally {
    await client.close();
  }
  // The service's head hash must be the chain's end, or entries were cut off the tail.
  const check = verifyAuditChain(trail.entries, trail.head_hash);
  let problem = check.valid
    ? undefined
    : check.index < trail.entries.length
      ? `at entry ${check.index + 1}: ${check.reason}`
      : check.reason;
  // Nothing to verify is not "verified"; without the service's head hash, entries cut off the tail go unseen.
  if (trail.entries.length === 0) problem = 'the trail has no entries (is the base URL the signing service?)';
  else if (check.valid && trail.head_hash === null)
    problem = 'the service reported no head_hash, so entries missing at the end could not be detected';

  if (output.json) {
    const verification = {
      valid: problem === undefined,
      entries: trail.entries.length,
      head: check.valid ? check.head : null,
      problem: problem ?? null,
    };
    output.jsonDocument(options.verify ? { ...trail, verification } : trail);
  } else {
    const { printTable } = await import('../../render/table.js');
    await printTable(
      output,
      AUDIT_COLUMNS,
      trail.entries.map((e) => [
        cellText(e.seq),
        formatTime(e.at),
        cellText(e.type),
        cellText(e.actor),
        cellText(e.detail),
      ]),
    );
  }
  if (!options.verify) return ExitCode.ok;
  if (problem === undefined) {
    output.info(
      `${output.err.green('✓')} audit trail of ${id} verified: ${trail.entries.length} entries, head ${check.valid ? check.head : ''}`,
    );
    return ExitCode.ok;
  }
  output.info(`${output.err.red('✗')} audit trail of ${id} does not verify: ${problem}`);
  return ExitCode.failed;
}
