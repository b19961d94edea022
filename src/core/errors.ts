/**
 * One error hierarchy for the whole tool. Each failure is told by its class
 * (and its `reason`), never by its message: a caller catches the classes it
 * cares about, and the CLI maps them to its exit codes.
 */

export interface FieldIssue {
  /** JSON path such as `signers[1].phone`; empty for the whole document. */
  path: string;
  message: string;
  /**
   * A machine reason where a caller may act on it: `unknown_field` (the CLI offers
   * --allow-unknown-fields), `case_slip` (a known value in another case), the phone
   * reasons of phone.ts (a national number: the CLI offers a default country).
   */
  code?:
    | 'unknown_field'
    | 'case_slip'
    | 'phone_spreadsheet_number'
    | 'phone_national'
    | 'phone_invalid'
    | 'phone_format';
  /** For `unknown_field` and `case_slip`: the known field or value it most likely stands for. */
  suggestion?: string;
  /** Where the value came from in a spreadsheet: the column(s) of the CSV that filled this field. */
  column?: string;
}

/**
 * Why an error happened, for a caller that words its own advice (the CLI
 * names its flags; a library user has none): the core's own hint stays
 * neutral. Data the advice needs travels in `reasonData`.
 */
export type ErrorReason =
  | 'connect_failed'
  | 'maybe_sent'
  | 'maybe_resent'
  | 'not_the_service'
  | 'key_refused'
  | 'scope_missing'
  | 'not_completed'
  | 'not_voidable'
  | 'rate_limited'
  | 'server_failed'
  | 'reason_required'
  | 'bad_resend_target'
  | 'empty_event_id'
  | 'bad_idempotency_key'
  | 'key_conflict_created'
  | 'key_conflict_in_doubt'
  | 'not_found'
  | 'event_not_found'
  | 'failed_elsewhere';

export interface SignErrorOptions {
  hint?: string;
  cause?: unknown;
  reason?: ErrorReason;
  reasonData?: Record<string, string | undefined>;
}

export class SignError extends Error {
  /** A short suggestion of what to do next, shown after the message. */
  readonly hint: string | undefined;
  /** Why, for a caller that words its own advice; see ErrorReason. */
  readonly reason: ErrorReason | undefined;
  readonly reasonData: Record<string, string | undefined>;

  constructor(message: string, options: SignErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.hint = options.hint;
    this.reason = options.reason;
    this.reasonData = options.reasonData ?? {};
  }
}

/** Wrong flags, missing values, unreadable input: nothing was sent. */
export class UsageError extends SignError {}

/** A file that is not valid JSON; carries where it broke. */
export class InputParseError extends UsageError {
  constructor(
    readonly source: string,
    readonly line: number,
    readonly column: number,
    readonly detail: string,
    /** A likelier fix than editing the JSON (e.g. "add --ndjson"). */
    readonly suggestion?: string,
  ) {
    super(`${source}:${line}:${column}: invalid JSON at line ${line}, column ${column}: ${detail}`, {
      hint: suggestion ?? 'fix the JSON at that position and run again',
    });
  }
}

/** An envelope that breaks the request rules; nothing was sent. */
export class ValidationError extends UsageError {
  constructor(
    readonly source: string,
    readonly issues: FieldIssue[],
  ) {
    super(
      `${source}: ${issues.length} invalid field${issues.length === 1 ? '' : 's'}: ` +
        issues.map((i) => `${i.path || '(document)'}: ${i.message}`).join('; '),
      { hint: 'fix the fields named above; validateEnvelope() checks without sending' },
    );
  }
}

/** Missing, unknown, expired or under-scoped API key (HTTP 401/403 or caught locally). */
export class AuthError extends SignError {
  constructor(
    message: string,
    readonly status?: number,
    options: SignErrorOptions = {},
  ) {
    super(message, options);
  }
}

/** The service answered with an error status, after any retries. */
export class ApiError extends SignError {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | undefined,
    readonly serverMessage: string | undefined,
    options: SignErrorOptions & { details?: unknown } = {},
  ) {
    super(message, options);
    this.details = options.details;
  }
  readonly details: unknown;
}

