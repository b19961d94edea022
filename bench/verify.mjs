// `envelopes verify` of a one-signature sandbox signed copy (PAdES B-T), and of a one-signature
// PAdES B-LTA copy (its revocation data checked, a document timestamp over it), next to `node -e 0`
// of the same Node and to poppler's pdfsig on the sandbox's file (when installed), in interleaved
// rounds (bench/interleaved.mjs). Targets: verify within 2.5 times the bare start of Node 24 (issue
// 37) for the B-T copy, 2 times for the B-LTA one (issue 54), and the same reported for this
// machine's Node. The B-T copy comes from a sandbox started for the run; pdfsig checks it against
// an NSS database trusting the sandbox CA, so both answer "valid". The B-LTA copy is made of
// OpenSSL's parts (test/helpers/ltv-copy.ts, bundled here with esbuild) until the sandbox's copies
// are B-LTA themselves.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN, ROOT, isolatedEnv, spawnServer, stop } from './util.mjs';
import { interleaved } from './interleaved.mjs';
import { HOST_TARGET, registryNode } from '../scripts/build/registry-node.mjs';

const RUNS = Number(process.env.BENCH_VERIFY_RUNS ?? 21);
const TARGET = 2.5;
const LTA_TARGET = 2;

/** A B-LTA copy of OpenSSL's parts and its CA: test/helpers/ltv-copy.ts, bundled for this run. */
async function ltaCopy(dir) {
  const esbuild = await import('esbuild');
  const outfile = join(dir, 'ltv-copy.mjs');
  await esbuild.build({
    entryPoints: [join(ROOT, 'test', 'helpers', 'ltv-copy.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'warning',
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
  });
  const made = join(dir, 'ltv');
  mkdirSync(made);
  const { bltaCopy } = await import(pathToFileURL(outfile).href);
  return bltaCopy(made);
}

/** The command's path on PATH, or null. */
const which = (command) => {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : null;
};

/** A sandbox's signed copy of the sample envelope, and the sandbox's CA. */
async function signedCopy(dir, env) {
  const { child, firstLine } = await spawnServer(
    [BIN, 'sandbox', '--port', '0', '--json', '--speed', '100', '--data-dir', join(dir, 'sandbox')],
    env,
  );
  try {
    const { base_url: baseUrl, api_key: apiKey, ca_file: caFile } = JSON.parse(firstLine);
    const cliEnv = { ...env, SIGN_BASE_URL: baseUrl, SIGN_API_KEY: apiKey };
    const cli = (...args) =>
      execFileSync(process.execPath, [BIN, ...args], { cwd: ROOT, env: cliEnv, encoding: 'utf8' });
    execFileSync(
      'sh',
      ['-c', `"${process.execPath}" "${BIN}" envelopes sample > "${join(dir, 'envelope.json')}"`],
      { env: cliEnv },
    );
    const id = cli(
      'envelopes',
      'create',
      '-f',
      join(dir, 'envelope.json'),
      '--new',
      '--query',
      'envelope.id',
    ).trim();
    const file = join(dir, 'signed.pdf');
    cli('envelopes', 'download', id, '-o', file, '--wait');
    return { file, caFile };
  } finally {
    await stop(child);
  }
}

export async function benchVerify() {
  const dir = mkdtempSync(join(tmpdir(), 'sign-cli-bench-verify-'));
  const env = isolatedEnv(dir, { CI: '1' });
  try {
    const { file, caFile } = await signedCopy(dir, env);
    const lta = await ltaCopy(dir);
    const pdfsigBin = which('pdfsig');
    const pdfsig = pdfsigBin && which('certutil') ? join(dir, 'nss') : null;
    if (pdfsig) {
      mkdirSync(pdfsig);
      execFileSync('certutil', ['-N', '-d', `sql:${pdfsig}`, '--empty-password'], { stdio: 'ignore' });
      execFileSync('certutil', ['-A', '-d', `sql:${pdfsig}`, '-n', 'sandbox', '-t', 'CT,C,C', '-i', caFile], {
        stdio: 'ignore',
      });
    }
    const rows = [];
    let ok = true;
    for (const [node, name] of [
      [registryNode(HOST_TARGET, '24'), 'Node 24'],
      [process.execPath, `Node ${process.versions.node.split('.')[0]} (this machine)`],
    ]) {
      const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
      const runs = [
        [node, ['-e', '0']],
        [node, [BIN, 'envelopes', 'verify', file, '--trust', caFile]],
        [node, [BIN, 'envelopes', 'verify', lta.file, '--trust', lta.caFile]],
        ...(pdfsig ? [[pdfsigBin, ['-nssdir', `sql:${pdfsig}`, file]]] : []),
      ];
      const [base, verify, verifyLta, poppler] = interleaved(runs, env, { runs: RUNS, warmup: 2 });
      const met = verify.ratio <= TARGET;
      const ltaMet = verifyLta.ratio <= LTA_TARGET;
      if (name === 'Node 24') ok &&= met && ltaMet;
      rows.push([`${name} (${version}): node -e 0 (baseline)`, `${base.ms.toFixed(1)} ms`]);
      rows.push([
        `${name} (${version}): sign-cli envelopes verify`,
        `${verify.ms.toFixed(1)} ms  ratio ${verify.ratio.toFixed(2)}  (target <= ${TARGET.toFixed(2)}${name === 'Node 24' ? '' : ', reported'}: ${met ? 'met' : 'NOT met'})`,
      ]);
      rows.push([
        `${name} (${version}): sign-cli envelopes verify, B-LTA`,
        `${verifyLta.ms.toFixed(1)} ms  ratio ${verifyLta.ratio.toFixed(2)}  (target <= ${LTA_TARGET.toFixed(2)}${name === 'Node 24' ? '' : ', reported'}: ${ltaMet ? 'met' : 'NOT met'})`,
      ]);
      if (poppler)
        rows.push([
          `${name} (${version}): pdfsig, same file`,
          `${poppler.ms.toFixed(1)} ms  ratio ${poppler.ratio.toFixed(2)}`,
        ]);
    }
    if (!pdfsig)
      rows.push(['pdfsig', 'not installed (apt-get install poppler-utils libnss3-tools): not measured']);
    return {
      name: `verify of a one-signature sandbox copy, PAdES B-T, and of a B-LTA copy of OpenSSL's parts (median of ${RUNS} interleaved rounds; ratio: median of the per-round ratios to node -e 0 of the same Node)`,
      rows,
      ok,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
