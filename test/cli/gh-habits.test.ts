/** Habits from gh get a pointer to sign-cli's own way, on the usage error's line (exit 2, nothing sent). */
import { describe, expect, it } from 'vitest';
import { habitHint } from '../../src/cli/help/gh-habits.js';
import { runCommand } from '../helpers/in-process.js';

const KEY = 'sk_test_ghhabitskey000000000000000000abcd';

describe('habits from gh', () => {
  const cases: [string, string[], RegExp][] = [
    [
      '--jq → --query',
      ['envelopes', 'list', '--jq', '.[].id'],
      /error: unknown option '--jq' \(hint: sign-cli's --query does what gh's --jq does, in JMESPath: --query envelope\.id/,
    ],
    [
      '--json id,status → --json and --query',
      ['envelopes', 'list', '--json', 'id,status'],
      /too many arguments for 'list'.* \(hint: --json takes no field list: it prints every field; pick fields with --query, e.g. --query '\{id: id, status: status\}'\)/,
    ],
    [
      '--json=id on get',
      ['envelopes', 'get', 'env_1', '--json=id'],
      /unknown option '--json=id' \(hint: --json takes no field list/,
    ],
    [
      'a key as an argument → --stdin',
      ['keys', 'add', 'ci', KEY],
      /too many arguments for 'add'.* \(hint: a key is never an argument .*keys add <name> --stdin\)/,
    ],
    [
      '-f a.json b.json → repeat -f',
      ['envelopes', 'create', '-f', 'a.json', 'b.json'],
      /too many arguments for 'create'.* \(hint: -f takes one file: repeat it for each \(-f a\.json -f b\.json\), or give a directory\)/,
    ],
  ];
  for (const [what, args, expected] of cases) {
    it(`${what}: one line, exit 2`, async () => {
      const result = await runCommand(args, {
        env: { SIGN_BASE_URL: 'http://127.0.0.1:9', SIGN_API_KEY: KEY },
      });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(expected);
      expect(result.stderr).not.toContain(KEY.slice(8));
    });
  }

  it('says nothing of --json or -f when they are not the mistake', () => {
    expect(
      habitHint(['envelopes', 'get', '--json', 'env_1', '--bogus'], 'commander.unknownOption'),
    ).toBeUndefined();
    expect(
      habitHint(['envelopes', 'create', '-f', 'a.json', '--bogus'], 'commander.unknownOption'),
    ).toBeUndefined();
    expect(habitHint(['envelopes', 'list', '--bogus'], 'commander.unknownOption')).toBeUndefined();
  });
});
