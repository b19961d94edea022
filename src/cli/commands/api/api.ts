/**
 * `sign-cli api <path>`: any endpoint of the service, with the key, pacing,
 * the shared budget, retries, --query and masking of every command (gh api,
 * `stripe get|post|delete`). A POST carries an Idempotency-Key derived from
 * what it sends, so the same call run twice acts once.
 */
import { Argument, Option, type Command } from 'commander';
import { ENDPOINTS, MAX_BODY_BYTES } from '../../../core/endpoints.js';
import { UnexpectedResponseError, UsageError } from '../../../core/errors.js';
import { ExitCode } from '../../exit-codes.js';
import { MAX_PAGE_SIZE } from '../../../core/client/pages.js';
import { contentHash, derivedIdempotencyKey } from '../../../core/client/idempotency.js';
import { escapeControl, untrusted } from '../../../core/envelope/text.js';
import type { Action } from '../../action.js';
import { buildBody, queryOf, rawField, typedField, type Field } from './fields.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import { completes, valuesOf } from '../../completion/hints.js';
import type { CommandContext } from '../../context.js';
import { collect } from '../../flags/values.js';
import { readFlagFile, readStdin, tooLarge } from '../../input/stdin.js';

interface ApiFlags {
  method?: string;
  rawField: string[];
  field: string[];
  header: string[];
  paginate?: boolean;
  include?: boolean;
  silent?: boolean;
}

export const doc: CommandDoc = {
  summary: 'call any endpoint of the service, with your key, pacing and retries',
  details: [
    'The path is relative to the base URL (`/api/v1/...`; no host, so the key never goes elsewhere); a query written in it (`/api/v1/envelopes?limit=5`) is sent as written, before any fields of a GET. The method is GET, or POST when fields or `--input` are given; `-X` sets it.',
    "`-f key=value` adds a string field, `-F key=value` a typed one (`true`, `false`, `null`, numbers; `@file` a file's text, `@-` stdin). Keys nest: `signers[0][name]=…`, `signers[][name]=…` (appended), `document.template_id=…`. Fields are the JSON body of a POST, PUT or PATCH, and query parameters of a GET or DELETE (and of any request with `--input`, which is the body as it is).",
    "A body over 1 MiB, the service's limit (from `--input`, a `-F @file` or the fields together), is refused as it is read: exit 2, nothing sent. A `-H` value holds printable text only (a control character is exit 2). A key or secret sign-cli knows (the key in use, the config file's, `SIGN_WEBHOOK_SECRET`, a `-H Authorization` token) is masked on every line, the path in an error line included.",
    'A POST carries an Idempotency-Key derived from its method, path and body, so running the same call twice acts once (the service replays its first answer); `-H "Idempotency-Key: …"` sets one, and a retry always resends the same.',
    'The answer is printed as it came: JSON as JSON (indented on a terminal; `--query` picks a part), other text escaped. Exit 0 for a 2xx; otherwise the body is printed all the same, a line on stderr says what came back, and the exit code is 3 for 401 and 403, 1 for anything else.',
    "`--paginate` follows a listing's `next_cursor` while `has_more` is true and prints each item as one JSON line (as `envelopes list --all --json`), one page held at a time; `--query` applies to each item.",
  ],
  examples: [
    'sign-cli api /api/v1/api-keys',
    'sign-cli api "/api/v1/envelopes/$id" --query status',
    'sign-cli api -X GET /api/v1/envelopes -f status=completed -F limit=5 --include',
    'sign-cli api /api/v1/envelopes --paginate --query id',
    'sign-cli api /api/v1/envelopes --input envelope.json --query id   # run it twice: one envelope, the same id',
    'sign-cli api /api/v1/envelopes -f title=Lease -f contract_id=C-9 -f document.template_id=tpl_lease_renewal -F document.version=3 -f "signers[][name]=Omar Khalil" -f "signers[][channel]=email" -f "signers[][email]=omar@example.com"',
  ],
};

