/**
 * What `config list` shows: every setting as a run of sign-cli would use it
 * right now, and where that value comes from (a flag, the environment, the
 * active profile, the config file, or the default), in the precedence of
 * docs/configuration.md. Secrets are masked.
 */
import { maskKey } from '../../../core/keys.js';
import { showRateStoreUrl } from '../../../core/pacing/rate-store-url.js';
import type { CommandContext } from '../../context.js';
import { SETTINGS } from '../../config/settings.js';

export interface EffectiveSetting {
  name: string;
  /** As shown: masked where it is a secret; null when nothing applies. */
  value: string | null;
  /** `flag --base-url`, `env SIGN_BASE_URL`, `profile prod`, `config`, `default`, or `none`. */
  source: string;
}

/** The Connection's own source names in the one wording of this listing. */
function sourceLabel(source: string): string {
  if (source.startsWith('--')) return `flag ${source}`;
  if (/^SIGN_[A-Z_]+$/.test(source)) return `env ${source}`;
  if (source.startsWith('profile ')) return source;
  if (source.startsWith('config')) return 'config';
  if (source.startsWith('default')) return 'default';
  if (source.startsWith('the environment variable '))
    return `env ${source.slice('the environment variable '.length)}`;
  if (source.startsWith('the config setting ')) return 'config';
  return source;
}

const show = (value: unknown): string =>
  typeof value === 'string' ? value : Array.isArray(value) ? value.join(',') : JSON.stringify(value);

export async function effectiveSettings(ctx: CommandContext): Promise<EffectiveSetting[]> {
  const config = await ctx.loadConfig();
  const stored = (name: string) => config.get(SETTINGS[name]!.path);
  /** A setting only the config file (or its default) gives. */
  const fromConfig = (name: string): EffectiveSetting => {
    const value = stored(name);
    const fallback = SETTINGS[name]!.default;
    if (value !== undefined)
      return {
        name,
        value: SETTINGS[name]!.show ? SETTINGS[name]!.show(value) : show(value),
        source: 'config',
      };
    return fallback === undefined
      ? { name, value: null, source: 'none' }
      : { name, value: show(fallback), source: 'default' };
  };
  const rows: EffectiveSetting[] = [];

  const profile =
    ctx.globals.profile !== undefined
      ? { value: ctx.globals.profile, source: 'flag --profile' }
      : ctx.env.SIGN_PROFILE
        ? { value: ctx.env.SIGN_PROFILE, source: 'env SIGN_PROFILE' }
        : config.get('active_profile')
          ? { value: String(config.get('active_profile')), source: 'config' }
          : { value: null, source: 'none' };
  rows.push({ name: 'profile', ...profile });

  const connection = await ctx.resolveConnection();
  rows.push({ name: 'base_url', value: connection.baseUrl, source: sourceLabel(connection.sources.baseUrl) });
  rows.push({
    name: 'api_key',
    value: connection.apiKey ? maskKey(connection.apiKey) : null,
    source: connection.apiKey
      ? sourceLabel(connection.sources.apiKey.replace(/^--api-key-file .*/, '--api-key-file'))
      : 'none',
  });

  for (const [name, flag, envName] of [
    ['timeout', '--timeout', 'SIGN_TIMEOUT'],
    ['retries', '--retries', 'SIGN_RETRIES'],
  ] as const) {
    const given = await ctx.numberFrom(flag, ctx.globals[name], envName, name);
    rows.push(given ? { name, value: given.value, source: sourceLabel(given.name) } : fromConfig(name));
  }
  rows.push(fromConfig('rate'));

  const store = ctx.globals.rateStore
    ? { value: ctx.globals.rateStore, source: 'flag --rate-store' }
    : ctx.env.SIGN_RATE_STORE
      ? { value: ctx.env.SIGN_RATE_STORE, source: 'env SIGN_RATE_STORE' }
      : undefined;
  rows.push(
    store
      ? { name: 'rate_store', value: showRateStoreUrl(store.value), source: store.source }
      : fromConfig('rate_store'),
  );

  for (const [name, envName] of [
    ['journal_store', 'SIGN_JOURNAL_STORE'],
    ['journal_retention', 'SIGN_JOURNAL_RETENTION'],
  ] as const) {
    const fromEnv = ctx.env[envName];
    rows.push(
      fromEnv
        ? {
            name,
            value: name === 'journal_store' ? showRateStoreUrl(fromEnv) : fromEnv,
            source: `env ${envName}`,
          }
        : fromConfig(name),
    );
  }

  rows.push(fromConfig('webhook_scheme'));
  const secrets = (ctx.env.SIGN_WEBHOOK_SECRET ?? '')
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);
  for (const secret of secrets) ctx.output.protect(secret);
  rows.push(
    secrets.length > 0
      ? {
          name: 'webhook_secret',
          value: secrets.map((s) => maskKey(s)).join(', '),
          source: 'env SIGN_WEBHOOK_SECRET',
        }
      : { name: 'webhook_secret', value: null, source: 'none' },
  );
  rows.push(fromConfig('required_scopes'));
  rows.push(fromConfig('allow_unknown_fields'));

  for (const [op, path] of Object.entries(config.get('paths') ?? {}))
    rows.push({ name: `paths.${op}`, value: String(path), source: 'config' });
  for (const [field, values] of Object.entries(config.get('sandbox')?.accept ?? {}))
    rows.push({ name: `sandbox.accept.${field}`, value: show(values), source: 'config' });
  return rows;
}
