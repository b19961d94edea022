/**
 * Help topics, as in gh: `sign-cli help environment`, `help exit-codes`,
 * `help formatting`. Written in the markup of command-doc.ts, so they render
 * on a terminal, in docs/commands and in the sign-cli(1) man page alike.
 */
export interface Topic {
  name: string;
  summary: string;
  /** The man page section of sign-cli(1) it becomes. */
  manSection: string;
  details: string[];
}

/** Every environment variable sign-cli reads, and what it does (a test holds src/ to this list). */
export const ENVIRONMENT: readonly { name: string; flag?: string; meaning: string }[] = [
  {
    name: 'SIGN_BASE_URL',
    flag: '--base-url',
    meaning:
      "the service base URL; else the profile's, else the `base_url` setting, else http://127.0.0.1:4010 (the local sandbox). Paths are appended as they are: a base URL ending in /api yields /api/api/v1/…",
  },
  {
    name: 'SIGN_API_KEY',
    meaning:
      'the API key; wins over --api-key-file and the profile. A key is never accepted as a flag value.',
  },
  {
    name: 'SIGN_PROFILE',
    flag: '--profile',
    meaning: 'the stored profile to use (`sign-cli keys add`, `keys use`).',
  },
  {
    name: 'SIGN_RETRIES',
    flag: '--retries',
    meaning:
      "retries per request (default 5): a refused connection is tried three times within a second; resets, timeouts, 408, 425, 429 and 5xx back off, a server's Retry-After first.",
  },
  {
    name: 'SIGN_TIMEOUT',
    flag: '--timeout',
    meaning:
      'seconds per attempt (default 30), bounding it whole: connecting, the headers and the body, however slowly a server trickles it.',
  },
  {
    name: 'SIGN_RATE_STORE',
    flag: '--rate-store',
    meaning:
      'a Redis URL: every run with the same key shares one 60-second rate budget there (also the `rate_store` setting).',
  },
  {
    name: 'SIGN_JOURNAL_STORE',
    flag: '--journal-store',
    meaning:
      'a Redis URL: `envelopes create` keeps its journal there, shared by every runner, so CI runners and parallel runs send each input once; unreachable, a create fails before sending (also the `journal_store` setting).',
  },
  {
    name: 'SIGN_JOURNAL_RETENTION',
    meaning:
      'how long create journals are kept after their last write, files and store alike (a duration: `30d`, `12h`; default 30 days; also the `journal_retention` setting).',
  },
  {
    name: 'HTTPS_PROXY, HTTP_PROXY',
    meaning:
      'the proxy for requests to an https:// (HTTPS_PROXY, else HTTP_PROXY) or http:// service, as curl and gh read them (lower case too; http:// assumed without a scheme; user:password@ for a proxy that asks). Loopback (localhost, 127.0.0.1, ::1) is never proxied, so the local sandbox works behind one. `doctor` says which proxy is used, its password masked.',
  },
  {
    name: 'NO_PROXY',
    meaning:
      'hosts reached directly, comma-separated: example.com covers its subdomains, host:port one port, * every host.',
  },
  {
    name: 'NODE_EXTRA_CA_CERTS',
    meaning:
      'a PEM file of extra CA certificates Node trusts: a service (or a TLS-inspecting proxy) with an internal CA. A certificate from an unknown issuer names it as the fix.',
  },
  {
    name: 'SIGN_KEYCHAIN',
    meaning:
      '`off`: never use the OS keychain; `keys add` keeps keys in the 0600 config file without a warning, and a key kept in the keychain is not read (a machine where the keychain prompts, or is not wanted).',
  },
  {
    name: 'DBUS_SESSION_BUS_ADDRESS',
    meaning:
      'on Linux, the D-Bus session where the Secret Service (the OS keychain `keys add` keeps keys in) is found; without it keys go in the 0600 config file, with a warning.',
  },
  {
    name: 'SIGN_WEBHOOK_SECRET',
    meaning:
      'webhook secrets for `webhooks listen`, `verify` and `trigger`, comma-separated (a rotation): whsec_… (HMAC) and whpk_… (Ed25519 public keys).',
  },
  {
    name: 'SIGN_VERIFY_THREADS',
    meaning:
      "how many worker threads `envelopes verify` starts for many files (default: one per eight files, up to one per core and four; 0: none, every file on the command's own thread).",
  },
  {
    name: 'SIGN_CONFIG_DIR',
    meaning: 'the directory of config.json, profiles and settings (default ~/.config/sign-cli).',
  },
  {
    name: 'SIGN_STATE_DIR',
    meaning: 'where create journals live (default $XDG_STATE_HOME/sign-cli, else ~/.local/state/sign-cli).',
  },
  {
    name: 'SIGN_SANDBOX_DIR',
    meaning:
      "the sandbox's data dir (default $XDG_DATA_HOME/sign-cli/sandbox, else ~/.local/share/sign-cli/sandbox).",
  },
  {
    name: 'SIGN_CACHE_DIR',
    meaning:
      "where V8's compiled code of the CLI is kept between runs, so commands start faster (default $XDG_CACHE_HOME/sign-cli, else ~/.cache/sign-cli; ~/Library/Caches/sign-cli on macOS, %LOCALAPPDATA%\\sign-cli on Windows; safe to delete).",
  },
  {
    name: 'NODE_DISABLE_COMPILE_CACHE',
    meaning:
      "set: no code cache is read or written (SIGN_CACHE_DIR), as Node's own compile cache is then off too.",
  },
  {
    name: 'XDG_STATE_HOME, XDG_DATA_HOME, XDG_CACHE_HOME, LOCALAPPDATA, HOME',
    meaning:
      "the base directories of the defaults above (LOCALAPPDATA: the cache's, on Windows; HOME: the ~ of the others).",
  },
  {
    name: 'NO_COLOR',
    flag: '--no-color',
    meaning: 'no colour. Colour is only ever used on a terminal; FORCE_COLOR forces it.',
  },
  { name: 'FORCE_COLOR', meaning: 'colour even when the output is not a terminal.' },
  {
    name: 'CI',
    flag: '--no-input',
    meaning:
      'set (and not "false" or "0"): never prompt, and a missing value is a usage error naming its flag; `envelopes open` opens no browser.',
  },
  {
    name: 'BROWSER',
    flag: '--no-browser',
    meaning:
      'the program `envelopes open` opens a link with (`%s` stands for the link, else it is appended), instead of `open` (macOS), `start` (Windows) or `xdg-open`.',
  },
  {
    name: 'DISPLAY, WAYLAND_DISPLAY',
    meaning:
      'on Linux and other Unixes, `envelopes open` uses `xdg-open` only when one is set (a desktop session).',
  },
];

