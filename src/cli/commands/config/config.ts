/** `sign-cli config get|set|unset|list|path`: settings in config.json (mode 0600); secrets always masked. */
import type { Command } from 'commander';
import { ExitCode, UsageError } from '../../../core/errors.js';
import { maskKey } from '../../../core/keys.js';
import type { CommandContext } from '../../context.js';
import { SETTINGS, settingSpec, type SettingSpec } from '../../settings.js';
import type { Action } from '../../action.js';
import type { Column } from '../../cell.js';

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

const SETTING_COLUMNS: readonly Column[] = [{ head: 'NAME' }, { head: 'VALUE', cut: true, min: 16 }, { head: 'SOURCE' }];
const PROFILE_COLUMNS: readonly Column[] = [{ head: 'PROFILE' }, { head: 'KEY' }, { head: 'ENV' }, { head: 'BASE URL', cut: true, min: 16 }, { head: 'EXPIRES' }];

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
    .description('print every setting as a run would use it now, where each value comes from (flag, env, profile, config, default), and the profiles; keys masked')
    .addHelpText('after', '\nExamples:\n  $ sign-cli config list\n  $ SIGN_BASE_URL=https://esign.example.com sign-cli config list --json')
    .action(
      action(async (ctx: CommandContext) => {
        const store = await ctx.loadConfig();
        const view = masked(store.store);
        const { effectiveSettings } = await import('../../effective-settings.js');
        const effective = await effectiveSettings(ctx);
        if (ctx.output.json) {
          // The stored file as before (keys masked), plus what applies now and why.
          ctx.output.jsonDocument({ ...view, effective });
          return ExitCode.ok;
        }
        const { out } = ctx.output;
        // The table code (and its width measuring) loads only when a table is drawn.
        const { printTable } = await import('../../table.js');
        printTable(ctx.output, SETTING_COLUMNS, effective.map((e) => [e.name, e.value ?? out.dim('(not set)'), e.source]));
        const profiles = Object.entries(view.profiles as Record<string, Record<string, unknown>>);
        if (profiles.length > 0) {
          ctx.output.line();
          printTable(
            ctx.output,
            PROFILE_COLUMNS,
            profiles.map(([name, p]) => [name === store.get('active_profile') ? `${name} *` : name, show(p.api_key), show(p.environment), show(p.base_url), show(p.expires)]),
          );
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
