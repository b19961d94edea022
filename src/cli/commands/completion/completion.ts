/**
 * `sign-cli completion bash|zsh|fish`: shell completion generated from the
 * command tree itself (commands, options, arguments, and the hints of
 * completion-hints.ts), so it never drifts from the commands. The same scripts
 * are committed under completions/ (`npm run completions` rewrites them).
 *
 * Values that live in the user's config (profile names) are not written into
 * the script: it runs `sign-cli __complete profiles` when Tab is pressed
 * (hidden; one name a line; nothing at all on any error).
 */
import { existsSync } from 'node:fs';
import { Argument, type Command } from 'commander';
import { ExitCode } from '../../../core/errors.js';
import { completionOf, DYNAMIC_SOURCES, type Candidate, type Completion, type DynamicSource } from '../../completion-hints.js';
import { optionDescription } from '../../help.js';
import type { Action } from '../../action.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

interface Node {
  /** Words of the command path after the program name, e.g. ['envelopes', 'create']. */
  path: string[];
  subcommands: Candidate[];
  /** Only the options this command defines (the program's are global). */
  own: Opt[];
  args: { name: string; variadic: boolean; completion: Completion }[];
}

interface Opt {
  long: string;
  short?: string | undefined;
  description: string;
  takesValue: boolean;
  /** The value's name: `url` for `--base-url <url>`. */
  placeholder: string;
  completion: Completion;
}

const HELP_OPTION: Opt = { long: '--help', short: '-h', description: 'display help for command', takesValue: false, placeholder: '', completion: { kind: 'none' } };

function walk(command: Command, path: string[] = []): Node[] {
  const own: Opt[] = command.options
    .filter((o) => !o.hidden && o.long)
    .map((o) => ({
      long: o.long!,
      short: o.short,
      // As help shows it, but the choices: the shell offers them.
      description: optionDescription(o, false),
      takesValue: o.required || o.optional,
      placeholder: /[<[]([^>\]]*)[>\]]/.exec(o.flags)?.[1] ?? '',
      completion: completionOf(o),
    }));
  const visible = command
    .createHelp()
    .visibleCommands(command)
    .filter((c) => c.name() !== 'help');
  const node: Node = {
    path,
    subcommands: visible.map((c) => ({ name: c.name(), description: c.description() })),
    own,
    args: command.registeredArguments.map((a) => ({ name: a.name(), variadic: a.variadic, completion: completionOf(a) })),
  };
  return [node, ...visible.flatMap((c) => walk(c, [...path, c.name()]))];
}

interface Tree {
  nodes: Node[];
  /** The program's options (but --version) and --help: accepted after any command. */
  globals: Opt[];
  /** Every flag that takes a value, so its value is not taken for a command word. */
  valued: string[];
  /** `parent/child` for every subcommand ('' being the program). */
  pairs: string[];
}

