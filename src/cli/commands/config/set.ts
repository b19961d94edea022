/** `sign-cli config set <name> <value>`: one setting, checked before it is stored. */
import { Argument, type Command } from 'commander';
import { UsageError } from '../../../core/errors.js';
import { ExitCode } from '../../exit-codes.js';
import type { Action } from '../../action.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import { completes } from '../../completion/hints.js';
import { settingCandidates } from './setting-candidates.js';
import type { CommandContext } from '../../context.js';
import { settingSpec } from '../../config/settings.js';
import { show } from './values.js';

export const doc: CommandDoc = {
  summary: 'change one setting (checked before it is stored)',
  details: [
    'A bad value exits 2 and nothing is stored. Flags and environment variables win over these settings (`sign-cli config list` shows which applies).',
    [
      '- `base_url`: the base URL when no flag, variable or profile gives one.',
      '- `default_profile`: the active profile (as `keys use`).',
      '- `rate`: requests per minute for `envelopes create` (default 600).',
      '- `timeout`, `retries`: seconds per attempt (30) and retries per request (5).',
      '- `webhook_scheme`: the default `--scheme` of the webhooks commands (`standard`).',
      '- `required_scopes`: scopes every key must have (comma-separated), for `keys check` and `doctor`.',
      '- `allow_unknown_fields`: `true` sends envelope fields sign-cli does not know, with a warning, instead of refusing them.',
      '- `rate_store`: the Redis URL of a rate budget shared by every run with the same key; a password in it is shown as `****`.',
      '- `paths.<operation>`: an endpoint path the service has elsewhere (createEnvelope, getEnvelope, downloadSignedCopy, getAuditTrail, listEnvelopes, voidEnvelope, listApiKeys, listDeliveries, resendEvent).',
      '- `sandbox.accept.<field>`: values of a field the local sandbox accepts beyond its own list.',
    ].join('\n'),
  ],
  examples: [
    'sign-cli config set rate 300',
    'sign-cli config set required_scopes envelopes:write,audit:read',
    'sign-cli config set paths.getAuditTrail "/api/v1/envelopes/{id}/audit"   # a service whose audit path differs',
    'sign-cli config set base_url https://esign.example.com                  # used when SIGN_BASE_URL is not set',
  ],
};

export function registerSet(config: Command, action: Action): void {
  defineCommand(config, 'set', doc)
    .addArgument(
      completes(new Argument('<name>', 'setting name'), { kind: 'values', values: settingCandidates() }),
    )
    .argument('<value>', 'new value')
    .action(action(setCommand));
}

export async function setCommand(
  ctx: CommandContext,
  _flags: unknown,
  [name, value]: string[],
): Promise<number> {
  const spec = settingSpec(name!);
  const store = await ctx.loadConfig();
  if (name === 'default_profile' && !store.get('profiles')?.[value!]) {
    throw new UsageError(`no profile named ${JSON.stringify(value)}`, {
      hint: 'add it first with `sign-cli keys add`',
    });
  }
  const parsed = spec.parse(value!);
  await store.set(spec.path, parsed);
  ctx.output.success(`${name} = ${show(parsed, spec)}`);
  return ExitCode.ok;
}
