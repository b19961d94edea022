/**
 * Secrets typed on the command line, for an error that echoes what was typed
 * (commander's `unknown option '--secrte=whsec_…'`): the value of any
 * `--…secret…` option, and any word shaped like a key or webhook secret.
 */

/** How every key or webhook secret begins. */
const SECRET_PREFIXES = ['whsec_', 'whsk_', 'whpk_', 'sk_live_', 'sk_test_'];

export function typedSecrets(args: readonly string[]): string[] {
  const found: string[] = [];
  args.forEach((arg, i) => {
    // Every command line is checked, and V8 compiles a pattern when it first runs (the two
    // case-insensitive ones take about 0.2 ms each at start-up): each is tried only on a word
    // that holds what it needs to match.
    if (arg.startsWith('--') && arg.toLowerCase().includes('secret')) {
      const inline = /^--[\w-]*secret[\w-]*=(.+)$/i.exec(arg);
      if (inline) found.push(inline[1]!);
      else if (/^--[\w-]*secret[\w-]*$/i.test(arg) && !/-file$/i.test(arg) && args[i + 1] !== undefined)
        found.push(args[i + 1]!);
    }
    if (SECRET_PREFIXES.some((prefix) => arg.includes(prefix))) {
      const shaped = /(?:whsec_|whsk_|whpk_|sk_live_|sk_test_)[A-Za-z0-9+/=_-]{4,}/.exec(arg);
      if (shaped) found.push(shaped[0]);
    }
  });
  return found;
}
