/**
 * Tests that run the built binary build it first when src/ is newer than
 * dist/ (or there is no dist/), once for all the workers of a run: editing
 * src/ and running one end-to-end test never runs a stale build. In-process
 * tests import src/ and never wait for this.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths.js';

/** The newest modification time under these paths (files, recursively). */
function newest(paths: string[]): number {
  let latest = 0;
  const visit = (path: string): void => {
    if (!existsSync(path)) return;
    const stat = statSync(path);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    else latest = Math.max(latest, stat.mtimeMs);
  };
  for (const path of paths) visit(join(ROOT, path));
  return latest;
}

const built = () => {
  const outputs = ['dist/cli/main.cjs', 'dist/core/index.js'].map((p) => join(ROOT, p));
  if (!outputs.every(existsSync)) return 0;
  return Math.min(...outputs.map((p) => statSync(p).mtimeMs));
};
const stale = () =>
  newest(['src', 'bin', 'scripts/build', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) > built();

export function ensureFreshBuild(): void {
  if (!stale()) return;
  const lock = join(ROOT, 'node_modules', '.cache', 'sign-cli-test-build.lock');
  mkdirSync(join(lock, '..'), { recursive: true });
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Another worker is building: wait for it, then look again.
      if (Date.now() > deadline)
        throw new Error(`${lock} held for 3 minutes; remove it if no build is running`);
      execFileSync(process.execPath, ['-e', 'setTimeout(() => {}, 200)']);
      if (!stale()) return;
    }
  }
  try {
    if (stale()) {
      process.stderr.write('src/ is newer than dist/: building first (npm run build)\n');
      execFileSync(process.execPath, [join(ROOT, 'scripts', 'build', 'build.mjs')], {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    }
  } finally {
    rmdirSync(lock);
  }
}
