/**
 * The "validate everything first" step shared by `envelopes create` and
 * `envelopes validate`: a parse error or a broken rule of any input is found
 * before a single request could be sent.
 */
import { Option, type Command } from 'commander';
import { completes } from '../../completion/hints.js';
import { InputParseError, UsageError, type FieldIssue } from '../../../core/errors.js';
import { validateEnvelope, type ValidationResult } from '../../../core/envelope/envelope.js';
import { openInputs, type InputSet, type ReadInput } from '../../input/envelope-inputs.js';
import type { CommandContext } from '../../context.js';

export interface CheckedInput {
  source: string;
  value: unknown;
  errors: FieldIssue[];
  warnings: FieldIssue[];
}

export type Validator = (value: unknown) => ValidationResult;

/** The envelope rules with the CLI's words for an unknown field. */
export async function loadValidator(options: { allowUnknownFields: boolean }): Promise<Validator> {
  return (value) => {
    const result = validateEnvelope(value, { allowUnknownFields: options.allowUnknownFields });
    // The core says what is wrong; the command says how to send such a field deliberately.
    result.errors = result.errors.map((issue) => {
      if (issue.code === 'unknown_field')
        return {
          ...issue,
          message: `${issue.message} (the fields are in docs/service.md; --allow-unknown-fields sends it as is)`,
        };
      if (issue.code === 'phone_national')
        return {
          ...issue,
          message: `${issue.message} (or --default-country <CC> to read national numbers as that country's, e.g. --default-country AE)`,
        };
      return issue;
    });
    return result;
  };
}

/** --allow-unknown-fields, else the setting allow_unknown_fields. */
export async function allowUnknownFields(ctx: CommandContext, flag: boolean | undefined): Promise<boolean> {
  return flag === true || (await ctx.setting<boolean>('allow_unknown_fields')) === true;
}

export function checkInput(input: ReadInput, validate: Validator): CheckedInput {
  if ('error' in input) {
    const { error } = input;
    if (!(error instanceof InputParseError))
      return {
        source: input.source,
        value: undefined,
        errors: [{ path: '', message: error.message }],
        warnings: [],
      };
    const suggestion = error.suggestion ? `; ${error.suggestion}` : '';
    return {
      source: input.source,
      value: undefined,
      errors: [
        {
          path: '',
          message: `invalid JSON at line ${error.line}, column ${error.column}: ${error.detail}${suggestion}`,
        },
      ],
      warnings: [],
    };
  }
  const result = validate(input.value);
  const { columns } = input;
  if (!columns || columns.size === 0) return { source: input.source, value: input.value, ...result };
  // A spreadsheet's row: each problem names the column that filled the field, as the sheet calls it.
  const named = (issue: FieldIssue): FieldIssue => {
    const from = columns.get(issue.path);
    return from ? { ...issue, column: from.join(', ') } : issue;
  };
  return {
    source: input.source,
    value: input.value,
    errors: result.errors.map(named),
    warnings: result.warnings.map(named),
  };
}

/**
 * Warnings said once per file, not once per row: the same warning (field, column and message) of
 * many inputs of one NDJSON file or spreadsheet is said once, with how many inputs have it and the
 * first of them (`recipients.csv (15 rows; first: row 2): locale: …`). A file's warnings are said
 * when its last input is read; `flush` says the rest.
 */
export class FileWarnings {
  private file: string | undefined;
  private readonly pending = new Map<string, { issue: FieldIssue; sources: Set<string> }>();

  constructor(private readonly say: (source: string, issue: FieldIssue) => void) {}

  add(source: string, issues: readonly FieldIssue[]): void {
    // `batch.ndjson:12` and `recipients.csv:row 3` are inputs of one file.
    const file = source.replace(/:(?:row )?\d+$/, '');
    if (file !== this.file) this.flush();
    this.file = file;
    for (const issue of issues) {
      const key = `${issue.path.replace(/\[\d+\]/g, '[]')}\0${issue.column ?? ''}\0${issue.message}`;
      const seen = this.pending.get(key) ?? { issue, sources: new Set<string>() };
      seen.sources.add(source);
      this.pending.set(key, seen);
    }
  }

  flush(): void {
    for (const { issue, sources } of this.pending.values()) {
      const [first = ''] = sources;
      const at = first.slice((this.file ?? '').length + 1);
      const unit = at.startsWith('row ') ? 'rows' : 'lines';
      this.say(
        sources.size === 1
          ? first
          : `${this.file} (${sources.size} ${unit}; first: ${/^\d/.test(at) ? `line ${at}` : at})`,
        issue,
      );
    }
    this.pending.clear();
  }
}

