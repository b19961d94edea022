// Stands in for @napi-rs/keyring inside a single executable (scripts/build/build-exe.mjs): the
// binding's native addon travels as the executable's asset `keyring.node`, and a native addon
// loads only from a file, so it is written once to the user's cache directory (mode 0600, in
// a directory of mode 0700 that is the user's own), named by its SHA-256, checked against the
// asset before every load, and loaded from there. Any failure is thrown: the CLI then keeps
// keys in the 0600 config file with its usual warning (src/cli/config/keychain.ts).
const sea = require('node:sea');
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { homedir } = require('node:os');
const { join } = require('node:path');
const { isPrivateDirectory, platformCacheDir } = require('../../../src/cli/launch/code-cache.ts');

const bytes = new Uint8Array(sea.getRawAsset('keyring.node'));
const sha256 = (data) => createHash('sha256').update(data).digest('hex');
const digest = sha256(bytes);
const dir = platformCacheDir(process.env, homedir);
if (!dir) throw new Error('no home directory to keep the keychain binding in');
mkdirSync(dir, { recursive: true, mode: 0o700 });
if (!isPrivateDirectory(dir))
  throw new Error(`${dir} is not a directory of your own that only you can write (chmod 700 ${dir})`);
const file = join(dir, `keyring-${digest.slice(0, 16)}.node`);
let current = false;
try {
  current = sha256(readFileSync(file)) === digest;
} catch {
  // No file yet, or one that cannot be read: written below.
}
if (!current) {
  const part = `${file}.${process.pid}`;
  writeFileSync(part, bytes, { mode: 0o600 });
  renameSync(part, file);
}
const addon = { exports: {} };
process.dlopen(addon, file);
module.exports = addon.exports;
