/** `sign-cli config get|set|unset|list|path`: settings in config.json (mode 0600); secrets always masked. */
import type { Command } from 'commander';
import { ExitCode, UsageError } from '../../../core/errors.js';
import { maskKey } from '../../../core/keys.js';
import type { CommandContext } from '../../context.js';
import { SETTINGS, settingSpec, type SettingSpec } from '../../settings.js';
import type { Action } from '../../run.js';

function show(value: unknown, spec?: SettingSpec): string {
  if (value === undefined) return '';
  if (spec?.show) return spec.show(value);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A setting's value as it may be shown (a password in the rate store URL masked). */
function shown(value: unknown, spec: SettingSpec): unknown {
  return value !== undefined && spec.show ? spec.show(value) : value;
}

/** The config as `config list` shows it: every key masked. */
function masked(store: Record<string, unknown>): Record<string, unknown> {
  const profiles = (store.profiles ?? {}) as Record<string, Record<string, unknown>>;
  const settings = (store.settings ?? {}) as Record<string, unknown>;
  return {
    ...store,
    ...(store.settings === undefined
      ? {}
      : { settings: Object.fromEntries(Object.entries(settings).map(([name, value]) => [name, SETTINGS[name] ? shown(value, SETTINGS[name]) : value])) }),
    profiles: Object.fromEntries(
      Object.entries(profiles).map(([name, p]) => [name, { ...p, ...(typeof p.api_key === 'string' ? { api_key: maskKey(p.api_key) } : {}) }]),
    ),
  };
}

export function registerConfig(program: Command, action: Action): void {
  const config = program.command('config').description('read and change settings (base URL, default profile, rate, timeouts, endpoint paths, webhook scheme)');

  config
    .command('get')
    .description('print one setting')
    .argument('<name>', `${Object.keys(SETTINGS).join(', ')}, paths.<operation>, sandbox.accept.<field>`)
    .addHelpText('after', '\nExample:\n  $ sign-cli config get rate')
    .action(
      action(async (ctx, _flags, [name]) => {
        const spec = settingSpec(name!);
        const stored = (await ctx.loadConfig()).get(spec.path);
        // Unset: the value that applies, like `git config --default` / `gh config get`.
        const value = stored ?? spec.default;
        if (ctx.output.json) ctx.output.jsonDocument({ name, value: shown(value, spec) ?? null, source: stored !== undefined ? 'config' : value !== undefined ? 'default' : null });
        else if (value !== undefined) ctx.output.line(show(value, spec));
        return value === undefined ? ExitCode.failed : ExitCode.ok;
      }),
    );

  config
    .command('set')
    .description('change one setting (checked before it is stored)')
    .argument('<name>', 'setting name')
    .argument('<value>', 'new value')
    .addHelpText(
      'after',
      `
Examples:
  $ sign-cli config set base_url https://esign.example.com
  $ sign-cli config set rate 300
  $ sign-cli config set paths.getAuditTrail /api/v1/envelopes/{id}/audit
  $ sign-cli config set required_scopes envelopes:write,audit:read`,
    )
    .action(
      action(async (ctx, _flags, [name, value]) => {
        const spec = settingSpec(name!);
        const store = await ctx.loadConfig();
        if (name === 'default_profile' && !store.get('profiles')?.[value!]) {
          throw new UsageError(`no profile named ${JSON.stringify(value)}`, { hint: 'add it first with `sign-cli keys add`' });
        }
        const parsed = spec.parse(value!);
        store.set(spec.path, parsed);
        ctx.output.success(`${name} = ${show(parsed, spec)}`);
        return ExitCode.ok;
      }),
    );

  config
    .command('unset')
    .description('remove one setting, back to its default')
    .argument('<name>', 'setting name')
    .addHelpText('after', '\nExample:\n  $ sign-cli config unset rate')
    .action(
      action(async (ctx, _flags, [name]) => {
        (await ctx.loadConfig()).delete(settingSpec(name!).path);
        ctx.output.success(`${name} unset`);
        return ExitCode.ok;
      }),
    );

  config
    .command('list')
    .description('print every setting and profile, keys masked')
    .addHelpText('after', '\nExample:\n  $ sign-cli config list --json')
    .action(
      action(async (ctx: CommandContext) => {
        const store = await ctx.loadConfig();
        const view = masked(store.store);
        if (ctx.output.json) {
          ctx.output.jsonDocument(view);
          return ExitCode.ok;
        }
        for (const [name, spec] of Object.entries(SETTINGS)) {
          const value = store.get(spec.path);
          ctx.output.line(`${name.padEnd(16)} ${value === undefined ? ctx.output.out.dim(spec.default === undefined ? '(not set)' : `${show(spec.default)} (default)`) : show(value, spec)}`);
        }
        for (const [op, path] of Object.entries(store.get('paths') ?? {})) ctx.output.line(`${`paths.${op}`.padEnd(16)} ${path}`);
        for (const [field, values] of Object.entries(store.get('sandbox')?.accept ?? {})) ctx.output.line(`${`sandbox.accept.${field}`.padEnd(16)} ${show(values)}`);
        for (const [name, profile] of Object.entries(view.profiles as Record<string, Record<string, unknown>>)) {
          const details = Object.entries(profile).map(([k, v]) => `${k}=${show(v)}`).join(' ');
          ctx.output.line(`profile ${name}${name === store.get('active_profile') ? ' (active)' : ''}: ${details}`);
        }
        return ExitCode.ok;
      }),
    );

  config
    .command('path')
    .description('print where the config file is')
    .action(
      action(async (ctx) => {
        const { path } = await ctx.loadConfig();
        if (ctx.output.json) ctx.output.jsonDocument({ path });
        else ctx.output.line(path);
        return ExitCode.ok;
      }),
    );
}