function tree(program: Command): Tree {
  const nodes = walk(program);
  const globals = [...nodes[0]!.own.filter((o) => o.long !== '--version'), HELP_OPTION];
  const flags = (o: Opt) => [o.long, ...(o.short ? [o.short] : [])];
  const valued = [...new Set(nodes.flatMap((n) => n.own.filter((o) => o.takesValue).flatMap(flags)))];
  const pairs = nodes.flatMap((n) => n.subcommands.map((s) => `${n.path.join(' ')}/${s.name}`));
  return { nodes, globals, valued, pairs };
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
const flagsOf = (o: Opt) => [o.long, ...(o.short ? [o.short] : [])];
/** Option values that are offered by name: choices, hints and dynamic lists. */
const valueOptions = (t: Tree) => {
  const byFlag = new Map<string, Opt>();
  for (const node of t.nodes) for (const o of node.own) if (o.takesValue) for (const flag of flagsOf(o)) byFlag.set(flag, o);
  return byFlag;
};

// ---------------------------------------------------------------------- bash

function bashReply(completion: Completion): string {
  switch (completion.kind) {
    case 'values':
      return `compopt +o default 2>/dev/null; COMPREPLY=($(compgen -W ${quote(completion.values.map((v) => v.name).join(' '))} -- "$cur"))`;
    case 'dynamic':
      return `compopt +o default 2>/dev/null; COMPREPLY=($(compgen -W "$(_sign_cli_dynamic ${completion.source})" -- "$cur"))`;
    case 'files':
      // Empty: `complete -o default` falls back to file names.
      return 'COMPREPLY=()';
    case 'none':
      return 'compopt +o default 2>/dev/null; COMPREPLY=()';
  }
}

/** `case "$npos"` over a command's positional arguments. */
function argumentCases(node: Node, reply: (c: Completion, label: string) => string, indent: string, pattern: (p: string) => string): string {
  const cases = node.args.map((arg, i) => `${indent}  ${pattern(arg.variadic ? '*' : String(i))} ${reply(arg.completion, arg.name)} ;;`);
  const variadic = node.args.at(-1)?.variadic;
  if (!variadic) cases.push(`${indent}  ${pattern('*')} ${reply({ kind: 'none' }, 'no more arguments')} ;;`);
  return `case "$npos" in\n${cases.join('\n')}\n${indent}esac`;
}

function bash(program: Command): string {
  const t = tree(program);
  const byFlag = valueOptions(t);
  const valueCases = [...byFlag.entries()].map(([flag, o]) => `    ${flag}) ${bashReply(o.completion)}; return ;;`).join('\n');
  // The program's options hold everywhere: each command adds its own.
  const optionCases = t.nodes
    .map((node) =>
      node.path.length === 0
        ? `      '') words=${quote([...node.own, HELP_OPTION].flatMap(flagsOf).join(' '))} ;;`
        : `      ${quote(node.path.join(' '))}) words=${quote(node.own.flatMap(flagsOf).join(' '))}" $globals" ;;`,
    )
    .join('\n');
  const wordCases = t.nodes
    .map((node) => {
      const path = quote(node.path.join(' '));
      if (node.subcommands.length) {
        return `    ${path}) compopt +o default 2>/dev/null; ((npos == 0)) && COMPREPLY=($(compgen -W ${quote(node.subcommands.map((s) => s.name).join(' '))} -- "$cur")) ;;`;
      }
      return `    ${path})\n      ${argumentCases(node, bashReply, '      ', (p) => `${p})`)} ;;`;
    })
    .join('\n');
  return `# bash completion for sign-cli (generated by \`sign-cli completion bash\`)
# Install (bash-completion loads it on first use):
#   sign-cli completion bash > "\${XDG_DATA_HOME:-$HOME/.local/share}/bash-completion/completions/sign-cli"
# Without bash-completion: add  source <(sign-cli completion bash)  to ~/.bashrc.

# Names that live in the user's config (profiles), from the sign-cli being completed.
_sign_cli_dynamic() {
  "\${COMP_WORDS[0]}" __complete "$1" 2>/dev/null
}

_sign_cli() {
  local cur prev cmd="" word words globals i npos=0
  COMPREPLY=()
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  # \`--scheme=st\`: bash splits the word at =.
  [[ "$prev" == = ]] && prev="\${COMP_WORDS[COMP_CWORD-2]}"
  # The value of an option.
  case "$prev" in
${valueCases}
  esac
  # The words before the cursor: subcommands make the command path, other words are its arguments.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    case "$word" in -* | =) continue ;; esac
    case "\${COMP_WORDS[i-1]}" in ${t.valued.join('|')} | =) continue ;; esac
    if ((npos == 0)); then
      case "$cmd/$word" in
        ${t.pairs.map(quote).join('|')}) cmd="\${cmd:+$cmd }$word"; continue ;;
      esac
    fi
    npos=$((npos + 1))
  done
  if [[ "$cur" == -* ]]; then
    globals=${quote(t.globals.flatMap(flagsOf).join(' '))}
    case "$cmd" in
${optionCases}
      *) words="" ;;
    esac
    compopt +o default 2>/dev/null
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
    return
  fi
  case "$cmd" in
${wordCases}
  esac
}
complete -o default -F _sign_cli sign-cli
`;
}

// ----------------------------------------------------------------------- zsh

/** `name:description` for zsh's _describe (colons in the name escaped). */
const describeEntry = (c: Candidate) => quote(`${c.name.replace(/:/g, '\\:')}${c.description ? `:${oneLine(c.description)}` : ''}`);
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

function zshReply(completion: Completion, label: string): string {
  switch (completion.kind) {
    case 'values': {
      return `local -a values=(${completion.values.map(describeEntry).join(' ')}); _describe -t values ${quote(label)} values`;
    }
    case 'dynamic':
      return `local -a values=(\${(f)"$(_sign_cli_dynamic ${completion.source})"}); _describe -t ${completion.source} ${quote(label)} values`;
    case 'files':
      return '_files';
    case 'none':
      return `_message ${quote(label)}`;
  }
}

