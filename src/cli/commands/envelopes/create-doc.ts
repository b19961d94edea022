/** The words of `sign-cli envelopes create` (command-doc.ts): its help, reference page and man page. */
import type { CommandDoc } from '../../command-doc.js';

export const doc: CommandDoc = {
  summary: 'create envelopes from JSON files, a directory, NDJSON or stdin, or with a prompt; everything is validated before anything is sent',
  details: [
    'With no -f on a terminal, a prompt builds the envelope step by step. Every input is read and checked first: any invalid one is exit 2 and nothing is sent.',
    'Exactly once: running the same command again reports "already created" and sends nothing new, after a crash, a timeout, Ctrl-C or success, from this machine or another; --new creates the envelopes again, deliberately.',
  ],
  more: [
    '**Everything is validated before anything is sent.** Every input is read (streamed) and checked first; any bad JSON (reported with line and column) or broken rule (reported with `file:line` and its JSON path, such as `batch.ndjson:250: signers[1].phone`) exits 2 and nothing is sent. What JSON.parse would let through silently is refused too: a key given twice in one object, nesting deeper than an envelope needs, a string over 10,000 characters, more than 1,000 signers, a body over 1 MiB. Control and bidi characters in envelope text are invalid.',
    'Values the service does not list in full (`signature_level`, `locale`, `channel`, `verification`) are accepted with a warning. A field the service does not have is refused with the one meant (`webhookUrl: is not a field of an envelope; did you mean webhook_url?`), since it would otherwise be sent and ignored; `--allow-unknown-fields` sends such fields as they are.',
    '**Exactly once, per account and environment.** The same envelope is never created twice for one account and environment: not after a crash, a timeout or Ctrl-C, not when a finished command is run again, not from another machine, and not with another spelling of the base URL. What a test key created never stands in for a live envelope.',
    [
      '- The same envelope is the same content as it is sent: strings are NFC-normalised and trimmed and each e-mail\'s domain lower-cased first, so one envelope for a person is one envelope on the wire; `--dry-run --json` shows the body as it will be sent.',
      '- Its default Idempotency-Key is derived from that body: `sc1-` and 48 hex digits of the SHA-256 of its canonical JSON, so a re-send carries the same key wherever it comes from and the service replays its first answer. The n-th identical input of one run gets `-n` appended, so a file that repeats an envelope on purpose still creates each copy once.',
      '- A journal records, before each envelope is sent, its input, its key and a fingerprint of the API key (never the key), and after the answer the outcome. Running the same command again with the same key reports `already created env_… in test by an earlier run` without sending anything. With another key of the same environment, sign-cli first asks the service whether that key sees one envelope the other created (one request per key): a rotated key of the same account does, and nothing is sent; another account\'s key gets 404, and its envelopes are created. A test run and a live run keep separate journals.',
      '- After a crash or Ctrl-C, what was in doubt is sent again with the same key, and the rest is sent. Without the journal (another machine), the service recognises the key: `already created env_… in test: … the service recognised it`.',
      '- Runs that overlap create the envelope once and report it once: the run the service answered with a replay says `already created` (`"already_created": true`).',
    ].join('\n'),
    'This holds within the service\'s idempotency retention (24 hours in the sandbox). `--idempotency-key` is always the key sent: if an earlier run sent the input with another key and its outcome is in doubt (or created it), the command refuses (exit 2) and names the key to pass. The same command started while it is still running is refused (exit 2).',
    '**The environment, always shown.** Each line names it (`✓ created env_… in live from …`), so does the summary (`created 480 in live, already created 20, failed 0`), and `--json` lines carry `"environment"` (`"live"`, `"test"`, or null when unknown). On a terminal, a live run of more than one envelope asks once; `--yes` does not ask, and where nobody can answer (a pipe, CI, `--no-input`) it is not asked.',
    '**Paced and concurrent.** Requests run concurrently under the rate pacer: evenly spaced, never more than `--rate` in any 60-second window. If the service answers 429 anyway, every worker waits until its Retry-After and the pace narrows back within 30 s. The service\'s RateLimit fields are followed when present. Each envelope keeps its Idempotency-Key on every retry, so a lost response, a timeout, a 409, a 429 or a 5xx never produces a second envelope. Several runs with one key share one budget through `--rate-store` (docs/many-runners.md).',
    '**Ctrl-C stops sending at once**, as do SIGTERM and SIGHUP: nothing new goes on the wire; requests already sent are awaited (each for at most its `--timeout`) and journaled; then exit 130 and a summary that says to re-run the same command to finish without duplicates. A second Ctrl-C quits at once, which is still safe.',
    '**Honest outcomes.** A create succeeds only when the service answers 2xx with an envelope: a JSON object with an `id`, or a Location header naming one. Anything else (an HTML page from a wrong base URL, an empty body) is exit 1 with what came back and a hint. A refused connection says that nothing was sent, within about a second; a request cut after it went out says the envelope may exist and that a re-run is safe. A key the service refuses (401/403) stops the run (exit 3). A journal that cannot be written (a full disk) stops the run, with every envelope the service acknowledged still reported.',
    'On a terminal, stderr shows progress (`1,204/10,000 · created 1,200 · failed 4 · 9.9/s · ETA 14m 48s`) and each retry as it happens; at the end of a multi-envelope run, a summary.',
    '`--json` prints one line per envelope, as each finishes:',
    '  {"input":"batch.ndjson:12","status":"created","http_status":201,"idempotency_key":"sc1-1b9d…","envelope":{"id":"env_…"},"error":null,"already_created":false,"environment":"live"}',
    '`status` is `created` or `failed` (with `error: {message, code, hint}`), or `valid` under `--dry-run`. An envelope that existed before this run has `"already_created": true`: either the journal said so and nothing was sent (`"skipped": true`), or the service replayed its first answer.',
    [
      '**From a spreadsheet.** `--csv <file|->` with `--template <envelope.json>` creates one envelope per row. The template is an envelope whose strings may hold `{{column}}` placeholders (columns named by the header row, trimmed):',
      '- a value that is exactly one placeholder takes the cell converted to the field\'s type (`"expires_in_days": "{{days}}"` becomes a number, `"sequential": "{{seq}}"` true or false); an empty cell leaves the field out, and an object of a list (a second signer) whose cells are all empty is left out whole when the row filled another (a row that fills none is invalid, never an envelope for the fixed signers alone); a placeholder inside longer text is replaced by the cell\'s text;',
      '- fixed signers (a counter-signer) sit beside the row\'s; a template may describe two signers per row;',
      '- the CSV is read as spreadsheets write it, streamed by csv-parse: a UTF-8 BOM, CRLF, quoted fields holding the delimiter, quotes or line breaks, any script; the delimiter (`,` `;` tab `|`) is detected from the header row, or given with `--delimiter`;',
      '- rows are named as the spreadsheet numbers them (header = row 1; blank rows and rows of delimiters only are skipped but counted): a placeholder without a column, a row with too few or too many fields, and every rule a rendered row breaks (`recipients.csv:row 12: signers[0].phone: …`) are reported before anything is sent (exit 2); a column the template never uses is a warning;',
      '- each row is exactly once like any input: its key derives from the envelope it renders to, so an edited row is sent again alone. `--dry-run` shows the first row as it would be sent and the count; `--json` lines name `"input": "recipients.csv:row 12"`.',
    ].join('\n'),
    '**Interactively.** With no `-f` on a terminal, a prompt asks for the title, contract id, template id and version, then each signer (name, channel, the e-mail or phone that channel needs, verification, order) in a loop, then sequential, signature level, expiry, locale and webhook URL. Each answer is checked as it is typed. It shows the JSON, offers to save it, and sends on confirmation. Without a terminal, or with `--no-input` or CI set, it exits 2 and says to use `-f`.',
  ],
  examples: [
    'sign-cli envelopes create -f envelope.json',
    'sign-cli envelopes create -f envelope.json             # again: "already created env_…", nothing sent',
    'sign-cli envelopes create -f envelope.json --new       # deliberately a second envelope',
    'sign-cli envelopes sample | sign-cli envelopes create -f - --json',
    'mkdir -p batch && sign-cli envelopes sample > batch/lease.json',
    'sign-cli envelopes create -f batch/ --dry-run   # a directory means its *.json files',
    'sign-cli envelopes sample --count 100 > batch.ndjson',
    'sign-cli envelopes create --ndjson -f batch.ndjson --json > results.ndjson',
    'sign-cli envelopes sample --csv > recipients.csv && sign-cli envelopes sample --template > template.json',
    'sign-cli envelopes create --csv recipients.csv --template template.json --dry-run',
    'sign-cli envelopes create --csv recipients.csv --template template.json   # one envelope per row',
  ],
};
