/**
 * Secrets typed on the command line, for an error that echoes what was typed
 * (commander's `unknown option '--secrte=whsec_…'`): the value of any
 * `--…secret…` option, and any word shaped like a key or webhook secret.
 */
export function typedSecrets(args: readonly string[]): string[] {
  const found: string[] = [];
  args.forEach((arg, i) => {
    const inline = /^--[\w-]*secret[\w-]*=(.+)$/i.exec(arg);
    if (inline) found.push(inline[1]!);
    else if (/^--[\w-]*secret[\w-]*$/i.test(arg) && !/-file$/i.test(arg) && args[i + 1] !== undefined)
      found.push(args[i + 1]!);
    const shaped = /(?:whsec_|whsk_|whpk_|sk_live_|sk_test_)[A-Za-z0-9+/=_-]{4,}/.exec(arg);
    if (shaped) found.push(shaped[0]);
  });
  return found;
}