function zsh(program: Command): string {
  const t = tree(program);
  const byFlag = valueOptions(t);
  const valueCases = [...byFlag.entries()]
    .map(([flag, o]) => `    (${flag}) ${zshReply(o.completion, o.placeholder)}; return ;;`)
    .join('\n');
  const entries = (options: Opt[]) => options.flatMap((o) => flagsOf(o).map((flag) => describeEntry({ name: flag, description: o.description })));
  // The program's options hold everywhere: each command adds its own.
  const optionCases = t.nodes
    .map((node) =>
      node.path.length === 0
        ? `      ('') options=(${entries([...node.own, HELP_OPTION]).join(' ')}) ;;`
        : `      (${quote(node.path.join(' '))}) options=(${[...entries(node.own), '"${globals[@]}"'].join(' ')}) ;;`,
    )
    .join('\n');
  const wordCases = t.nodes
    .map((node) => {
      const path = quote(node.path.join(' '));
      if (node.subcommands.length) {
        const label = `${['sign-cli', ...node.path].join(' ')} command`;
        return `    (${path}) ((npos == 0)) && { local -a commands=(${node.subcommands.map(describeEntry).join(' ')}); _describe -t commands ${quote(label)} commands } ;;`;
      }
      return `    (${path})\n      ${argumentCases(node, zshReply, '      ', (p) => `(${p})`)} ;;`;
    })
    .join('\n');
  return `#compdef sign-cli
# zsh completion for sign-cli (generated by \`sign-cli completion zsh\`)
# Install: save it as _sign-cli in a directory on $fpath, before compinit runs in ~/.zshrc:
#   mkdir -p ~/.zsh/completions && sign-cli completion zsh > ~/.zsh/completions/_sign-cli
#   # ~/.zshrc:  fpath=(~/.zsh/completions $fpath); autoload -U compinit && compinit
# Or, without a file: add  source <(sign-cli completion zsh)  to ~/.zshrc after compinit.

# Names that live in the user's config (profiles), from the sign-cli being completed.
_sign_cli_dynamic() {
  "\${words[1]}" __complete "$1" 2>/dev/null
}

_sign-cli() {
  local cur prev cmd="" word
  local -i npos=0 i
  local -a options
  cur="\${words[CURRENT]}"
  prev="\${words[CURRENT-1]}"
  # The value of an option.
  case "$prev" in
${valueCases}
  esac
  # The words before the cursor: subcommands make the command path, other words are its arguments.
  for ((i = 2; i < CURRENT; i++)); do
    word="\${words[i]}"
    [[ "$word" == -* ]] && continue
    case "\${words[i-1]}" in (${t.valued.join('|')}) continue ;; esac
    if ((npos == 0)); then
      case "$cmd/$word" in
        (${t.pairs.map(quote).join('|')}) cmd="\${cmd:+$cmd }$word"; continue ;;
      esac
    fi
    npos=$((npos + 1))
  done
  if [[ "$cur" == -* ]]; then
    local -a globals=(${entries(t.globals).join(' ')})
    case "$cmd" in
${optionCases}
    esac
    _describe -t options option options
    return
  fi
  case "$cmd" in
${wordCases}
  esac
}

if [[ "\${funcstack[1]}" == _sign-cli ]]; then
  # Autoloaded from $fpath by compinit: complete now (the first Tab too).
  _sign-cli "$@"
else
  compdef _sign-cli sign-cli
fi
`;
}

// ---------------------------------------------------------------------- fish

function fishValue(completion: Completion): string {
  switch (completion.kind) {
    case 'values':
      return ` -x -a ${quote(completion.values.map((v) => v.name).join(' '))}`;
    case 'dynamic':
      return ` -x -a ${quote(`(__sign_cli_dynamic ${completion.source})`)}`;
    case 'files':
      return ' -r -F';
    case 'none':
      return ' -x';
  }
}

