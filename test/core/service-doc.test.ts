/** docs/service.md, the page messages and the README cite, says what the code does. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS, SCOPES } from '../../src/core/endpoints.js';
import { envelopeSchema, signerSchema } from '../../src/core/envelope/zod-schema.js';
import { ENVELOPE_STATUSES } from '../../src/core/envelope/states.js';
import { ROOT } from '../helpers/paths.js';

const page = readFileSync(join(ROOT, 'docs', 'service.md'), 'utf8');

describe('docs/service.md', () => {
  it('lists every endpoint with its method, path and scope, as src/core/endpoints.ts has them', () => {
    for (const [operation, endpoint] of Object.entries(ENDPOINTS)) {
      const row = page.split('\n').find((line) => line.startsWith(`| \`${operation}\` |`));
      expect(row, operation).toBeDefined();
      expect(row).toContain(`\`${endpoint.method} ${endpoint.path}\``);
      expect(row).toContain(endpoint.scope ? `\`${endpoint.scope}\`` : 'any valid key');
    }
  });

  it('names every field of an envelope and a signer, every scope and every state', () => {
    for (const field of [...Object.keys(envelopeSchema.shape), ...Object.keys(signerSchema.shape)])
      expect(page, field).toContain(`\`${field}\``);
    for (const scope of SCOPES) expect(page).toContain(`\`${scope}\``);
    for (const state of ENVELOPE_STATUSES) expect(page).toContain(`\`${state}\``);
  });

  it("the library's messages name no flag of the CLI: its advice is the CLI's to word (src/cli/help/hints.ts)", () => {
    const core = execSources().filter(({ file }) => file.includes(`${join('src', 'core')}`));
    // Comments out, then any `--flag` left is in code: a message (an apostrophe in a message cannot hide it).
    const code = (text: string) =>
      text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\w])\/\/.*$/gm, '$1');
    const flagged = core.flatMap(({ file, text }) =>
      code(text)
        .split('\n')
        .filter((line) => /(?<![\w-])--[a-z][\w-]+/.test(line))
        .map((line) => `${file}: ${line.trim()}`),
    );
    expect(flagged).toEqual([]);
  });

  it('is what the user-facing text cites: no message of src/ names SPEC', () => {
    const sources = execSources();
    expect(sources.filter(({ text }) => /['"`][^'"`\n]*\bSPEC\b/.test(text)).map(({ file }) => file)).toEqual(
      [],
    );
  });
});

function execSources(): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      // Comments are for the developers; strings are what users see.
      else if (path.endsWith('.ts'))
        out.push({ file: path, text: readFileSync(path, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '') });
    }
  };
  walk(join(ROOT, 'src'));
  return out;
}
