// `npm run completions`: rewrites completions/ from the built command tree.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const files = { bash: 'sign-cli.bash', zsh: '_sign-cli', fish: 'sign-cli.fish' };
mkdirSync(`${root}completions`, { recursive: true });
for (const [shell, file] of Object.entries(files)) {
  const script = execFileSync(process.execPath, [`${root}bin/sign-cli.js`, 'completion', shell], {
    encoding: 'utf8',
  });
  writeFileSync(`${root}completions/${file}`, script);
  console.log(`completions/${file}`);
}
