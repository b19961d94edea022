// `npm run demo`: a local sandbox on a free port, one envelope created through
// the built CLI exactly as a user would type it, then the sandbox is stopped.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'sign-cli.js');
const dataDir = mkdtempSync(join(tmpdir(), 'sign-cli-demo-'));
const env = { ...process.env };
for (const name of Object.keys(env)) if (name.startsWith('SIGN_')) delete env[name];

const bold = process.stdout.isTTY && !process.env.NO_COLOR ? (t) => `\x1b[1m${t}\x1b[0m` : (t) => t;
const step = (text) => process.stdout.write(`\n${bold(`# ${text}`)}\n`);

step('Start the local sandbox on a free port');
const sandbox = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--json', '--data-dir', dataDir], {
  env,
  stdio: ['ignore', 'pipe', 'inherit'],
});
const first = await new Promise((resolve, reject) => {
  createInterface({ input: sandbox.stdout }).once('line', resolve);
  sandbox.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
});
const { base_url: baseUrl, api_key: apiKey } = JSON.parse(first);
console.log(`sandbox at ${baseUrl} (its test key and webhook secret are in ${join(dataDir, 'credentials.env')})`);

let failed = false;
function cli(args) {
  console.log(`$ sign-cli ${args.join(' ')}`);
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd: root,
    env: { ...env, SIGN_BASE_URL: baseUrl, SIGN_API_KEY: apiKey },
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  process.stdout.write(result.stdout);
  if (result.status !== 0) failed = true;
  return result.stdout;
}

try {
  step('Validate the example envelope (no network)');
  cli(['envelopes', 'validate', 'examples/envelope.json']);

  step('Create it against the sandbox');
  const created = cli(['envelopes', 'create', '-f', 'examples/envelope.json']);
  const id = /created (env_\w+)/.exec(created)?.[1];

  if (id) {
    step('Read it back');
    cli(['envelopes', 'get', id]);
  }
} finally {
  step('Stop the sandbox');
  sandbox.kill('SIGTERM');
  await new Promise((resolve) => sandbox.once('exit', resolve));
  rmSync(dataDir, { recursive: true, force: true });
  console.log(failed ? 'demo failed' : 'done');
}
process.exitCode = failed ? 1 : 0;
