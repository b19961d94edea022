// Runs one example line that starts a server in the foreground (`bash -c <line>`), passes its
// output through, and presses Ctrl-C once the server says it is ready: one SIGINT, to the server
// alone, as a terminal sends it to the foreground process (a second one, or one to the whole
// group, is "Ctrl-C again": quit at once, exit 130). Waiting for the ready line, not for a
// moment, is what makes this independent of the machine's speed: a server still starting when
// a timer fires would take the Ctrl-C as an interrupted start-up.
//
// It exits as the server did (128 + the signal's number when a signal ended it, as bash
// reports). A server that never says it is ready, or does not stop after the Ctrl-C, is a
// hang: after HANG_GUARD_MS it is killed and this exits 1 with a line saying which, so the
// page fails naming the line instead of passing or hanging the test.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

/**
 * What the servers of the examples print once they serve: `webhooks listen` and `sandbox`
 * ("listening on …", on stderr or stdout), `sandbox --json` (its first stdout line, the
 * credentials), `sandbox outbox --follow` ("following the outbox …").
 */
const READY = /listening on |^\{"base_url"|following the outbox /m;
/** A guard against a hang, not a speed limit: a server ready in a second waits no longer. */
const HANG_GUARD_MS = 60_000;
/** What is kept of the output to find the ready line in (a line split between two reads). */
const KEPT_CHARS = 4096;

const line = process.argv[2];
if (line === undefined) {
  process.stderr.write('usage: ctrl-c-when-ready.mjs <command line>\n');
  process.exit(2);
}

const server = spawn('bash', ['-c', line], { stdio: ['inherit', 'pipe', 'pipe'] });
let seen = '';
let stage = 'start'; // 'start' (not ready yet), then 'stopping' (Ctrl-C sent)

const hang = (what) =>
  setTimeout(() => {
    process.stderr.write(`ctrl-c-when-ready: \`${line}\` ${what} within ${HANG_GUARD_MS / 1000} s; killed\n`);
    server.kill('SIGKILL');
    process.exitCode = 1;
    stage = 'hung';
  }, HANG_GUARD_MS);
let guard = hang('never said it was ready');

function watch(chunk) {
  if (stage !== 'start') return;
  seen = (seen + chunk.toString('utf8')).slice(-KEPT_CHARS);
  if (!READY.test(seen)) return;
  stage = 'stopping';
  clearTimeout(guard);
  guard = hang('did not stop after Ctrl-C');
  server.kill('SIGINT');
}
server.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  watch(chunk);
});
server.stderr.on('data', (chunk) => {
  process.stderr.write(chunk);
  watch(chunk);
});
server.on('close', (code, signal) => {
  clearTimeout(guard);
  if (stage === 'hung') return;
  if (stage === 'start')
    process.stderr.write(`ctrl-c-when-ready: \`${line}\` ended before it said it was ready\n`);
  process.exitCode = code ?? 128 + (constants.signals[signal] ?? 0);
});