export function registerApi(program: Command, action: Action): void {
  defineCommand(program, 'api', doc)
    // Tab offers the service's paths as sign-cli knows them ({id} to fill in).
    .addArgument(
      completes(
        new Argument('<path>', 'the endpoint, relative to the base URL: /api/v1/...'),
        valuesOf([...new Set(Object.values(ENDPOINTS).map((e) => e.path))].sort()),
      ),
    )
    .option('-X, --method <method>', 'the HTTP method (default: GET, or POST with fields or --input)')
    .option('-f, --raw-field <key=value>', 'a string field (repeatable)', collect, [])
    .option(
      '-F, --field <key=value>',
      'a typed field: true, false, null, numbers, @file, @- (repeatable)',
      collect,
      [],
    )
    .option('--input <file|->', 'the request body, as it is, from a file or - for stdin')
    .option('-H, --header <name: value>', 'a request header (repeatable)', collect, [])
    .addOption(new Option('--paginate', 'follow next_cursor; print each item as a JSON line'))
    .option('-i, --include', 'print the status line and headers before the body')
    .option('--silent', 'print nothing of the answer')
    .action(action(apiCommand));
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

export async function apiCommand(ctx: CommandContext, flags: ApiFlags, [given]: string[]): Promise<number> {
  const path = checkPath(given ?? '');
  // The global --no-input shares the name, and commander lets globals win: read this command's own.
  const own = ctx.command?.opts();
  const input = typeof own?.input === 'string' ? own.input : undefined;
  // What becomes the body is bounded while it is read: past the service's limit it could never be sent.
  const bound = { bytes: MAX_BODY_BYTES, why: 'the most the service takes in one request; nothing was sent' };
  const readInput = async (source: string, flag: string): Promise<Buffer> =>
    source === '-'
      ? readStdin(
          {
            signal: ctx.signal,
            hint: `reading ${flag} from stdin; Ctrl-D to end`,
            stdin: ctx.io.stdin,
            stderr: ctx.io.stderr,
          },
          { ...bound, what: `${flag} - (stdin)` },
        )
      : readFlagFile(flag, source, bound);
  const fields: Field[] = [...flags.rawField.map(rawField)];
  for (const text of flags.field)
    fields.push(await typedField(text, async (file) => (await readInput(file, '-F')).toString('utf8')));
  const method = (flags.method ?? (fields.length > 0 || input !== undefined ? 'POST' : 'GET')).toUpperCase();
  if (!/^[A-Z]+$/.test(method))
    throw new UsageError(`--method ${flags.method}: not an HTTP method (GET, POST, PUT, PATCH, DELETE)`);
  if (flags.paginate && method !== 'GET') throw new UsageError('--paginate follows a listing: it needs GET');
  const headers = Object.fromEntries(flags.header.map(parseHeader));
  // A key given in -H is as secret as the configured one: never shown beyond its mask.
  for (const [name, value] of Object.entries(headers))
    if (name.toLowerCase() === 'authorization') ctx.output.protect(value.replace(/^\S+\s+/, ''));
  const inBody = BODY_METHODS.has(method) && input === undefined && fields.length > 0;
  const body =
    input !== undefined ? await readInput(input, '--input') : inBody ? fieldsBody(fields) : undefined;
  const query = inBody ? {} : queryOf(fields);
  // The same call sent again gets the same key: the service replays instead of acting twice.
  const idempotencyKey =
    method === 'POST' && !Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key')
      ? derivedIdempotencyKey(contentHash({ method, path, body: body?.toString('base64') ?? null }))
      : undefined;

  const client = await ctx.client();
  try {
    if (flags.paginate) return await paginate(ctx, client, path, headers, query);
    const answer = await client.request(
      { method, path, headers, ...(body !== undefined ? { body } : {}) },
      { query, idempotencyKey, signal: ctx.signal },
    );
    return show(ctx, client, `${method} ${path}`, answer, flags);
  } finally {
    await client.close();
  }
}

type Client = Awaited<ReturnType<CommandContext['client']>>;
type Answer = Awaited<ReturnType<Client['request']>>;

/** A path under the base URL; a full URL would send the key to another host. */
function checkPath(path: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//'))
    throw new UsageError(
      `${path}: give a path under the base URL (/api/v1/...), not a URL; --base-url chooses the service`,
    );
  return path.startsWith('/') ? path : `/${path}`;
}

function parseHeader(text: string): [string, string] {
  const at = text.indexOf(':');
  // A name as HTTP allows it, and a value on one line (a line break would forge another header).
  if (at <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(text.slice(0, at).trim()) || /[\r\n\0]/.test(text))
    throw new UsageError(`-H ${untrusted(text)}: not "Name: value" on one line`);
  const [name, value] = [text.slice(0, at).trim(), text.slice(at + 1).trim()];
  // What HTTP lets a value hold (RFC 9110 field-value: tab, visible ASCII, obs-text): anything
  // else (an ESC, a letter beyond Latin-1) would fail in the HTTP client, taken for a network failure.
  const bad = /[^\t\x20-\x7e\x80-\xff]/u.exec(value);
  if (bad)
    throw new UsageError(
      `-H ${name}: the value holds ${codePoint(bad[0])}, which an HTTP header cannot carry; give printable ASCII`,
    );
  return [name, value];
}

/** `U+001B`, as a message names a character it must not show. */
function codePoint(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The JSON body the fields make; past the service's limit it is refused here, never sent. */
function fieldsBody(fields: readonly Field[]): string {
  const body = JSON.stringify(buildBody(fields));
  if (Buffer.byteLength(body) > MAX_BODY_BYTES)
    throw tooLarge({
      what: 'the body of -f/-F fields',
      bytes: MAX_BODY_BYTES,
      why: 'the most the service takes in one request; nothing was sent',
    });
  return body;
}

/** The answer as it came; a non-2xx says so on stderr and sets the exit code. */
function show(ctx: CommandContext, client: Client, label: string, answer: Answer, flags: ApiFlags): number {
  const { output } = ctx;
  const text = client.scrub(answer.data.toString('utf8'));
  if (flags.include && !flags.silent) {
    output.line(`HTTP ${answer.status}`);
    for (const [name, value] of Object.entries(answer.headers))
      if (value !== undefined) output.line(untrusted(`${name}: ${client.scrub(value)}`));
    output.line();
  }
  const json = parseJson(text);
  if (!flags.silent && text !== '') {
    if (json !== undefined) output.jsonDocument(json.value);
    else output.verbatim(escapeControl(text));
  }
  if (answer.status >= 200 && answer.status < 300) return ExitCode.ok;
  const error =
    json && typeof json.value === 'object' && json.value !== null
      ? (json.value as { error?: { code?: unknown; message?: unknown } }).error
      : undefined;
  const detail = error
    ? ` ${typeof error.code === 'string' ? error.code : ''}${typeof error.message === 'string' && error.message ? `: ${error.message}` : ''}`
    : '';
  // Through the output, as every error line: a key in the path or the server's words is masked.
  ctx.output.errorLine(`${label}: HTTP ${answer.status}${detail}`);
  return answer.status === 401 || answer.status === 403 ? ExitCode.auth : ExitCode.failed;
}

function parseJson(text: string): { value: unknown } | undefined {
  if (!/^\s*[[{"\d-]|^\s*(true|false|null)\s*$/.test(text)) return undefined;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/** Each item of each page as a JSON line, following next_cursor; one page held at a time. */
async function paginate(
  ctx: CommandContext,
  client: Client,
  path: string,
  headers: Record<string, string>,
  query: Record<string, string[]>,
): Promise<number> {
  const seen = new Set<string>();
  for (let cursor: string | undefined; ;) {
    const answer = await client.request(
      { method: 'GET', path, headers },
      {
        query: { limit: [String(MAX_PAGE_SIZE)], ...query, ...(cursor ? { cursor: [cursor] } : {}) },
        signal: ctx.signal,
      },
    );
    const json = parseJson(client.scrub(answer.data.toString('utf8')));
    const page = json?.value as { data?: unknown; has_more?: unknown; next_cursor?: unknown } | undefined;
    if (answer.status < 200 || answer.status >= 300 || !page || !Array.isArray(page.data))
      return show(ctx, client, `GET ${path}`, answer, {} as ApiFlags);
    for (const item of page.data) ctx.output.jsonLine(item);
    const next =
      typeof page.next_cursor === 'string' && page.next_cursor !== '' ? page.next_cursor : undefined;
    if (page.has_more !== true || next === undefined) return ExitCode.ok;
    // A cursor handed back twice would page forever.
    if (seen.has(next))
      throw new UnexpectedResponseError(
        `GET ${path}: the service returned the cursor ${next.slice(0, 40)} twice; the listing is not advancing`,
        answer.status,
        undefined,
      );
    seen.add(next);
    cursor = next;
  }
}
