/**
 * The sandbox itself killed with SIGKILL three times while a bulk create is
 * writing to it, each time restarted on the same --data-dir (on a new port:
 * `--port 0`, so the CLI is re-pointed at it). Every envelope the CLI printed
 * as created must still be there after the last restart, and the final run
 * must leave exactly one envelope per input.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { seededRandom } from '../helpers/fault-proxy.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';
import { recordFigures } from './figures.js';
import { countEnvelopes, parseLines, seconds, spawnCli, summary, writeNdjson } from './support.js';

const SECTION = 'sandbox-crash';
const N = 400;
const CRASHES = 3;
const SEED = 77;
// 20 ms per request so that each run is still writing when the sandbox is killed.
const SANDBOX_ARGS = ['--rate-limit', '6000', '--latency', '20'];

let sandbox: SandboxProcess | undefined;
afterAll(async () => {
  await sandbox?.stop();
});

describe('the sandbox killed during writes', () => {
  it(`keeps every envelope the CLI printed as created through ${CRASHES} SIGKILLs and restarts`, async () => {
    const dataDir = tempDir('sign-cli-crash-data-');
    sandbox = await startSandboxProcess({ dataDir, args: SANDBOX_ARGS });
    const apiKey = sandbox.apiKey;
    const work = tempDir('sign-cli-crash-');
    const file = writeNdjson(work, 'crash', N);
    const stateDir = tempDir('sign-cli-crash-state-');
    // No retries while the sandbox is down, so each cut-off run ends by itself quickly.
    const command = [
      'envelopes',
      'create',
      '--ndjson',
      '-f',
      file,
      '--rate',
      '6000',
      '--json',
      '--timeout',
      '2',
    ];
    const args = [...command, '--retries', '0'];
    const random = seededRandom(SEED);
    const started = Date.now();
    /** Envelope ids the CLI printed as created, with the input and run that printed them. */
    const claimed = new Map<string, string>();
    const claim = (stdout: string, run: string) => {
      for (const line of parseLines(stdout)) {
        // The first run to print an id keeps it (later runs print the same id as already created).
        if (line.status === 'created' && line.envelope && !claimed.has(line.envelope.id))
          claimed.set(line.envelope.id, `${run} ${line.input}`);
      }
    };
    const exitCodes: string[] = [];
    const crashPoints: number[] = [];
    const restartMs: number[] = [];
    const ports = new Set<string>([new URL(sandbox.baseUrl).port]);

    for (let crash = 1; crash <= CRASHES; crash++) {
      const current: SandboxProcess = sandbox;
      const target = 20 + Math.floor(random() * 60);
      let created = 0;
      let killing: Promise<void> | undefined;
      const run = spawnCli(args, {
        env: { SIGN_BASE_URL: current.baseUrl, SIGN_API_KEY: apiKey, SIGN_STATE_DIR: stateDir },
        timeoutMs: 90_000,
        onLine: (line) => {
          try {
            const parsed = JSON.parse(line) as { status?: string; already_created?: boolean };
            if (parsed.status === 'created' && !parsed.already_created) created++;
          } catch {
            return;
          }
          // The sandbox dies while this run's requests are on the wire.
          if (created >= target && !killing) killing = current.stop('SIGKILL');
        },
      });
      const deadline = Date.now() + 60_000;
      while (!killing && run.child.exitCode === null && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      expect(killing, `crash ${crash}: the run ended before ${target} envelopes were created`).toBeDefined();
      await killing;
      crashPoints.push(created);
      const down = Date.now();
      sandbox = await startSandboxProcess({ dataDir, args: SANDBOX_ARGS });
      restartMs.push(Date.now() - down);
      ports.add(new URL(sandbox.baseUrl).port);
      expect(sandbox.apiKey, 'the API key survives the restart').toBe(apiKey);
      // The cut-off run fails what it cannot send (its base URL is gone) and ends by itself.
      const result = await run.done;
      expect(result.signal, result.stderr.slice(-1500)).toBeNull();
      exitCodes.push(String(result.code));
      claim(result.stdout, `run ${crash}`);
    }

    // Re-pointed at the restarted sandbox: the rest is sent, what exists is recognised by its key.
    const final = await runCli([...command, '--retries', '5'], {
      env: { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: apiKey, SIGN_STATE_DIR: stateDir },
      timeoutMs: 90_000,
    });
    exitCodes.push(String(final.code));
    claim(final.stdout, 'final run');
    const finalSummary = summary(final.stderr);

    // Every envelope printed as created, asked for one by one over the API after the last restart.
    const missing: string[] = [];
    const queue = [...claimed];
    const baseUrl = sandbox.baseUrl;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let next = queue.pop(); next; next = queue.pop()) {
          const [id, where] = next;
          const response = await fetch(`${baseUrl}/api/v1/envelopes/${id}`, {
            headers: { authorization: `Bearer ${apiKey}` },
          });
          const body = (await response.json()) as { id?: string };
          if (response.status !== 200 || body.id !== id)
            missing.push(`${id} (${where}): HTTP ${response.status}`);
        }
      }),
    );
    const counts = await countEnvelopes(sandbox.baseUrl, apiKey, 'REL-crash-');
    const claimedBeforeFinal = [...claimed.values()].filter((where) => !where.startsWith('final')).length;

    recordFigures(SECTION, {
      'envelopes expected': N,
      'sandbox crashes (SIGKILL)': CRASHES,
      'envelopes created by the run at each crash': crashPoints.join(', '),
      'restart time (ms)': restartMs.join(', '),
      'distinct ports used': ports.size,
      'run exit codes': exitCodes.join(', '),
      'printed as created before the last restart': claimedBeforeFinal,
      'printed as created, all runs': claimed.size,
      'printed as created but missing': missing.length,
      'final run: created/already/failed': finalSummary
        ? `${finalSummary.created}/${finalSummary.already}/${finalSummary.failed}`
        : 'no summary',
      'envelopes found': counts.found,
      'duplicate contract_ids': counts.duplicates,
      'wall time (s)': seconds(started),
    });

    expect(missing).toEqual([]);
    expect(final.code, final.stderr.slice(-2000)).toBe(0);
    expect(counts.duplicates).toBe(0);
    expect(counts.found).toBe(N);
    expect(claimedBeforeFinal).toBeGreaterThan(0);
  });
});
