// What `webhooks listen --inspect` costs the listener: the same pre-signed distinct deliveries
// under wrk to `webhooks listen --json` and to `webhooks listen --json --inspect` (deliveries kept
// in SQLite), alternating rounds, on a Node that has node:sqlite (this one, else Node 24 from the
// registry, as the startup bench gets it). Target: the inspector keeps >= 0.90 of the listener's
// throughput. Then the weight of the inspector's first page load in chromium, with its store full
// (the newest 100 listed): target under 300 KB. The page's stream stays open; the page is left
// (about:blank) so that it ends and counts.
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { HOST_TARGET, registryNode } from '../scripts/build/registry-node.mjs';
import { BIN, spawnServer, stop } from './util.mjs';

const TARGET = 0.9;
/** The longer run: this many rounds' length, and as many rounds' deliveries. */
const SUSTAINED_SCALE = 4;
const PAGE_BUDGET = 300 * 1024;
const chromiumPath = () => process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** This Node when it has node:sqlite, else Node 24 from the registry. */
function nodeWithSqlite() {
  if (process.getBuiltinModule?.('node:sqlite')) return { node: process.execPath, version: process.version };
  const node = registryNode(HOST_TARGET, '24');
  return {
    node,
    version: `${registryNodeVersion(node)} (Node 24 from the registry: this Node has no node:sqlite)`,
  };
}

const registryNodeVersion = (node) => execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();

/** The bytes of the inspector page's first load in a fresh context. */
async function firstLoad(url) {
  try {
    accessSync(chromiumPath(), constants.X_OK);
  } catch {
    return undefined;
  }
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    chromiumSandbox: process.getuid?.() !== 0,
    args: ['--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    const sizes = [];
    const settle = (request) =>
      sizes.push(
        request.sizes().then(
          (s) => s.responseHeadersSize + s.responseBodySize,
          () => 0,
        ),
      );
    page.on('requestfinished', settle);
    page.on('requestfailed', settle);
    await page.goto(url);
    await page.waitForLoadState('load');
    await page.goto('about:blank');
    const bytes = (await Promise.all(sizes)).reduce((sum, n) => sum + n, 0);
    await context.close();
    return { bytes };
  } finally {
    await browser.close();
  }
}

/**
 * The newest delivery listed, once the inspector has written every one that came (its list waits
 * for that). A connection of its own each time: a kept-alive one may have been closed by the
 * server during a round, while this process was waiting for wrk.
 */
function allKept(inspectorUrl) {
  return new Promise((resolve, reject) => {
    http
      .get(`${inspectorUrl}api/deliveries?limit=1`, { agent: false }, (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')))
            : reject(new Error(`the inspector answered ${res.statusCode}`)),
        );
      })
      .on('error', reject);
  });
}

