/**
 * The settings `sign-cli config` manages: their names, where each lives in
 * config.json, and how a value is checked before it is stored.
 */
import { UsageError } from '../../core/errors.js';
import { ENDPOINTS, SCOPES, isOperation, parseBaseUrl } from '../../core/endpoints.js';
import { OPEN_FIELDS, type OpenField } from '../../core/envelope/open-fields.js';
import { isScope } from '../../core/keys.js';
import { WEBHOOK_SCHEMES } from '../../core/webhooks/webhook-schemes.js';
import { parseRateStoreUrl, showRateStoreUrl } from '../../core/pacing/rate-store-url.js';
import { parseIntegerOption, parsePositiveNumberOption } from '../flags/values.js';
import { parseRetention } from '../flags/since.js';

/** The local sandbox: what the CLI talks to when nothing else is configured (docs/configuration.md). */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010';

export interface SettingSpec {
  describe: string;
  /** Dotted path inside config.json. */
  path: string;
  /** Turns the text given to `config set` into the stored value, or throws a UsageError. */
  parse(value: string): unknown;
  /** What applies when it is not set (`config get` prints it); undefined when nothing does. */
  default?: unknown;
  /** How the stored value is shown, when it may hold a secret (a password in a URL). */
  show?(value: unknown): string;
}

export const SETTINGS: Record<string, SettingSpec> = {
  base_url: {
    describe: 'service base URL used when no flag, env var or profile gives one',
    path: 'settings.base_url',
    parse: (value) => parseBaseUrl(value),
    default: DEFAULT_BASE_URL,
  },
  default_profile: {
    describe: 'the active profile (same as `keys use`)',
    path: 'active_profile',
    parse: (value) => value,
  },
  rate: {
    describe: 'requests per minute for envelopes create (default: 600)',
    path: 'settings.rate',
    parse: (v) => parsePositiveNumberOption('rate', v),
    default: 600,
  },
  timeout: {
    describe: 'per-request timeout in seconds (default: 30)',
    path: 'settings.timeout',
    parse: (v) => parsePositiveNumberOption('timeout', v),
    default: 30,
  },
  retries: {
    describe: 'retries per request (default: 5)',
    path: 'settings.retries',
    default: 5,
    parse: (value) => parseIntegerOption('retries', value, 0, 100),
  },
  webhook_scheme: {
    describe: `default webhook signature scheme (${WEBHOOK_SCHEMES.join(', ')}; default: standard)`,
    path: 'settings.webhook_scheme',
    default: 'standard',
    parse: (value) => {
      if (!(WEBHOOK_SCHEMES as readonly string[]).includes(value))
        throw new UsageError(
          `webhook_scheme must be one of ${WEBHOOK_SCHEMES.join(', ')}, got ${JSON.stringify(value)}`,
        );
      return value;
    },
  },
  rate_store: {
    describe:
      'Redis URL of a rate budget shared by every run using the same key (see "Many runners, one key")',
    path: 'settings.rate_store',
    parse: (value) => parseRateStoreUrl(value, 'rate_store'),
    show: (value) => showRateStoreUrl(String(value)),
  },
  journal_store: {
    describe:
      'Redis URL of the create journal shared by every runner (see "Many runners, one journal"); without it, local files',
    path: 'settings.journal_store',
    parse: (value) => parseRateStoreUrl(value, 'journal_store'),
    show: (value) => showRateStoreUrl(String(value)),
  },
  journal_retention: {
    describe: 'how long create journals are kept after their last write (a duration: 30d, 12h; default: 30d)',
    path: 'settings.journal_retention',
    default: '30d',
    parse: (value) => {
      parseRetention(value, 'journal_retention');
      return value.trim();
    },
  },
  allow_unknown_fields: {
    describe:
      'send envelope fields sign-cli does not know instead of refusing them (true or false; default: false)',
    path: 'settings.allow_unknown_fields',
    default: false,
    parse: (value) => {
      if (value !== 'true' && value !== 'false')
        throw new UsageError(`allow_unknown_fields must be true or false, got ${JSON.stringify(value)}`);
      return value === 'true';
    },
  },
  required_scopes: {
    describe: 'scopes every key must have, checked by `keys check` and `doctor` (comma-separated)',
    path: 'settings.required_scopes',
    default: [],
    parse: (value) =>
      parseScopes(
        value
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
        'required_scopes',
      ),
  },
};

export function parseScopes(values: string[], name: string): string[] {
  for (const scope of values) {
    if (!isScope(scope))
      throw new UsageError(`${name}: ${JSON.stringify(scope)} is not a scope; use ${SCOPES.join(', ')}`);
  }
  return [...new Set(values)];
}

/** `national_id,bank_id` as a list of values; each a word of letters, digits, `_`, `-` or `.`. */
export function parseValueList(text: string, name: string): string[] {
  const values = text
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  if (values.length === 0) throw new UsageError(`${name} needs at least one value, e.g. national_id`);
  const bad = values.find((v) => !/^[\w.-]{1,64}$/.test(v));
  if (bad !== undefined)
    throw new UsageError(
      `${name}: ${JSON.stringify(bad.slice(0, 40))} is not a value; use letters, digits, _, - or . (up to 64)`,
    );
  return [...new Set(values)];
}

export function isOpenField(name: string): name is OpenField {
  return (OPEN_FIELDS as readonly string[]).includes(name);
}

/** The spec of a setting name, including `paths.<operation>` for endpoint overrides and `sandbox.accept.<field>`. */
export function settingSpec(name: string): SettingSpec {
  const known = SETTINGS[name];
  if (known) return known;
  const field = /^sandbox\.accept\.(\w+)$/.exec(name)?.[1];
  if (field !== undefined) {
    if (!isOpenField(field))
      throw new UsageError(`${name}: unknown field`, {
        hint: `use sandbox.accept.<${OPEN_FIELDS.join('|')}>`,
      });
    return {
      describe: `values of ${field} the local sandbox accepts beyond its own list (comma-separated)`,
      path: `sandbox.accept.${field}`,
      parse: (value) => parseValueList(value, name),
    };
  }
  const op = /^paths\.(\w+)$/.exec(name)?.[1];
  if (op !== undefined) {
    if (!isOperation(op))
      throw new UsageError(`${name}: unknown operation`, {
        hint: `use paths.<${Object.keys(ENDPOINTS).join('|')}>`,
      });
    return {
      describe: `path of ${op} (default: ${ENDPOINTS[op].path})`,
      default: ENDPOINTS[op].path,
      path: `paths.${op}`,
      parse: (value) => {
        if (!value.startsWith('/'))
          throw new UsageError(`${name} must be a path starting with /, such as ${ENDPOINTS[op].path}`);
        return value;
      },
    };
  }
  throw new UsageError(`unknown setting ${JSON.stringify(name)}`, {
    hint: `settings: ${[...Object.keys(SETTINGS), 'paths.<operation>', 'sandbox.accept.<field>'].join(', ')}`,
  });
}
