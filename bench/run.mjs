// `npm run bench`: every benchmark, each compared with a baseline measured in
// the same run. Prints ratios; never fails a build on timing.
import { benchBulk } from './bulk.mjs';
import { benchList } from './list.mjs';
import { benchListener } from './listener.mjs';
import { benchRateStore } from './rate-store.mjs';
import { benchRecovery } from './recovery.mjs';
import { benchStartup } from './startup.mjs';

const only = process.argv[2];
const benches = { startup: benchStartup, listener: benchListener, bulk: benchBulk, recovery: benchRecovery, list: benchList, 'rate-store': benchRateStore };

for (const [name, run] of Object.entries(benches)) {
  if (only && only !== name) continue;
  const result = await run();
  console.log(`\n## ${result.name}`);
  const width = Math.max(...result.rows.map(([label]) => label.length));
  for (const [label, value] of result.rows) console.log(`  ${label.padEnd(width)}  ${value}`);
  console.log(`  ${'targets met'.padEnd(width)}  ${result.ok ? 'yes' : 'NO'}`);
}
