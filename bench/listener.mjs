// Listener throughput: verified events per second against a bare node:http
// server measured in the same run, and the listener's memory after 100,000+
// distinct events. Both servers get the same pre-signed requests from the same
// load generator. Rounds alternate (bare, then listener) and the headline is the
// median of the per-round ratios: two cores shared with the generator, on a
// host whose speed drifts, make any single round noisy, and a pair of
// back-to-back rounds sees the same drift.
import { newStandardSecret, signStandard } from '../dist/core/index.js';
import { BIN, ROOT, blast, rssMb, spawnServer, stop } from './util.mjs';

const ROUNDS = 7;
const PER_ROUND = Number(process.env.BENCH_LISTENER_EVENTS ?? 25_000);
const WARMUP = 5_000;
/** Connections the load generator keeps busy (BENCH_LISTENER_CONNECTIONS to change). */
const CONNECTIONS = Number(process.env.BENCH_LISTENER_CONNECTIONS ?? 64);

function deliveries(secret, count, prefix) {
  const now = Math.floor(Date.now() / 1000);
  const out = [];
  for (let i = 0; i < count; i++) {
    const id = `evt_${prefix}${i.toString(36).padStart(8, '0')}`;
    const body = JSON.stringify({
      id,
      type: 'signer.signed',
      timestamp: new Date().toISOString(),
      data: { envelope_id: `env_${i}`, contract_id: 'CTR-1', envelope_status: 'sent', signer: { id: 'sgn_1', name: 'Layla Haddad', channel: 'email', order: 1, status: 'signed' } },
    });
    out.push({ path: '/webhooks', body, headers: { 'content-type': 'application/json', ...signStandard(secret, id, now, body) } });
  }
  return out;
}

export async function benchListener() {
  const secret = newStandardSecret();
  const warm = deliveries(secret, WARMUP, 'w');
  const rounds = Array.from({ length: ROUNDS }, (_, r) => deliveries(secret, PER_ROUND, `r${r}_`));

  const bare = await spawnServer([`${ROOT}bench/bare-server.mjs`]);
  // The listener's event lines go to /dev/null: it still formats and writes every one.
  const listener = await spawnServer([BIN, 'webhooks', 'listen', '--port', '0', '--json'], { SIGN_WEBHOOK_SECRET: secret }, { stdout: 'ignore' });
  await blast(bare.url, warm);
  await blast(listener.url, warm);
  const rssWarm = rssMb(listener.child.pid);

  const bareRates = [];
  const listenerRates = [];
  let answered = 0;
  for (const load of rounds) {
    bareRates.push((await blast(bare.url, load, CONNECTIONS)).perSecond);
    const measured = await blast(listener.url, load, CONNECTIONS);
    listenerRates.push(measured.perSecond);
    answered += measured.statuses[200] ?? 0;
  }
  const events = WARMUP + ROUNDS * PER_ROUND;
  const rssAfter = rssMb(listener.child.pid);
  // Redeliveries of ids already seen: duplicates, and memory must still not grow.
  await blast(listener.url, rounds[0]);
  const rssAfterDuplicates = rssMb(listener.child.pid);
  await stop(bare.child);
  await stop(listener.child);

  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const ratios = listenerRates.map((rate, i) => rate / bareRates[i]).sort((a, b) => a - b);
  const ratio = median(ratios);
  return {
    name: `webhooks listen (${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${PER_ROUND})`,
    rows: [
      ['bare node:http (baseline), median / best', `${Math.round(median(bareRates))} / ${Math.round(Math.max(...bareRates))} req/s`],
      ['webhooks listen --json, median / best', `${Math.round(median(listenerRates))} / ${Math.round(Math.max(...listenerRates))} verified events/s (${answered}/${ROUNDS * PER_ROUND} answered 200)`],
      ['ratio listener / baseline, median of rounds', `${ratio.toFixed(2)} (target >= 0.70; rounds ranged ${ratios[0].toFixed(2)}-${ratios.at(-1).toFixed(2)})`],
      ['ratio of the best rounds', (Math.max(...listenerRates) / Math.max(...bareRates)).toFixed(2)],
      ['listener RSS after warm-up', `${rssWarm} MB`],
      [`listener RSS after ${events} distinct events`, `${rssAfter} MB (target < 150 MB)`],
      [`listener RSS after ${PER_ROUND} more (duplicates)`, `${rssAfterDuplicates} MB`],
    ],
    ok: answered === ROUNDS * PER_ROUND && ratio >= 0.7 && rssAfter < 150,
  };
}
