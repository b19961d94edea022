// `npm run sizes`: measures what a user downloads and writes it to docs/figures/install.md, the one
// file the docs quote sizes from. Builds only read: `npm run build:exe` and `npm pack` leave
// tracked files alone, so a build in a clone changes nothing git sees.
//
// It measures the executables under dist/exe (every target: `npm run build:exe` first) and the npm
// package as `npm pack` makes it from the current dist/ (`npm run build` first).
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXE_NODE_VERSION } from './build/build-exe-settings.mjs';
import { figureTable, measuredOn, updateFigures } from './figures-file.mjs';
import { NODE_PACKAGES } from './build/registry-node.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const exeOf = (target) =>
  join(root, 'dist', 'exe', `sign-cli-${target}${target.startsWith('win') ? '.exe' : ''}`);
const missing = Object.keys(NODE_PACKAGES).filter((target) => !existsSync(exeOf(target)));
if (missing.length > 0 || !existsSync(join(root, 'dist', 'cli', 'main.cjs'))) {
  console.error(
    `error: nothing to measure (${missing.length ? `no ${missing.map((t) => `sign-cli-${t}`).join(', ')} in dist/exe` : 'no dist/cli'}): run npm run build && npm run build:exe first`,
  );
  process.exit(2);
}
const rows = Object.keys(NODE_PACKAGES).map((target) => [
  `single executable, ${target}`,
  `${(statSync(exeOf(target)).size / 1e6).toFixed(1)} MB`,
]);
const [pack] = JSON.parse(
  execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
);
rows.push(
  ['npm package, tarball', `${(pack.size / 1e6).toFixed(1)} MB`],
  ['npm package, installed (no dependencies)', `${(pack.unpackedSize / 1e6).toFixed(1)} MB`],
);
const file = join(root, 'docs', 'figures', 'install.md');
updateFigures(
  file,
  {
    title: 'Install sizes',
    writer: 'npm run sizes',
    intro: `The executables carry Node ${EXE_NODE_VERSION}; the npm package needs Node 20.19 or later.`,
  },
  { sizes: `## Sizes\n\n${measuredOn()}\n\n${figureTable(rows, ['What', 'Size'])}` },
);
for (const [what, size] of rows) console.log(`${what.padEnd(42)} ${size}`);
console.log(`written to ${file}`);