function fish(program: Command): string {
  const t = tree(program);
  const lines: string[] = [];
  const option = (o: Opt, condition?: string) => {
    const short = o.short ? ` -s ${o.short.replace(/^-/, '')}` : '';
    const value = o.takesValue ? fishValue(o.completion) : '';
    return `complete -c sign-cli${condition ? ` -n ${quote(condition)}` : ''} -l ${o.long.replace(/^--/, '')}${short}${value} -d ${quote(oneLine(o.description))}`;
  };
  for (const o of t.globals) lines.push(option(o));
  lines.push(option(t.nodes[0]!.own.find((o) => o.long === '--version')!, '__sign_cli_at ""'));
  for (const node of t.nodes) {
    const at = `__sign_cli_at "${node.path.join(' ')}"`;
    if (node.path.length) for (const o of node.own) lines.push(option(o, at));
    for (const sub of node.subcommands) lines.push(`complete -c sign-cli -n ${quote(`${at} 0`)} -a ${quote(sub.name)} -d ${quote(oneLine(sub.description ?? ''))}`);
    node.args.forEach((arg, i) => {
      const condition = `${at} ${i}${arg.variadic ? '+' : ''}`;
      const c = arg.completion;
      if (c.kind === 'values') {
        for (const v of c.values) {
          lines.push(`complete -c sign-cli -n ${quote(condition)} -a ${quote(v.name)}${v.description ? ` -d ${quote(oneLine(v.description))}` : ''}`);
        }
      } else if (c.kind === 'dynamic') {
        lines.push(`complete -c sign-cli -n ${quote(condition)} -a ${quote(`(__sign_cli_dynamic ${c.source})`)}`);
      } else if (c.kind === 'files') {
        lines.push(`complete -c sign-cli -n ${quote(condition)} -F`);
      }
    });
  }
  return `# fish completion for sign-cli (generated by \`sign-cli completion fish\`)
# Install: sign-cli completion fish > ~/.config/fish/completions/sign-cli.fish

# The command path and the count of arguments before the cursor, one a line.
function __sign_cli_state
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l cmd ''
    set -l npos 0
    set -l skip 0
    for word in $tokens
        if test $skip = 1
            set skip 0
            continue
        end
        if string match -q -- '-*' $word
            contains -- $word ${t.valued.join(' ')}; and set skip 1
            continue
        end
        if test $npos = 0; and contains -- "$cmd/$word" ${t.pairs.map(quote).join(' ')}
            set cmd (string trim -- "$cmd $word")
            continue
        end
        set npos (math $npos + 1)
    end
    echo $cmd
    echo $npos
end

# True at that command path (and, if given, that argument position; "2+" is 2 or more).
function __sign_cli_at --argument-names want pos
    set -l state (__sign_cli_state)
    test "$state[1]" = "$want"; or return 1
    test -n "$pos"; or return 0
    if string match -q -- '*+' $pos
        test $state[2] -ge (string trim -c + -- $pos)
    else
        test $state[2] = $pos
    end
end

# Names that live in the user's config (profiles), from the sign-cli being completed.
function __sign_cli_dynamic
    set -l cli (commandline -opc)[1]
    for name in (command $cli __complete $argv 2>/dev/null)
        printf '%s\\t%s\\n' $name (string replace -r 's$' '' -- $argv[1])
    end
end

complete -c sign-cli -f
${lines.join('\n')}
`;
}

export function completionScript(program: Command, shell: Shell): string {
  return shell === 'bash' ? bash(program) : shell === 'zsh' ? zsh(program) : fish(program);
}

/** What `sign-cli __complete <source>` prints: names only, nothing on any error. */
async function dynamicCandidates(source: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  if (!(DYNAMIC_SOURCES as readonly string[]).includes(source)) return [];
  switch (source as DynamicSource) {
    case 'profiles': {
      // conf creates a missing config dir when it reads: a Tab must not.
      const dir = env.SIGN_CONFIG_DIR;
      if (dir && !existsSync(dir)) return [];
      const [{ openConfig }, { PROFILE_NAME_RE }] = await Promise.all([import('../../config.js'), import('../../profiles.js')]);
      const profiles = (await openConfig(env)).store.profiles ?? {};
      return Object.keys(profiles)
        .filter((name) => PROFILE_NAME_RE.test(name))
        .sort();
    }
  }
}

export function registerCompletion(program: Command, action: Action): void {
  program
    .command('completion')
    .description('print a shell completion script')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .addHelpText(
      'after',
      `
Examples:
  $ sign-cli completion bash > ~/.local/share/bash-completion/completions/sign-cli
  $ sign-cli completion zsh > ~/.zsh/completions/_sign-cli    # a directory on $fpath
  $ sign-cli completion fish > ~/.config/fish/completions/sign-cli.fish`,
    )
    .action(
      action(async (ctx, _flags, [shell]) => {
        let root: Command = ctx.command!;
        while (root.parent) root = root.parent;
        ctx.io.stdout.write(completionScript(root, shell as Shell));
        return ExitCode.ok;
      }),
    );

  program
    .command('__complete', { hidden: true })
    .description('list names for shell completion')
    .argument('[source]')
    .allowExcessArguments()
    .action(
      action(async (ctx, _flags, [source]) => {
        try {
          const names = await dynamicCandidates(source ?? '', ctx.env);
          if (names.length) ctx.io.stdout.write(`${names.join('\n')}\n`);
        } catch {
          // Completion must never print an error into the user's command line.
        }
        return ExitCode.ok;
      }),
    );
}