/** How a command was told where its envelopes are: files and directories (JSON, NDJSON) or a CSV with a template. */
export interface InputFlags {
  ndjson?: boolean;
  csv?: string;
  template?: string;
  delimiter?: string;
  encoding?: string;
  defaultCountry?: string;
  allowQuestionMarks?: boolean;
}

/** The options of how input files are read, shared by create and validate. */
export function readingOptions(command: Command): Command {
  return command
    .option(
      '--encoding <label>',
      'read input files in this encoding (a WHATWG label such as windows-1256) instead of UTF-8 or UTF-16, which are recognised by themselves',
    )
    .option(
      '--default-country <CC>',
      "read national phone numbers (0501234567) as this country's (ISO code such as AE or SA) and send them in international form",
    )
    .option(
      '--allow-question-marks',
      'with --csv: cells of "??" are what the sheet holds, not letters an export replaced',
    );
}

/** --template, beside --csv in create and validate (a new Option each: commander keeps it). */
export function templateOption(): Option {
  return completes(
    new Option(
      '--template <envelope.json>',
      'with --csv: an envelope whose strings may hold {{column}} placeholders',
    ),
    { kind: 'files' },
  );
}

/** --delimiter, beside --csv in create and validate. */
export function delimiterOption(): Option {
  return new Option(
    '--delimiter <c>',
    'with --csv: the field delimiter (default: detected from the header row: , ; tab or |)',
  );
}

/** --default-country as libphonenumber takes it: two letters, upper case, a country it knows. */
async function checkCountry(value: string | undefined): Promise<string | undefined> {
  if (value === undefined) return undefined;
  const code = value.trim().toUpperCase();
  const { isPhoneCountry } = await import('../../../core/envelope/phone.js');
  if (!isPhoneCountry(code))
    throw new UsageError(`--default-country ${value}: not a country code`, {
      hint: 'give the two-letter ISO 3166 code, such as AE, SA, EG or GB',
    });
  return code;
}

/**
 * The inputs of `create` and `validate`: the paths (JSON, or NDJSON with
 * --ndjson), or one envelope per row of --csv filled into --template. Columns
 * the template never uses are a warning each (a misspelt placeholder would show
 * up as an error for its missing column).
 */
export async function openCommandInputs(
  ctx: CommandContext,
  paths: string[],
  flags: InputFlags,
  pathFlag: string,
): Promise<InputSet> {
  const defaultCountry = await checkCountry(flags.defaultCountry);
  if (flags.encoding !== undefined) {
    const { checkLabel } = await import('../../input/encoding.js');
    checkLabel(flags.encoding);
  }
  const reading = {
    ...(flags.encoding !== undefined ? { encoding: flags.encoding } : {}),
    ...(defaultCountry ? { defaultCountry } : {}),
  };
  if (flags.csv === undefined) {
    if (flags.template !== undefined || flags.delimiter !== undefined || flags.allowQuestionMarks) {
      throw new UsageError(
        `${flags.template !== undefined ? '--template' : flags.delimiter !== undefined ? '--delimiter' : '--allow-question-marks'} goes with --csv`,
        { hint: 'sign-cli envelopes create --csv recipients.csv --template template.json' },
      );
    }
    return openInputs(paths, flags.ndjson === true, () => ctx.signal, ctx.io, reading);
  }
  if (flags.template === undefined) {
    throw new UsageError('--csv needs --template <envelope.json>: the envelope each row fills in', {
      hint: '`sign-cli envelopes sample --template` prints one to start from; `sign-cli envelopes create --help` shows the {{column}} placeholders',
    });
  }
  if (paths.length > 0 || flags.ndjson)
    throw new UsageError(
      `--csv takes the place of ${paths.length > 0 ? pathFlag : '--ndjson'}: give one or the other`,
    );
  const { openCsvInputs } = await import('../../input/csv-input.js');
  const inputs = await openCsvInputs(
    {
      csv: flags.csv,
      template: flags.template,
      ...(flags.delimiter !== undefined ? { delimiter: flags.delimiter } : {}),
      ...reading,
      allowQuestionMarks: flags.allowQuestionMarks === true,
    },
    () => ctx.signal,
    ctx.io,
  );
  const name = flags.csv === '-' ? 'stdin' : flags.csv;
  for (const column of inputs.unusedColumns)
    ctx.output.warn(`${name}: the template never uses the column ${JSON.stringify(column)}`);
  const nameless = inputs.namelessColumns;
  if (nameless.length > 0)
    ctx.output.warn(
      `${name}: column${nameless.length === 1 ? '' : 's'} ${nameless.join(', ')} of the header row ${nameless.length === 1 ? 'has' : 'have'} no name and ${nameless.length === 1 ? 'is' : 'are'} ignored`,
    );
  return inputs;
}
