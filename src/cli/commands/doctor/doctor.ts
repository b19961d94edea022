/** `sign-cli doctor`: checks and explains the setup, one line each. Exit 1 when any check fails. */
import { statSync } from 'node:fs';
import type { Command } from 'commander';
import { baseUrlEndsInApi, ENDPOINTS, joinUrl, resolveEndpoint } from '../../../core/endpoints.js';
import { describeNetworkError } from '../../../core/client/network-errors.js';
import { proxyFor, proxySettingsFrom, proxyVariable, showProxyUrl } from '../../../core/client/proxy.js';
import type { Dispatcher } from 'undici';
import { UnexpectedResponseError, parseErrorBody } from '../../../core/errors.js';
import { ExitCode } from '../../exit-codes.js';
import { expiryStatus, maskKey, maskedKeyMatches } from '../../../core/keys.js';
import { DEFAULT_TOLERANCE_SECONDS } from '../../../core/webhooks/webhooks.js';
import { VERSION } from '../../../core/version.js';
import type { CommandContext } from '../../context.js';
import type { Action } from '../../action.js';
import { untrusted } from '../../../core/envelope/text.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';

import { describe, type Check, type Mark } from './check.js';

const MIN_NODE = [20, 19] as const;
/** Clock skew beyond this is worth a warning; beyond the webhook tolerance it breaks verification. */
const SKEW_WARN_SECONDS = 5;

const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL|EPROTO|HOSTNAME|ALTNAME/;

export const doc: CommandDoc = {
  summary:
    'check Node, config, base URL, TLS, clock, the active key and the Redis stores; explain anything wrong',
  details: [
    'One line per check (`✓`, `!` warning, `✗` failure); exit 1 when any check fails (a broken config file or an unknown profile is a `✗` line too, never a usage error). `--json` prints an array of `{check, status, detail}`.',
  ],
  more: [
    [
      '  ✓ node       Node.js 24.11.1',
      '  ✓ config     /home/me/.config/sign-cli/config.json (mode 0600)',
      '  ! base url   https://esign.example.com/api (from profile prod) ends in /api, so requests go to /api/api/v1/envelopes, …',
      '  ✓ service    https://esign.example.com answers like the signing service in 31 ms (a made-up key gets HTTP 401 invalid_api_key)',
      '  ✓ clock      in step with the server',
      '  ✓ api key    sk_live_****abcd from profile prod, environment live',
      '  ! expiry     expires 2026-12-01 (10 days left)',
      "  ✓ rate store rediss://:****@redis.example.com:6380 (from SIGN_RATE_STORE): Redis 7.0.15, 4 ms; this key's budget: 212 requests in the last minute, 3 runs sharing it now",
    ].join('\n'),
    "Whether the service is there is judged by what it answers, not by any HTTP status: the service check sends a made-up key to the key listing; the signing service answers 401 (or 403) with a JSON error, while any other web server at a wrong base URL answers something else (`✗ service  http://… answers, but not like the signing service: … HTTP 404 (text/html)`); a host that does not answer at all is `✗ reachable`. The key is accepted only if the service returns a real key list. The clock check compares with the server's Date header: webhook signatures older than the 300 s tolerance are rejected, so a skewed clock breaks verification. The rate store line appears only when one is configured; one that cannot be reached is a `✗` (each run would then pace alone). So does the journal store line (`--journal-store`): `✗` when it cannot be reached (a create would stop before sending), `!` when it does not persist (`appendonly no`: a restart loses entries, and runs after it could send those inputs again).",
  ],
  examples: ['sign-cli doctor', 'sign-cli doctor --json'],
};

export function registerDoctor(program: Command, action: Action): void {
  defineCommand(program, 'doctor', doc).action(action(doctorCommand));
}

function nodeCheck(): Check {
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  const ok = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
  return {
    check: 'node',
    status: ok ? 'ok' : 'fail',
    detail: `Node.js ${process.versions.node}${ok ? '' : `; sign-cli ${VERSION} needs ${MIN_NODE.join('.')} or newer`}`,
  };
}

function configCheck(path: string): Check {
  try {
    const mode = statSync(path).mode & 0o777;
    if (mode & 0o077) {
      return {
        check: 'config',
        status: 'fail',
        detail: `${path} has mode ${mode.toString(8).padStart(4, '0')}: others can read your keys; run chmod 600 ${path}`,
      };
    }
    return { check: 'config', status: 'ok', detail: `${path} (mode 0600)` };
  } catch {
    return {
      check: 'config',
      status: 'ok',
      detail: `no config file yet (${path}); keys come from the environment or flags`,
    };
  }
}