/** Connection refused or reset, DNS failure, timeouts: after all retries. */
export class NetworkError extends SignError {
  constructor(
    message: string,
    readonly code: string | undefined,
    options: SignErrorOptions & { nothingSent?: boolean } = {},
  ) {
    super(message, options);
    this.nothingSent = options.nothingSent === true;
  }
  /** True when no attempt got as far as a connection (refused, no route, DNS): the service saw nothing. */
  readonly nothingSent: boolean;
}

/**
 * A 2xx that is not what was asked for (an HTML page, an empty body, a
 * non-PDF): usually a wrong base URL. Never a success (no false success).
 */
export class UnexpectedResponseError extends SignError {
  constructor(
    message: string,
    readonly status: number,
    readonly contentType: string | undefined,
    options: SignErrorOptions = {},
  ) {
    super(message, options);
  }
}

/** The user interrupted (Ctrl-C) or a caller aborted. */
export class InterruptedError extends SignError {
  /** False when the interrupt came before the request went on the wire: nothing reached the service. */
  readonly sent: boolean;
  constructor(message = 'interrupted', options: { sent?: boolean } = {}) {
    super(message);
    this.sent = options.sent ?? true;
  }
}

/** What an error body says, whatever its shape. */
export interface ServerErrorInfo {
  code?: string;
  message?: string;
  details?: unknown;
}

function pickString(...values: unknown[]): string | undefined {
  for (const value of values) {
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return undefined;
}

/**
 * Reads an error body of any common shape: `{message}`, `{error: "..."}`,
 * `{error: {message, code}}`, `{detail}`, problem+json `{title, detail, type}`,
 * `{errors: [{message}]}`, or plain text (first line, trimmed).
 */
export function parseErrorBody(text: string, contentType = ''): ServerErrorInfo {
  const trimmed = text.trim();
  if (trimmed === '') return {};
  const looksJson = /json/i.test(contentType) || trimmed.startsWith('{') || trimmed.startsWith('[');
  if (looksJson) {
    try {
      const body: unknown = JSON.parse(trimmed);
      if (body && typeof body === 'object' && !Array.isArray(body)) {
        const b = body as Record<string, unknown>;
        const nested =
          b.error && typeof b.error === 'object' ? (b.error as Record<string, unknown>) : undefined;
        const firstOfList =
          Array.isArray(b.errors) && b.errors[0] && typeof b.errors[0] === 'object'
            ? (b.errors[0] as Record<string, unknown>)
            : undefined;
        const title = pickString(b.title);
        const detail = pickString(b.detail);
        const message =
          pickString(b.message, nested?.message, typeof b.error === 'string' ? b.error : undefined) ??
          (title && detail ? `${title}: ${detail}` : (detail ?? title)) ??
          pickString(firstOfList?.message, b.error_description);
        const type = pickString(b.type);
        const code =
          pickString(b.code, nested?.code, nested?.type, firstOfList?.code) ??
          (type && type !== 'about:blank' ? type : undefined);
        const details = b.errors ?? nested?.errors ?? b.details;
        const info: ServerErrorInfo = {};
        if (code !== undefined) info.code = code;
        if (message !== undefined) info.message = message;
        if (details !== undefined) info.details = details;
        return info;
      }
    } catch {
      // Not JSON after all: fall through to text.
    }
  }
  const firstLine = trimmed.split(/\r?\n/, 1)[0] ?? '';
  // HTML error pages from proxies say nothing useful beyond their title.
  const htmlTitle = /<title>([^<]*)<\/title>/i.exec(trimmed)?.[1];
  const message = (htmlTitle ?? firstLine).trim().slice(0, 200);
  return message ? { message } : {};
}

/**
 * A file sign-cli keeps (a journal, a state log, a saved delivery) could not
 * be written or opened: the disk is full or read-only, a permission, too many
 * open files, a symlink where a file was expected. Names the path and a fix.
 */
export class StorageError extends SignError {
  constructor(
    readonly path: string,
    readonly code: string | undefined,
    message: string,
    options: { hint?: string; cause?: unknown } = {},
  ) {
    super(message, options);
  }
}
