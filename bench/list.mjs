// `envelopes list --all` over 10,000 envelopes: that every one is listed once,
// the time it takes, and its peak memory, next to the same command over 1,000
// envelopes and to `--limit 20` (one page), measured in the same run. Constant
// memory means the peak over 10,000 is close to the peak over 1,000.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, envelopesFile, runMeasured, spawnServer, stop } from './util.mjs';

const TOTAL = Number(process.env.BENCH_LIST_ENVELOPES ?? 10_000);
const SMALL = Math.round(TOTAL / 10);

// A signer who never opens it: the journey stops after one step, so the sandbox is idle while the listing is measured.
const seedFile = (dir, n, offset) =>
  envelopesFile(dir, `seed-${offset}`, n, {
    title: 'List bench',
    contract: 'LIST',
    offset,
    customize: (base) => ({
      ...base,
      signers: [{ name: 'Bench Signer', email: 'bench+noview@example.com', channel: 'email', order: 1 }],
    }),
  });

export async function benchList() {
  const dir = mkdtempSync(join(tmpdir(), 'sign-cli-bench-list-'));
  const rows = [];
  let ok = true;
  try {
    const sandbox = await spawnServer([
      BIN,
      'sandbox',
      '--port',
      '0',
      '--json',
      '--data-dir',
      join(dir, 'sandbox'),
      '--rate-limit',
      '1000000',
    ]);
    const { base_url: baseUrl, api_key: apiKey } = JSON.parse(sandbox.firstLine);
    const env = {
      SIGN_BASE_URL: baseUrl,
      SIGN_API_KEY: apiKey,
      SIGN_STATE_DIR: join(dir, 'state'),
      SIGN_CONFIG_DIR: join(dir, 'config'),
    };
    const seed = async (n, offset) => {
      const started = performance.now();
      const result = await runMeasured(
        [
          BIN,
          'envelopes',
          'create',
          '--ndjson',
          '-f',
          seedFile(dir, n, offset),
          '--rate',
          '1000000',
          '--concurrency',
          '32',
          '--json',
          '--query',
          'status',
        ],
        env,
      );
      if (result.code !== 0) throw new Error(`seeding failed: ${result.stderr.slice(0, 300)}`);
      return (performance.now() - started) / 1000;
    };
    const listAll = async (expected) => {
      const started = performance.now();
      const result = await runMeasured([BIN, 'envelopes', 'list', '--all', '--json', '--query', 'id'], env);
      const seconds = (performance.now() - started) / 1000;
      const ids = result.arrivals.map((a) => a.line);
      const once = new Set(ids).size === ids.length;
      ok &&= result.code === 0 && ids.length === expected && once;
      return { ...result, seconds, count: ids.length, once };
    };

    const seedSmall = await seed(SMALL, 0);
    const small = await listAll(SMALL);
    const seedRest = await seed(TOTAL - SMALL, SMALL);
    const onePage = await runMeasured([BIN, 'envelopes', 'list', '--limit', '20', '--json'], env);
    const all = await listAll(TOTAL);
    const table = await runMeasured([BIN, 'envelopes', 'list', '--all'], env);
    ok &&= table.code === 0 && table.arrivals.length === TOTAL + 1;
    await stop(sandbox.child);

    rows.push(['seeded', `${TOTAL} envelopes in ${(seedSmall + seedRest).toFixed(1)} s`]);
    rows.push([`list --limit 20 (one page): peak RSS`, `${onePage.peakMb} MB`]);
    rows.push([
      `list --all --json, ${SMALL} envelopes`,
      `${small.count} listed${small.once ? ', each once' : ', DUPLICATES'} in ${small.seconds.toFixed(2)} s; peak RSS ${small.peakMb} MB`,
    ]);
    rows.push([
      `list --all --json, ${TOTAL} envelopes`,
      `${all.count} listed${all.once ? ', each once' : ', DUPLICATES'} in ${all.seconds.toFixed(2)} s (${Math.round(all.count / all.seconds)}/s); peak RSS ${all.peakMb} MB`,
    ]);
    rows.push([
      `list --all (table), ${TOTAL} envelopes`,
      `${table.arrivals.length - 1} rows; peak RSS ${table.peakMb} MB`,
    ]);
    const growth = all.peakMb / small.peakMb;
    rows.push([
      `peak RSS, ${TOTAL} / ${SMALL} envelopes`,
      `${growth.toFixed(2)} (target <= 1.15: memory does not grow with the listing)`,
    ]);
    rows.push([`peak RSS, --all / one page`, `${(all.peakMb / onePage.peakMb).toFixed(2)}`]);
    ok &&= growth <= 1.15;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { name: `envelopes list --all (${TOTAL} envelopes in the sandbox)`, rows, ok };
}