export async function doctorCommand(ctx: CommandContext): Promise<number> {
  const checks: Check[] = [nodeCheck()];
  // A broken config or an unknown profile is what doctor is for: a ✗ line, not a usage error.
  try {
    checks.push(configCheck((await ctx.loadConfig()).path));
  } catch (error) {
    checks.push({ check: 'config', status: 'fail', detail: describe(error) });
    return render(ctx, checks);
  }
  let connection;
  try {
    connection = await ctx.resolveConnection();
  } catch (error) {
    checks.push({ check: 'profile', status: 'fail', detail: describe(error) });
    return render(ctx, checks);
  }
  const { baseUrl } = connection;
  checks.push(
    baseUrlEndsInApi(baseUrl)
      ? {
          check: 'base url',
          status: 'warn',
          detail: `${baseUrl} (from ${connection.sources.baseUrl}) ends in /api, so requests go to ${new URL(joinUrl(baseUrl, ENDPOINTS.createEnvelope.path)).pathname}, with /api twice (the service's paths are appended as they are: docs/service.md); drop the /api unless the service really lives there`,
        }
      : { check: 'base url', status: 'ok', detail: `${baseUrl} (from ${connection.sources.baseUrl})` },
  );
  const url = new URL(baseUrl);
  if (url.protocol === 'http:' && !['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) {
    checks.push({
      check: 'tls',
      status: 'warn',
      detail: 'plain http to a remote host: the API key travels unencrypted',
    });
  }

  // Through the proxy the commands use, if one applies: doctor reaches the service as they do.
  let proxySettings;
  try {
    proxySettings = proxySettingsFrom(ctx.env);
  } catch (error) {
    checks.push({ check: 'proxy', status: 'fail', detail: describe(error) });
    return render(ctx, checks);
  }
  const proxy = proxyFor(baseUrl, proxySettings);
  if (proxy)
    checks.push({
      check: 'proxy',
      status: 'ok',
      detail: `${showProxyUrl(proxy)} (from ${proxyVariable(baseUrl)}); the checks below go through it`,
    });
  else if (proxySettings.httpProxy || proxySettings.httpsProxy)
    checks.push({
      check: 'proxy',
      status: 'ok',
      detail: `none for ${url.host} (loopback or NO_PROXY): direct`,
    });
  const [{ request }, { createDispatcher }] = await Promise.all([
    import('undici'),
    import('../../../core/client/proxy-dispatcher.js'),
  ]);
  const dispatcher = createDispatcher(proxySettings, { connectMs: 5_000, headersMs: 5_000, bodyMs: 5_000 });

  // One unauthenticated request: reachable? TLS valid? what time does the server say it is?
  let answeredIn: number | undefined;
  const started = ctx.io.clock.now();
  try {
    const response = await request(baseUrl, {
      method: 'GET',
      headersTimeout: 5_000,
      bodyTimeout: 5_000,
      signal: ctx.signal,
      dispatcher,
    });
    await response.body.dump();
    const elapsed = ctx.io.clock.now() - started;
    // Any web server answers something: whether this is the signing service is the next check's
    // verdict (what a made-up key gets), not the status of `GET /`.
    answeredIn = elapsed;
    if (url.protocol === 'https:') checks.push({ check: 'tls', status: 'ok', detail: 'certificate valid' });
    const date = response.headers.date;
    const serverTime = typeof date === 'string' ? Date.parse(date) : Number.NaN;
    if (Number.isNaN(serverTime)) {
      checks.push({
        check: 'clock',
        status: 'warn',
        detail: 'the server sent no Date header; clock skew unknown',
      });
    } else {
      // The Date header has whole seconds; allow for that and the round trip.
      const skew = Math.round((started + elapsed / 2 - serverTime) / 1000);
      const abs = Math.abs(skew);
      const status: Mark = abs > DEFAULT_TOLERANCE_SECONDS ? 'fail' : abs > SKEW_WARN_SECONDS ? 'warn' : 'ok';
      checks.push({
        check: 'clock',
        status,
        detail: `${abs <= 1 ? 'in step with the server' : `${abs} s ${skew > 0 ? 'ahead of' : 'behind'} the server`}${status === 'ok' ? '' : `; webhook signatures older than ${DEFAULT_TOLERANCE_SECONDS} s are rejected, so fix the clock (NTP)`}`,
      });
    }
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    const tls = TLS_CODES.test(code) || TLS_CODES.test((error as Error).message);
    checks.push({
      check: tls ? 'tls' : 'reachable',
      status: 'fail',
      detail: tls
        ? describeNetworkError(code || undefined, (error as Error).message, baseUrl)
        : `cannot reach ${url.origin}${proxy ? ` through the proxy ${showProxyUrl(proxy)}` : ''}: ${describeNetworkError(code || undefined, (error as Error).message, baseUrl)}${url.hostname === '127.0.0.1' ? '; start the local sandbox with `sign-cli sandbox`' : ''}`,
    });
  }

  const unreachable = checks.some(
    (c) => (c.check === 'reachable' || c.check === 'tls') && c.status === 'fail',
  );
  if (!unreachable) {
    const service = await serviceCheck(ctx, baseUrl, answeredIn, dispatcher);
    // Before the clock line: what answers comes first.
    checks.splice(
      checks.findIndex((c) => c.check === 'clock'),
      0,
      service,
    );
  }
  await dispatcher.close();
  checks.push(...(await keyChecks(ctx)));
  const { rateStoreCheck, journalStoreCheck } = await import('./store-checks.js');
  const store = await rateStoreCheck(ctx, baseUrl, connection.apiKey);
  if (store) checks.push(store);
  const journal = await journalStoreCheck(ctx);
  if (journal) checks.push(journal);
  return render(ctx, checks);
}

/** One line per check (or JSON); exit 1 when any failed. */
function render(ctx: CommandContext, checks: Check[]): number {
  const { output } = ctx;
  if (output.json) output.jsonDocument(checks);
  else {
    const marks: Record<Mark, string> = {
      ok: output.out.green('✓'),
      warn: output.out.yellow('!'),
      fail: output.out.red('✗'),
    };
    // Details line up under the longest name (the store lines' are the longest).
    const width = Math.max(10, ...checks.map((c) => c.check.length));
    // A detail may quote the service (its error message): escaped before the mark is coloured.
    for (const check of checks)
      output.line(`${marks[check.status]} ${check.check.padEnd(width)} ${untrusted(check.detail)}`);
  }
  return checks.some((c) => c.status === 'fail') ? ExitCode.failed : ExitCode.ok;
}

/** A key no service would accept: the answer to it shows whether the base URL is the signing service. */
const PROBE_KEY = 'sk_test_signclidoctorprobe0000';

/**
 * Any web server answers something; the signing service answers a made-up key
 * with 401 (or 403) and a JSON error body. Anything else (a 2xx, an HTML page)
 * means the base URL points somewhere else, and every command would fail there.
 */
async function serviceCheck(
  ctx: CommandContext,
  baseUrl: string,
  answeredIn: number | undefined,
  dispatcher: Dispatcher,
): Promise<Check> {
  const { request } = await import('undici');
  const url = joinUrl(baseUrl, resolveEndpoint('listApiKeys', await ctx.pathOverrides()).path);
  try {
    const response = await request(url, {
      method: 'GET',
      headers: { accept: 'application/json', authorization: `Bearer ${PROBE_KEY}` },
      headersTimeout: 5_000,
      bodyTimeout: 5_000,
      signal: ctx.signal,
      dispatcher,
    });
    const text = await response.body.text();
    const type = String(response.headers['content-type'] ?? 'no content type');
    const info = parseErrorBody(text, type);
    const json = /json/i.test(type);
    if ((response.statusCode === 401 || response.statusCode === 403) && json && (info.code || info.message)) {
      const time = answeredIn === undefined ? '' : ` in ${answeredIn} ms`;
      return {
        check: 'service',
        status: 'ok',
        detail: `${new URL(baseUrl).origin} answers like the signing service${time} (a made-up key gets HTTP ${response.statusCode} ${info.code ?? info.message})`,
      };
    }
    return {
      check: 'service',
      status: 'fail',
      detail: `${new URL(baseUrl).origin} answers, but not like the signing service: ${url} answered a made-up key with HTTP ${response.statusCode} (${type}), not a 401 with a JSON error; check --base-url, SIGN_BASE_URL or the profile's base URL`,
    };
  } catch (error) {
    return { check: 'service', status: 'fail', detail: `no answer from ${url}: ${(error as Error).message}` };
  }
}

async function keyChecks(ctx: CommandContext): Promise<Check[]> {
  const connection = await ctx.resolveConnection();
  if (!connection.apiKey && connection.keyProblem) {
    return [
      {
        check: 'api key',
        status: 'fail',
        detail: `${connection.keyProblem}: unlock the keychain, set SIGN_API_KEY, or keep the key in the config file: sign-cli keys add ${connection.profileName} --stdin --force --insecure-storage`,
      },
    ];
  }
  if (!connection.apiKey) {
    return [
      {
        check: 'api key',
        status: 'fail',
        detail: 'no API key: set SIGN_API_KEY, pass --api-key-file, or `sign-cli keys add <name>`',
      },
    ];
  }
  const environment = ctx.environmentOf(connection);
  // Where a profile's key is kept: the keychain says so in its source; a key in the file says it here.
  const profile = connection.keyProfile;
  const inFile =
    profile?.api_key === undefined
      ? ''
      : profile.insecure_storage
        ? ' (in the config file, by --insecure-storage)'
        : ` (in the config file; \`sign-cli keys add ${connection.profileName}\` again moves it into the OS keychain)`;
  const checks: Check[] = [
    {
      check: 'api key',
      status: 'ok',
      detail: `${maskKey(connection.apiKey)} from ${connection.sources.apiKey}${inFile}, environment ${environment ?? 'unknown (the key names none)'}`,
    },
  ];
  let expires = connection.keyProfile?.expires ?? null;
  let scopes = connection.keyProfile?.scopes ?? null;
  let refused = false;
  try {
    // The rate store has a check of its own (rateStoreCheck), without the warning a run would print.
    const client = await ctx.client({ retry: { maxRetries: 0 }, sharedBudget: undefined });
    try {
      const listed = await client.listApiKeys(ctx.signal);
      const mine = listed.find((k) => maskedKeyMatches(k.key, connection.apiKey!));
      expires = mine?.expires ?? expires;
      scopes = mine?.scopes ?? scopes;
      checks.push({
        check: 'accepted',
        status: 'ok',
        detail: `the service accepts ${maskKey(connection.apiKey)}`,
      });
    } finally {
      await client.close();
    }
  } catch (error) {
    const status = (error as { status?: number }).status;
    refused = status === 401 || status === 403;
    checks.push({
      check: 'accepted',
      status: status === 401 || status === 403 || error instanceof UnexpectedResponseError ? 'fail' : 'warn',
      detail:
        status === 401
          ? `the service refuses the key: ${(error as Error).message}`
          : `could not ask the service about the key: ${(error as Error).message}`,
    });
  }
  // A key the service refuses is not "fine until its expiry date": stored metadata says nothing then.
  if (refused) {
    checks.push({
      check: 'expiry',
      status: 'fail',
      detail: `not checked: the service refused the key${expires ? ` (stored expiry ${expires})` : ''}`,
    });
    return checks;
  }
  const { status, daysLeft } = expiryStatus(expires, new Date(ctx.io.clock.now()));
  checks.push({
    check: 'expiry',
    status: status === 'expired' ? 'fail' : status === 'expiring' ? 'warn' : 'ok',
    detail:
      status === 'unknown'
        ? 'expiry unknown (add it with `keys add --expires`)'
        : status === 'expired'
          ? `expired on ${expires}`
          : `expires ${expires} (${daysLeft} day${daysLeft === 1 ? '' : 's'} left)`,
  });
  const required = connection.keyProfile?.requires ?? (await ctx.setting<string[]>('required_scopes')) ?? [];
  if (scopes === null) checks.push({ check: 'scopes', status: 'warn', detail: 'scopes unknown' });
  else {
    const missing = required.filter((s) => !scopes.includes(s));
    const cannot = Object.values(ENDPOINTS)
      .filter((e) => e.scope && !scopes.includes(e.scope))
      .map((e) => `${e.label} (${e.scope})`);
    checks.push({
      check: 'scopes',
      status: missing.length ? 'fail' : cannot.length ? 'warn' : 'ok',
      detail: `${scopes.join(' ') || 'none'}${missing.length ? `; missing required ${missing.join(', ')}` : ''}${cannot.length ? `; cannot ${cannot.join(', ')}` : ''}`,
    });
  }
  return checks;
}
