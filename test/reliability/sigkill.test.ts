/**
 * A 300-envelope NDJSON create SIGKILLed at five random (seeded) points, each
 * followed by a re-run of the same command with the same journal
 * (SIGN_STATE_DIR); the last run completes, and a run after that sends nothing
 * new. Exactly 300 envelopes, no contract_id twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { seededRandom } from '../helpers/fault-proxy.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';
import { recordFigures } from './figures.js';
import {
  countEnvelopes,
  parseLines,
  seconds,
  sleep,
  spawnCli,
  summary,
  worstCreatedWindow,
  writeNdjson,
} from './support.js';

const SECTION = 'sigkill';
const N = 300;
const KILLS = 5;
const SEED = 4_242;

let sandbox: SandboxProcess;
beforeAll(async () => {
  sandbox = await startSandboxProcess({ args: ['--rate-limit', '6000'] });
  // 30 ms per request, so a run lasts long enough to be cut anywhere.
  await sandbox.control('/_sandbox/faults', { latency_ms: 30 });
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('envelopes create killed with SIGKILL', () => {
  it(`${KILLS} kills and re-runs, then a full run: exactly ${N} envelopes; a re-run after success sends nothing`, async () => {
    const work = tempDir('sign-cli-sigkill-');
    const file = writeNdjson(work, 'sigkill', N);
    const env = {
      SIGN_BASE_URL: sandbox.baseUrl,
      SIGN_API_KEY: sandbox.apiKey,
      SIGN_STATE_DIR: tempDir('sign-cli-sigkill-state-'),
    };
    const args = ['envelopes', 'create', '--ndjson', '-f', file, '--rate', '6000', '--json'];
    const random = seededRandom(SEED);
    const started = Date.now();
    /** input -> envelope id, from every line any run printed as created. */
    const printed = new Map<string, string>();
    const conflicts: string[] = [];
    const note = (stdout: string) => {
      for (const line of parseLines(stdout)) {
        if (line.status !== 'created' || !line.envelope) continue;
        const known = printed.get(line.input);
        if (known && known !== line.envelope.id)
          conflicts.push(`${line.input}: ${known} then ${line.envelope.id}`);
        printed.set(line.input, line.envelope.id);
      }
    };
    const killPoints: string[] = [];
    const afterKill: number[] = [];

    for (let k = 1; k <= KILLS; k++) {
      const before = (await countEnvelopes(sandbox.baseUrl, sandbox.apiKey, 'REL-sigkill-')).found;
      const remaining = N - before;
      // Kills 1, 2, 4 and 5 land after a random number of envelopes created by this run (requests
      // are in flight then); kill 3 at a random time after start (start-up, validation, first sends).
      const byTime = k === 3;
      const target = byTime
        ? 200 + Math.floor(random() * 1300)
        : 1 + Math.floor(random() * Math.max(1, Math.floor(remaining / 3)));
      const extraMs = Math.floor(random() * 25);
      let fresh = 0;
      let killed = false;
      const kill = (child: ReturnType<typeof spawnCli>['child']) => {
        if (killed) return;
        killed = true;
        setTimeout(() => child.kill('SIGKILL'), extraMs);
      };
      const run = spawnCli(args, {
        env,
        timeoutMs: 60_000,
        onLine: (line) => {
          try {
            const parsed = JSON.parse(line) as { status?: string; skipped?: boolean };
            if (parsed.status === 'created' && !parsed.skipped) fresh++;
          } catch {
            return;
          }
          if (!byTime && fresh >= target) kill(run.child);
        },
      });
      if (byTime) setTimeout(() => kill(run.child), target);
      const result = await run.done;
      note(result.stdout);
      // Every one of the five runs was cut by the kill, not finished before it.
      expect(result.signal, `kill ${k}: ${result.stderr.slice(-1500)}`).toBe('SIGKILL');
      killPoints.push(byTime ? `${target + extraMs} ms` : `${fresh} new`);
      afterKill.push((await countEnvelopes(sandbox.baseUrl, sandbox.apiKey, 'REL-sigkill-')).found);
      // Requests the killed process had on the wire may still be handled by the sandbox (30 ms).
      await sleep(100);
    }

    const final = await runCli(args, { env, timeoutMs: 90_000 });
    note(final.stdout);
    const finalSummary = summary(final.stderr);
    const afterFinal = await countEnvelopes(sandbox.baseUrl, sandbox.apiKey, 'REL-sigkill-');
    const requestsBefore = (await sandbox.control<{ requests: number }>('/_sandbox/state')).requests;
    const again = await runCli(args, { env, timeoutMs: 60_000 });
    const requestsSent =
      (await sandbox.control<{ requests: number }>('/_sandbox/state')).requests - requestsBefore - 1;
    const afterAgain = await countEnvelopes(sandbox.baseUrl, sandbox.apiKey, 'REL-sigkill-');

    recordFigures(SECTION, {
      'envelopes expected': N,
      'kills (SIGKILL)': killPoints.length,
      'kill points': killPoints.join(', '),
      'envelopes after each kill': afterKill.join(', '),
      'final run: created/already/failed': finalSummary
        ? `${finalSummary.created}/${finalSummary.already}/${finalSummary.failed}`
        : 'no summary',
      'envelopes found': afterFinal.found,
      'duplicate contract_ids': afterFinal.duplicates,
      'run after success: envelopes found': afterAgain.found,
      'run after success: API requests sent': requestsSent,
      'worst 60 s: envelopes created (created_at)': worstCreatedWindow(afterFinal.envelopes),
      'wall time (s)': seconds(started),
    });

    expect(final.code, final.stderr.slice(-2000)).toBe(0);
    expect(final.stderr).toContain('resuming an earlier run');
    expect(afterFinal.duplicates).toBe(0);
    expect(afterFinal.found).toBe(N);
    expect(afterFinal.distinct).toBe(N);
    const finalLines = parseLines(final.stdout);
    expect(finalLines).toHaveLength(N);
    expect(finalLines.every((l) => l.status === 'created')).toBe(true);
    // Whatever any run printed as created is the envelope the sandbox holds for that input.
    expect(conflicts).toEqual([]);
    expect(printed.size).toBe(N);
    const held = new Set(afterFinal.envelopes.map((e) => e.id));
    expect([...printed.values()].filter((id) => !held.has(id))).toEqual([]);

    expect(again.code, again.stderr.slice(-2000)).toBe(0);
    expect(again.stderr).toContain(`already created ${N}`);
    expect(summary(again.stderr)).toEqual({ created: 0, already: N, failed: 0 });
    expect(afterAgain.found).toBe(N);
    expect(afterAgain.duplicates).toBe(0);
    expect(requestsSent).toBe(0);
  });
});
