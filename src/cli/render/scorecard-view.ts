/** `webhooks test` on a terminal: the scorecard as a table, then the tally. */
import type { CheckResult, Scorecard } from '../../core/receiver-test/run.js';
import { cellText, type Column } from './cell.js';
import type { Output } from './output.js';

export const SCORECARD_COLUMNS: readonly Column[] = [
  { head: 'CHECK' },
  { head: 'SENT', cut: true },
  { head: 'EXPECTED' },
  { head: 'GOT', cut: true, min: 16 },
  { head: 'VERDICT' },
  { head: 'WHY IT MATTERS', cut: true },
];

function verdictCell(output: Output, check: CheckResult): string {
  if (check.verdict === 'pass') return output.out.green('✓ pass');
  if (check.verdict === 'fail') return output.out.red('✗ FAIL');
  return output.out.dim('- skip');
}

export async function printScorecard(output: Output, card: Scorecard): Promise<void> {
  const { printTable } = await import('./table.js');
  await printTable(
    output,
    SCORECARD_COLUMNS,
    card.checks.map((check) => [
      check.name,
      cellText(check.sent),
      cellText(check.expected),
      // What came back can quote a receiver's error text: shown safely, on one line.
      cellText(check.got),
      verdictCell(output, check),
      cellText(check.why),
    ]),
  );
  const tally = [
    `${card.passed} passed`,
    `${card.failed} failed`,
    ...(card.skipped ? [`${card.skipped} skipped`] : []),
  ];
  output.line('');
  output.line(
    `${tally.join(', ')} in ${(card.ms / 1000).toFixed(1)} s: ${cellText(card.url)} (${card.scheme} scheme)`,
  );
}
