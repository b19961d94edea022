/**
 * All terminal output goes through here: data to stdout, everything else
 * (warnings, errors, traces, progress) to stderr. Colour only on a TTY, never
 * under NO_COLOR or --no-color. Every line is passed through redaction so a
 * secret the CLI knows about can never be printed in full.
 */
import { Chalk, type ChalkInstance } from 'chalk';
import { SignError, ValidationError, type FieldIssue } from '../../core/errors.js';
import { redactSecrets } from '../../core/keys.js';
import { escapeControl, oneLine, untrusted } from '../../core/envelope/text.js';
import type { OutStream } from '../process/io.js';
import { hintOf } from '../help/hints.js';
import { wrapText } from '../layout/wrap.js';
import { cutTo, widthAtMost } from '../layout/width.js';

export interface OutputOptions {
  json: boolean;
  verbose: boolean;
  /** false when --no-color was given. */
  color: boolean;
  stdout: OutStream;
  stderr: OutStream;
  env: NodeJS.ProcessEnv;
}

function colourWanted(flag: boolean, stream: OutStream, env: NodeJS.ProcessEnv): boolean {
  if (!flag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true;
}

export class Output {
  readonly json: boolean;
  readonly verbose: boolean;
  /** Colours for stdout and stderr, decided separately: one may be a TTY and not the other. */
  readonly out: ChalkInstance;
  readonly err: ChalkInstance;
  private readonly stdout: OutStream;
  private readonly stderr: OutStream;
  private readonly secrets: string[] = [];

  constructor(options: OutputOptions) {
    const { env } = options;
    this.json = options.json;
    this.verbose = options.verbose;
    this.stdout = options.stdout;
    this.stderr = options.stderr;
    this.out = new Chalk({ level: colourWanted(options.color, this.stdout, env) ? 1 : 0 });
    this.err = new Chalk({ level: colourWanted(options.color, this.stderr, env) ? 1 : 0 });
    // The secrets the environment hands every command are known from the first line on: an
    // error before the key is resolved (a usage error quoting a path) masks them too.
    this.protect(env.SIGN_API_KEY?.trim());
    for (const secret of (env.SIGN_WEBHOOK_SECRET ?? '').split(/[\n,]/)) this.protect(secret.trim());
  }

  /** Whether stderr is a terminal (progress and retry lines are drawn only there). */
  get stderrIsTTY(): boolean {
    return this.stderr.isTTY === true;
  }

  /** The terminal's width when stdout is one (tables fit it); undefined for a pipe or a file. */
  get columns(): number | undefined {
    return this.stdout.isTTY === true ? this.stdout.columns || 80 : undefined;
  }

  /** The terminal's width when stderr is one (its streamed lines fit it); undefined for a pipe or a file. */
  get errColumns(): number | undefined {
    return this.stderr.isTTY === true ? this.stderr.columns || 80 : undefined;
  }

  /** Registers a secret (API key, webhook secret) that must never appear in full. */
  protect(secret: string | undefined): void {
    if (secret && secret.length >= 4 && !this.secrets.includes(secret)) this.secrets.push(secret);
  }

  /**
   * Every line written passes here: secrets are masked, and control characters
   * from input, servers or deliveries are escaped; only the colour codes this
   * CLI writes itself survive, and only on a stream where colour is on.
   */
  private clean(text: string, colour: boolean, shownWhole: readonly string[] = []): string {
    const safe = escapeControl(text, colour);
    const masked =
      shownWhole.length === 0 ? this.secrets : this.secrets.filter((s) => !shownWhole.includes(s));
    return masked.length === 0 ? safe : redactSecrets(safe, masked);
  }

  private cleanOut(text: string, shownWhole?: readonly string[]): string {
    return this.clean(text, this.out.level > 0, shownWhole);
  }

  private cleanErr(text: string): string {
    return this.clean(text, this.err.level > 0);
  }

  /** Lines waiting for the next flush when batching (see batchStdout). */
  private pending: string[] | undefined;

  /**
   * For high-volume streams (the webhook listener): stdout lines are gathered
   * and written once per event-loop turn instead of one syscall per line.
   * Order is kept; call flush() before exiting.
   */
  batchStdout(): void {
    this.pending ??= [];
  }

  flush(): void {
    if (!this.pending || this.pending.length === 0) return;
    const text = this.pending.join('');
    this.pending.length = 0;
    this.stdout.write(text);
  }

  private writeOut(text: string): void {
    if (!this.pending) {
      const status = this.clearStatus();
      this.stdout.write(text);
      this.restoreStatus(status);
      return;
    }
    this.clearStatus();
    if (this.pending.length === 0) setImmediate(() => this.flush());
    this.pending.push(text);
  }

  /**
   * A line on stdout. On a terminal, one wider than it is wrapped between words (layout/wrap.ts), never
   * left to the terminal to break inside a word or an id; a table's or a fitted line is already
   * within the width and passes as it is. In a pipe or a file nothing is wrapped.
   */
  line(text = ''): void {
    this.writeOut(`${wrapText(this.cleanOut(text), this.columns)}\n`);
  }

  /**
   * A line of data on stdout shown exactly, even on a terminal (a JSON or CSV file to copy, a
   * response body): a break of ours in it would change what is copied.
   */
  verbatim(text = ''): void {
    this.writeOut(`${this.cleanOut(text)}\n`);
  }

  /** `--query`, when given: applied to every JSON document and line before it is printed. */
  private query: { apply: (value: unknown) => unknown; raw: boolean } | undefined;

  /** Filters all JSON output through `apply`; with `raw`, a string result prints without quotes (like `jq -r`). */
  setQuery(apply: (value: unknown) => unknown, raw: boolean): void {
    this.query = { apply, raw };
  }

  /** The text of one JSON document or line, after --query; `shownWhole`: see credentialsLine(). */
  private jsonText(value: unknown, indent: number | undefined, shownWhole?: readonly string[]): string {
    const shown = this.query ? this.query.apply(value) : value;
    if (this.query?.raw && typeof shown === 'string') return this.cleanOut(shown, shownWhole);
    // JSON.stringify(undefined) is undefined; JMESPath gives null for "nothing".
    return this.clean(JSON.stringify(shown ?? null, null, indent), false, shownWhole);
  }

  /** One JSON document per line on stdout. */
  jsonLine(value: unknown): void {
    this.writeOut(`${this.jsonText(value, undefined)}\n`);
  }

  /**
   * The one line that prints credentials whole, on purpose: the sandbox's `--json` start line,
   * which scripts read its own key and webhook secret from (as they read credentials.env). The
   * secrets listed in `credentials` are left whole in this line only, even when the run already
   * protects them (SIGN_API_KEY from a sourced credentials.env is the same key); every other
   * secret the run knows is masked as on every line, and later lines mask these again.
   */
  credentialsLine(value: unknown, credentials: readonly string[]): void {
    this.writeOut(`${this.jsonText(value, undefined, credentials)}\n`);
  }

  /** A JSON line already serialised (the listener's fast path); parsed again only when --query needs it. */
  jsonLineText(text: string): void {
    if (this.query) this.jsonLine(JSON.parse(text));
    else this.writeOut(`${this.clean(text, false)}\n`);
  }

  /**
   * One JSON document on stdout, in one style for every command (as gh does):
   * indented for a person at a terminal, compact on one line for a pipe or a
   * file. Outputs of one object per line (`create --json`, `listen --json`)
   * are always compact: see jsonLine().
   */
  jsonDocument(value: unknown): void {
    this.stdout.write(`${this.jsonText(value, this.stdout.isTTY === true ? 2 : undefined)}\n`);
  }

  /** Lines of the block drawn last by redraw(), which the next redraw replaces. */
  private drawnLines = 0;

  /**
   * A block of lines on stdout replacing the block drawn before it (a live
   * view, as `gh run watch` draws): the cursor goes back up over the old
   * block and each line is cleared as it is written again. Clearing "to the
   * end of the screen" from the top-left corner instead would make terminals
   * such as tmux keep every old block in the scrollback. Only for a terminal;
   * lines must fit its width.
   */
  redraw(lines: readonly string[]): void {
    const back = this.drawnLines > 0 ? `\u001b[${this.drawnLines}F` : '';
    const rest = lines.length < this.drawnLines ? '\u001b[J' : '';
    this.stdout.write(`${back}${lines.map((line) => `\u001b[2K${this.cleanOut(line)}\n`).join('')}${rest}`);
    this.drawnLines = lines.length;
  }

  /**
   * A line of ours on stderr (a note, a warning, an error, a hint). On a terminal it is wrapped
   * between words to the width (layout/wrap.ts), its next lines indented, rather than left to the
   * terminal, which breaks it inside whatever word or id reaches the last column; in a pipe or a
   * file it stays one line, for grep.
   */
  info(text: string): void {
    const status = this.clearStatus();
    this.stderr.write(`${wrapText(this.cleanErr(text), this.errColumns)}\n`);
    this.restoreStatus(status);
  }

  /** The status line on screen ('' when none), cleared before other output and drawn again after it. */
  private statusText = '';

  /**
   * A status line redrawn in place on stderr (only meaningful on a terminal); '' clears it. It
   * must stay on one line of the terminal, or `\r` redraws only its last row: its trailing
   * ` · `-separated parts go first, whole (`… · 9.9/s · ETA 14m`), then it is cut.
   */
  status(text: string): void {
    let shown = this.cleanErr(text);
    const room = this.errColumns === undefined ? undefined : this.errColumns - 1;
    while (room !== undefined && widthAtMost(shown) > room && shown.includes(' · '))
      shown = shown.slice(0, shown.lastIndexOf(' · '));
    if (room !== undefined && widthAtMost(shown) > room) shown = cutTo(shown, room);
    this.statusText = shown;
    this.stderr.write(`\r\u001b[2K${this.statusText}`);
  }

  /** Clears the status line; returns it, so it can be put back under the line written meanwhile. */
  private clearStatus(): string {
    const shown = this.statusText;
    if (shown === '') return '';
    this.stderr.write('\r\u001b[2K');
    this.statusText = '';
    return shown;
  }

  /** Puts the status line back, so progress stays on screen between the lines it reports. */
  private restoreStatus(text: string): void {
    if (text === '') return;
    this.stderr.write(text);
    this.statusText = text;
  }

  success(text: string): void {
    this.info(`${this.err.green('✓')} ${text}`);
  }

  /** A warning: its text may quote input or a server, so none of its escape sequences reach the terminal. */
  warn(text: string): void {
    this.info(`${this.err.yellow('warning:')} ${untrusted(text)}`);
  }

  warnIssues(source: string, issues: FieldIssue[]): void {
    for (const issue of issues) this.warn(formatIssue(source, issue));
  }

  trace(text: string): void {
    if (this.verbose) this.info(this.err.dim(text));
  }

  /** An error line of a command's own (not a thrown error): `error: text`, its text shown safely and masked as every line. */
  errorLine(text: string): void {
    this.info(`${this.err.red('error:')} ${untrusted(text)}`);
  }

  /** One line per problem: what failed and why, then the hint on the same line. */
  error(error: unknown): void {
    const label = this.err.red('error:');
    if (error instanceof ValidationError) {
      for (const issue of error.issues) this.info(`${label} ${untrusted(formatIssue(error.source, issue))}`);
      return;
    }
    // One line, whatever the message carries (a server's multi-line body, a path with a newline), and
    // none of its escape sequences: it may quote the server.
    const message = untrusted(error instanceof Error ? error.message : String(error));
    const advice = hintOf(error);
    const hint = advice ? ` ${this.err.dim(`(hint: ${untrusted(advice)})`)}` : '';
    this.info(`${label} ${message}${hint}`);
    if (this.verbose && error instanceof Error && !(error instanceof SignError) && error.stack)
      this.trace(error.stack);
  }
}

/** `file.json: signers[1].phone: message`, or `file.json: message` for the whole document. */
/** `source: path: message`; from a spreadsheet, `source: column (path): message`. */
export function formatIssue(source: string, issue: FieldIssue): string {
  const where = issue.column ? `${issue.column} (${issue.path})` : issue.path;
  return oneLine(`${source}: ${where ? `${where}: ` : ''}${issue.message}`);
}
