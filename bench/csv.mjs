// Bulk from a spreadsheet: the peak memory of validating 100,000 CSV rows filled into
// examples/template.json (`envelopes create --csv … --template … --dry-run`), beside the
// same 100,000 envelopes as NDJSON (`--ndjson --dry-run`) and a bare csv-parse read of the
// same CSV, all measured in the same run. Both inputs are streamed: memory must not grow
// with the rows (target < 150 MB, as for NDJSON).
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, ROOT, runMeasured as run } from './util.mjs';
import { interleaved } from './interleaved.mjs';

/**
 * `validate --csv` over `validate --ndjson` of the same envelopes, as this bench measured it
 * before the spreadsheet checks (encodings, lost letters, phones by libphonenumber; issue 38):
 * 2.33 s / 1.90 s on Node 20.20, 2026-11-25, at commit 3db3edd. The checks may cost at most a
 * fifth more (target: ratio <= 1.2 x this).
 */
const RATIO_BEFORE_SPREADSHEET_CHECKS = 1.23;

const ROWS = Number(process.env.BENCH_CSV_ROWS ?? 100_000);
const TEMPLATE = join(ROOT, 'examples', 'template.json');

/** Rows as a spreadsheet exports them: Latin and Arabic names, e-mail and WhatsApp signers, some with a witness. */
function recipients(dir, n) {
  const lines = ['contract_id;signer_name;signer_email;signer_phone;channel;witness_name;witness_phone;days'];
  for (let i = 0; i < n; i++) {
    const id = `BENCH-CSV-${i}`;
    // UAE mobiles (+971 50 …): numbers valid for their country, as libphonenumber checks them.
    const phone = `+97150${String(10_000_000 + i).slice(-7)}`;
    if (i % 3 === 0) lines.push(`${id};"Haddad; Rami ${i}";rami.${i}@example.com;;email;;;14`);
    else if (i % 3 === 1) lines.push(`${id};عمر خليل ${i};;${phone};whatsapp;سارة يوسف;${phone};30`);
    else lines.push(`${id};Layla Haddad ${i};layla.${i}@example.com;;email;;;7`);
  }
  const path = join(dir, 'recipients.csv');
  writeFileSync(path, `\uFEFF${lines.join('\r\n')}\r\n`);
  return path;
}

export async function benchCsv() {
  const dir = mkdtempSync(join(tmpdir(), 'sign-cli-bench-csv-'));
  const rows = [];
  try {
    const csv = recipients(dir, ROWS);
    const env = { SIGN_STATE_DIR: join(dir, 'state'), SIGN_CONFIG_DIR: join(dir, 'config') };
    // The same envelopes as NDJSON, rendered by the CLI itself (dry run --json), for the side-by-side figure.
    const rendered = await run(
      [BIN, 'envelopes', 'create', '--csv', csv, '--template', TEMPLATE, '--dry-run', '--json'],
      env,
    );
    const ndjson = join(dir, 'same.ndjson');
    writeFileSync(
      ndjson,
      `${rendered.arrivals.map((a) => JSON.stringify(JSON.parse(a.line).envelope)).join('\n')}\n`,
    );
    const parser = createRequire(join(ROOT, 'package.json')).resolve('csv-parse');
    const bare = await run(
      [
        '-e',
        `const {parse}=require(${JSON.stringify(parser)});let n=0;require('fs').createReadStream(${JSON.stringify(csv)}).pipe(parse({bom:true,delimiter:';'})).on('data',()=>n++).on('end',()=>console.log(n))`,
      ],
      {},
    );
    const fromCsv = await run(
      [BIN, 'envelopes', 'create', '--csv', csv, '--template', TEMPLATE, '--dry-run'],
      env,
    );
    // A tenth of the rows: constant memory means the same peak.
    const small = await run(
      [
        BIN,
        'envelopes',
        'create',
        '--csv',
        recipients(mkdtempSync(join(dir, 'small-')), ROWS / 10),
        '--template',
        TEMPLATE,
        '--dry-run',
      ],
      env,
    );
    const fromNdjson = await run([BIN, 'envelopes', 'create', '--ndjson', '-f', ndjson, '--dry-run'], env);
    const counted = (r) =>
      /dry run: ([\d,]+) envelopes valid/.exec(r.stderr)?.[1] ??
      `none (${r.stderr.trim().split('\n').at(-1)})`;
    rows.push([
      `--csv --template --dry-run, ${ROWS.toLocaleString('en-US')} rows: peak RSS`,
      `${fromCsv.peakMb} MB (target < 150 MB); ${counted(fromCsv)} valid; exit ${fromCsv.code}`,
    ]);
    rows.push([
      `--ndjson --dry-run, the same ${ROWS.toLocaleString('en-US')} envelopes: peak RSS`,
      `${fromNdjson.peakMb} MB; ${counted(fromNdjson)} valid; exit ${fromNdjson.code}`,
    ]);
    rows.push([
      'bare csv-parse read of the same CSV',
      `${bare.peakMb} MB; CSV run / bare ${(fromCsv.peakMb / bare.peakMb).toFixed(2)}, CSV / NDJSON ${(fromCsv.peakMb / fromNdjson.peakMb).toFixed(2)}`,
    ]);
    // validate: its peak memory, and its time beside validating the same envelopes as NDJSON (5 interleaved rounds).
    const validateCsv = await run([BIN, 'envelopes', 'validate', '--csv', csv, '--template', TEMPLATE], env);
    rows.push([
      `validate --csv, ${ROWS.toLocaleString('en-US')} rows: peak RSS`,
      `${validateCsv.peakMb} MB (target < 150 MB); exit ${validateCsv.code}`,
    ]);
    const [csvTime, ndjsonTime] = interleaved(
      [
        [process.execPath, [BIN, 'envelopes', 'validate', '--csv', csv, '--template', TEMPLATE]],
        [process.execPath, [BIN, 'envelopes', 'validate', '--ndjson', ndjson]],
      ],
      { ...process.env, ...env, NO_COLOR: '1' },
      { runs: 5, warmup: 1 },
    );
    const timeRatio = csvTime.ms / ndjsonTime.ms;
    const timeTarget = 1.2 * RATIO_BEFORE_SPREADSHEET_CHECKS;
    rows.push([
      'validate --csv time / validate --ndjson time, same envelopes',
      `${(csvTime.ms / 1000).toFixed(2)} s / ${(ndjsonTime.ms / 1000).toFixed(2)} s = ${timeRatio.toFixed(2)}${Number.isNaN(timeTarget) ? '' : ` (target <= ${timeTarget.toFixed(2)}: 1.2 x ${RATIO_BEFORE_SPREADSHEET_CHECKS} before the spreadsheet checks)`}`,
    ]);
    const growth = fromCsv.peakMb / small.peakMb;
    rows.push([
      `peak RSS, ${ROWS.toLocaleString('en-US')} / ${(ROWS / 10).toLocaleString('en-US')} rows`,
      `${growth.toFixed(2)} (target <= 1.15: memory does not grow with the rows)`,
    ]);
    const ok =
      fromCsv.code === 0 &&
      fromNdjson.code === 0 &&
      small.code === 0 &&
      validateCsv.code === 0 &&
      fromCsv.peakMb < 150 &&
      validateCsv.peakMb < 150 &&
      growth <= 1.15 &&
      rendered.arrivals.length === ROWS &&
      !(timeRatio > timeTarget);
    return {
      name: `envelopes create --csv (${ROWS.toLocaleString('en-US')} rows, validated, nothing sent)`,
      rows,
      ok,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
