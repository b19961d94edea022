/**
 * Pointers for habits brought from gh (and CLIs like it) that sign-cli spells another way: added to
 * commander's usage error, so that the first wrong guess teaches the right flag. Pure: the words
 * typed in, the hint out. It never quotes a key that was typed, only says where a key goes.
 */

/** A token that looks like an API key (`sk_test_…`, `rk_live_…`). */
const KEY_LIKE = /^(?:sk|rk)_[a-z]+_\S{8,}$/;
/** `id,status`: gh's `--json <fields>`. */
const FIELD_LIST = /^[a-z_][a-z0-9_]*(?:,[a-z_][a-z0-9_]*)*$/i;

/** `code`: commander's error code (`commander.excessArguments`, `commander.unknownOption`, …). */
export function habitHint(argv: readonly string[], code: string): string | undefined {
  // A word too many, or an option unknown: only then is a word after --json or -f the mistake.
  const extraWord = code === 'commander.excessArguments';
  if (argv.some((word) => word === '--jq' || word.startsWith('--jq='))) {
    return "sign-cli's --query does what gh's --jq does, in JMESPath: --query envelope.id, --query 'signers[].status'";
  }
  const json = argv.findIndex((word) => word === '--json' || word.startsWith('--json='));
  const fields =
    json < 0
      ? undefined
      : argv[json]!.startsWith('--json=')
        ? argv[json]!.slice('--json='.length)
        : argv[json + 1];
  if (fields !== undefined && FIELD_LIST.test(fields) && (extraWord || argv[json]!.startsWith('--json='))) {
    const names = fields.split(',');
    return `--json takes no field list: it prints every field; pick fields with --query, e.g. --query '{${names.map((name) => `${name}: ${name}`).join(', ')}}'`;
  }
  if (argv.some((word) => KEY_LIKE.test(word))) {
    return 'a key is never an argument (it would stay in the shell history and the process list): pipe it in, e.g. printenv SIGN_API_KEY | sign-cli keys add <name> --stdin';
  }
  const file = argv.findIndex((word) => word === '-f' || word === '--file');
  const after = file < 0 ? undefined : argv[file + 2];
  if (extraWord && after !== undefined && !after.startsWith('-')) {
    return `-f takes one file: repeat it for each (-f ${argv[file + 1]} -f ${after}), or give a directory`;
  }
  return undefined;
}
