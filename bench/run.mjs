// `npm run bench`: every benchmark, each compared with a baseline measured in
// the same run. Prints ratios; never fails a build on timing. Each benchmark's
// figures are also written to docs/figures/benchmarks.md (its section only),
// so the docs quote what a run measured, not what someone typed.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { figureTable, measuredOn, updateFigures } from '../scripts/figures-file.mjs';
import { benchBulk } from './bulk.mjs';
import { benchCeremony } from './ceremony.mjs';
import { benchCsv } from './csv.mjs';
import { benchJournal } from './journal.mjs';
import { benchList } from './list.mjs';
import { benchListener } from './listener.mjs';
import { benchMcp } from './mcp.mjs';
import { benchRateStore } from './rate-store.mjs';
import { benchRecovery } from './recovery.mjs';
import { benchStartup } from './startup.mjs';
import { benchVerify } from './verify.mjs';
import { benchVerifyArchive } from './verify-archive.mjs';

const FIGURES = join(fileURLToPath(new URL('..', import.meta.url)), 'docs', 'figures', 'benchmarks.md');
const only = process.argv[2];
/** `npm run bench verify` runs `verify` and every `verify-…` beside it. */
const selected = (name) => !only || name === only || name.startsWith(`${only}-`);
const benches = {
  startup: benchStartup,
  listener: benchListener,
  bulk: benchBulk,
  csv: benchCsv,
  recovery: benchRecovery,
  list: benchList,
  'rate-store': benchRateStore,
  journal: benchJournal,
  verify: benchVerify,
  'verify-archive': benchVerifyArchive,
  ceremony: benchCeremony,
  mcp: benchMcp,
};
if (only && !(only in benches)) {
  console.error(`error: no benchmark named ${only}: use one of ${Object.keys(benches).join(', ')}`);
  process.exit(2);
}

for (const [name, run] of Object.entries(benches)) {
  if (!selected(name)) continue;
  const result = await run();
  console.log(`\n## ${result.name}`);
  const width = Math.max(...result.rows.map(([label]) => label.length));
  for (const [label, value] of result.rows) console.log(`  ${label.padEnd(width)}  ${value}`);
  console.log(`  ${'targets met'.padEnd(width)}  ${result.ok ? 'yes' : 'NO'}`);
  updateFigures(
    FIGURES,
    {
      title: 'Benchmark figures',
      writer: 'npm run bench',
      intro: 'What each benchmark measures and its targets: [../benchmarks.md](../benchmarks.md).',
      order: Object.keys(benches),
    },
    {
      [name]: `## ${result.name}\n\n${measuredOn()}\n\n${figureTable([...result.rows, ['targets met', result.ok ? 'yes' : 'NO']], ['Measure', 'Figure'])}`,
    },
  );
}
console.log(`\nwritten to ${FIGURES}`);