/** The inspector's URL from the line printed after "listening on" (spawnServer resolves at that one). */
async function inspectorLine(server) {
  for (let waited = 0; waited < 15_000; waited += 50) {
    const url = /inspect deliveries at (http:\/\/\S+)/.exec(server.lines.join('\n'))?.[1];
    if (url) return url;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no inspector line: ${server.lines.join(' | ')}`);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * `rounds` files of distinct signed deliveries come from `deliveriesFor(round)` (and one
 * `scale` times longer from `deliveriesFor(round, scale)`); `runWrk(server,
 * file, seconds)` drives one server for `seconds`.
 */
export async function benchInspect({ dir, secret, rounds, seconds, deliveriesFor, runWrk, warmFile }) {
  const { node, version } = nodeWithSqlite();
  const env = { SIGN_WEBHOOK_SECRET: secret, SIGN_STATE_DIR: join(dir, 'state') };
  const plain = await spawnServer([BIN, 'webhooks', 'listen', '--port', '0', '--json'], env, {
    stdout: 'ignore',
    node,
  });
  const inspecting = await spawnServer(
    [
      BIN,
      'webhooks',
      'listen',
      '--port',
      '0',
      '--json',
      '--inspect',
      '0',
      '--inspect-db',
      join(dir, 'inspector.sqlite'),
    ],
    env,
    { stdout: 'ignore', node },
  );
  try {
    const inspectorUrl = await inspectorLine(inspecting);
    runWrk(plain, warmFile, 2);
    runWrk(inspecting, warmFile, 2);
    await allKept(inspectorUrl);
    const ratios = [];
    const rates = { plain: [], inspecting: [] };
    const runs = { plain: [], inspecting: [] };
    let failed = 0;
    for (let round = 0; round < rounds; round++) {
      const file = await deliveriesFor(round);
      const order = round % 2 === 0 ? ['plain', 'inspecting'] : ['inspecting', 'plain'];
      const result = {};
      for (const which of order) {
        result[which] = runWrk(which === 'plain' ? plain : inspecting, file, seconds);
        // The inspector writes what came once deliveries pause: before the next round, so that
        // writing falls in no other round than its own. (Listing waits until all is kept.)
        if (which === 'inspecting') await allKept(inspectorUrl);
        failed += result[which].failed + result[which].socketErrors;
        rates[which].push(result[which].perSecond);
        runs[which].push(result[which]);
      }
      ratios.push(result.inspecting.perSecond / result.plain.perSecond);
    }
    ratios.sort((a, b) => a - b);
    const ratio = median(ratios);
    // Rounds of a few seconds end before the inspector's first write under load (it writes once
    // deliveries pause, or every 5 s): one longer run each shows what the writes during it cost.
    const longFile = await deliveriesFor(rounds, SUSTAINED_SCALE);
    const sustained = {};
    for (const which of ['plain', 'inspecting']) {
      sustained[which] = runWrk(which === 'plain' ? plain : inspecting, longFile, seconds * SUSTAINED_SCALE);
      failed += sustained[which].failed + sustained[which].socketErrors;
    }
    await allKept(inspectorUrl);
    // The server's CPU (every thread: the SQLite writer's too) per answered delivery: what the
    // inspector costs, less swayed than the rate by other work on a shared machine.
    const cpuPerDelivery = (runs) => median(runs.map((r) => (r.serverCores * r.elapsed * 1e6) / r.requests));
    const cpu = { plain: cpuPerDelivery(runs.plain), inspecting: cpuPerDelivery(runs.inspecting) };
    const longCpu = {
      plain: cpuPerDelivery([sustained.plain]),
      inspecting: cpuPerDelivery([sustained.inspecting]),
    };
    const kept = await allKept(inspectorUrl);
    const load = await firstLoad(inspectorUrl);
    return {
      rows: [
        [`--inspect: on Node`, version],
        ['webhooks listen --json, median', `${Math.round(median(rates.plain))} verified events/s`],
        [
          'webhooks listen --json --inspect (SQLite), median',
          `${Math.round(median(rates.inspecting))} verified events/s; the newest kept: #${kept.deliveries[0]?.id ?? 'none'}`,
        ],
        [
          'ratio with --inspect / without, median of rounds',
          `${ratio.toFixed(2)} (target >= ${TARGET.toFixed(2)}; rounds ranged ${ratios[0].toFixed(2)}-${ratios.at(-1).toFixed(2)}; ${failed} non-2xx or socket errors)`,
        ],
        [
          'server CPU per delivery (all threads), median',
          `${Math.round(cpu.plain)} µs without, ${Math.round(cpu.inspecting)} µs with --inspect (${((cpu.inspecting / cpu.plain - 1) * 100).toFixed(0)} % more)`,
        ],
        [
          `one run of ${seconds * SUSTAINED_SCALE} s each (the inspector writing during it)`,
          `ratio ${(sustained.inspecting.perSecond / sustained.plain.perSecond).toFixed(2)} (${Math.round(sustained.inspecting.perSecond)} / ${Math.round(sustained.plain.perSecond)} events/s); CPU ${Math.round(longCpu.plain)} µs without, ${Math.round(longCpu.inspecting)} µs with`,
        ],
        [
          "the inspector page's first load (100 deliveries listed)",
          load === undefined
            ? `not measured: ${chromiumPath()} is not installed`
            : `${(load.bytes / 1024).toFixed(1)} KB (target < 300 KB)`,
        ],
      ],
      ok: failed === 0 && ratio >= TARGET && (load === undefined || load.bytes < PAGE_BUDGET),
    };
  } finally {
    await stop(plain.child);
    await stop(inspecting.child);
  }
}
