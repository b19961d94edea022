// `npm run docs`: writes the generated reference from the commands' own source:
// docs/commands/*.md, man/*.1 and the package.json `man` list (src/cli/reference).
// It bundles src/cli/reference/generate.ts with esbuild on the fly, so it needs no build.
// test/cli/reference.test.ts fails when the committed files differ from what this writes.
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
// Inside node_modules/.cache: the bundle's bare imports resolve to the repository's packages,
// and src/core/version.ts finds package.json at ../../, as it does from src/core.
const bundle = join(root, 'node_modules', '.cache', `sign-cli-reference-${process.pid}.mjs`);
mkdirSync(dirname(bundle), { recursive: true });
try {
  await esbuild.build({
    entryPoints: [join(root, 'src/cli/reference/generate.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile: bundle,
    logLevel: 'error',
  });
  const { renderReference, manList, DOCS_DIR, MAN_DIR } = await import(pathToFileURL(bundle).href);
  const files = await renderReference();
  // What a removed command left behind goes too.
  for (const dir of [DOCS_DIR, MAN_DIR]) {
    mkdirSync(join(root, dir), { recursive: true });
    for (const name of readdirSync(join(root, dir)))
      if (!files.has(`${dir}/${name}`)) rmSync(join(root, dir, name));
  }
  for (const [path, content] of files) writeFileSync(join(root, path), content);
  const pkgPath = join(root, 'package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
  pkg.man = manList(files);
  if (!pkg.files.includes('man')) pkg.files.push('man');
  writeFileSync(pkgPath, `${JSON.stringify(pkg, null, 2)}\n`);
  console.log(
    `wrote ${files.size} files under ${DOCS_DIR}/ and ${MAN_DIR}/, and package.json man (${pkg.man.length} pages)`,
  );
} finally {
  rmSync(bundle, { force: true });
}
