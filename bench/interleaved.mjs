// Whole commands timed side by side (bench/startup.mjs, bench/verify.mjs): each is spawned, its wall
// time taken from spawn to exit, in rounds that interleave and rotate every command with its
// baseline, so a host whose speed drifts affects all of them alike; each ratio is the median of
// the per-round ratios to the baseline's run of the same round.
import { spawnSync } from 'node:child_process';
import { ROOT } from './util.mjs';

export function timed(command, args, env) {
  const started = process.hrtime.bigint();
  const result = spawnSync(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited with ${result.status ?? result.signal}: ${String(result.stderr).slice(0, 500)}`,
    );
  }
  return ms;
}

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * Interleaved and rotated runs of the baseline and each command: [base, ...commands], each with
 * its median time and (for the commands) the median of its per-round ratios to the baseline.
 */
export function interleaved(runs, env, { runs: rounds, warmup }) {
  evictFromPageCache([...new Set(runs.map(([command]) => command))]);
  for (let i = 0; i < warmup; i++) for (const [command, args] of runs) timed(command, args, env);
  const times = runs.map(() => []);
  for (let round = 0; round < rounds; round++) {
    // Rotate the order each round: no command always follows the same one.
    for (let k = 0; k < runs.length; k++) {
      const i = (k + round) % runs.length;
      times[i].push(timed(runs[i][0], runs[i][1], env));
    }
  }
  return times.map((own) => ({
    ms: median(own),
    ratio: median(own.map((t, round) => t / times[0][round])),
  }));
}

/**
 * Drops each binary's pages from the page cache, so the warm-up reads them back from disk as
 * they are read after a reboot. A file just written (a build's executable, a Node just
 * downloaded) stays cached in larger pieces that the kernel maps faster: on this VM such a copy
 * of Node 26 started 2 ms sooner than the same bytes read from disk, which made the single
 * executable, built a moment before, read 0.1 better against its Node than it is. GNU dd's
 * nocache flag (Linux); elsewhere the binaries are measured as they are, and the run says so.
 */
function evictFromPageCache(files) {
  for (const file of files) {
    const result = spawnSync('dd', [`if=${file}`, 'iflag=nocache', 'count=0', 'status=none'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    if (result.status !== 0) {
      console.error(
        `note: could not drop ${file} from the page cache (${String(result.stderr ?? result.error).trim() || 'dd failed'}); measured as it is`,
      );
    }
  }
}