export const TOPICS: readonly Topic[] = [
  {
    name: 'environment',
    summary: 'environment variables sign-cli reads',
    manSection: 'ENVIRONMENT',
    details: [
      'A flag wins over its variable; a variable wins over the profile and the config settings (`sign-cli config list` shows where each value comes from).',
      ENVIRONMENT.map((v) => `- \`${v.name}\`${v.flag ? ` (${v.flag})` : ''}: ${v.meaning}`).join('\n'),
      'The sandbox writes SIGN_BASE_URL, SIGN_API_KEY and SIGN_WEBHOOK_SECRET to credentials.env in its data dir, ready to be sourced by a shell.',
    ],
  },
  {
    name: 'exit-codes',
    summary: 'what each exit code means',
    manSection: 'EXIT STATUS',
    details: [
      [
        '- `0`: success: the thing asked for really happened (an envelope with an id, a real PDF, a verified trail).',
        '- `1`: the operation failed: an API or network error after retries, an answer that is not what was asked for (a 2xx without an envelope, a non-PDF, an empty audit trail, an answer over its bound), or a file sign-cli keeps that cannot be written (a full or read-only disk).',
        '- `2`: usage error or invalid input, or state or config another user can write: nothing was sent.',
        '- `3`: authentication or authorisation: no key, 401, 403, an expired key, a missing scope; for `webhooks test`, a receiver that does not answer at its URL.',
        '- `130`: interrupted (Ctrl-C, SIGTERM, SIGHUP): nothing new was sent after the signal. Servers (`webhooks listen`, `sandbox`) and `sandbox outbox --follow` exit 0 when stopped so: it is their normal end.',
      ].join('\n'),
      "Errors are one line on stderr: what failed, the HTTP status and the server's code and message when there is one, and a hint.",
    ],
  },
  {
    name: 'formatting',
    summary: 'JSON output, --query, tables and times',
    manSection: 'OUTPUT',
    details: [
      'Data goes to stdout; progress, warnings and errors go to stderr. Every command that shows data takes `--json`.',
      'A single JSON document is indented on a terminal and compact (one line) in a pipe or a file. Outputs of one object per line (`envelopes create`, `envelopes list`, `envelopes watch`, `webhooks listen`, `webhooks deliveries`) are always one line each.',
      '`--query <jmespath>` prints one part of the JSON (a JMESPath expression, as in the AWS and Azure CLIs; it implies `--json`), applied to each line of one-object-per-line output. A string prints without quotes, like `jq -r`; `--no-raw` prints it as JSON. A bad expression is exit 2 before anything is sent.',
      '  sign-cli envelopes create -f envelope.json --query envelope.id\n  sign-cli envelopes list --query "[status, title]"',
      'Tables have no borders, UPPER CASE heads and one line per row. On a terminal a table fits its width: only free text (a title, a URL, an audit detail) is cut, with …; what a person reads by (ids, contract ids, names, key masks, times, states) is never cut, and when even that does not fit, each row is shown stacked, one `label: value` line per column (`envelopes list` at 80 columns, with its contract ids). A `label: value` line (stacked rows, `envelopes get`) fits the terminal too: every value but an id or a time is cut to its line.',
      "Streamed lines (`webhooks listen`, `envelopes create`, `envelopes watch`) fit the terminal the same way: titles, names, URLs and errors are cut with …, ids, contract ids and times never, and words of sign-cli's own are left out whole rather than cut. So no value can wrap onto the start of a line of its own. A line that still cannot fit (ids wider than the terminal, or a create's outcome, said whole) goes on in an indented line, broken between words. In a pipe nothing is cut.",
      'Every other line on a terminal (errors, warnings, hints, help, summaries) is wrapped between words to its width, its next lines indented: never broken inside a word, an id or a path; a word wider than the terminal stands alone on its line. A failed check of `envelopes verify` says why in full, wrapped under its column. In a pipe or a file a message is one line.',
      "Times a person reads are in UTC, one way everywhere: `2026-11-23 07:44:36Z`. `--json` keeps the service's ISO 8601 strings.",
      'Text from input, a server or a delivery is shown on one line with control characters escaped and every run of whitespace as one space (on a terminal and in a pipe; `--json` keeps every value exact); an API key or webhook secret is never shown beyond its mask (`sk_test_****abcd`).',
    ],
  },
];

export function topicNamed(name: string): Topic | undefined {
  return TOPICS.find((topic) => topic.name === name);
}
