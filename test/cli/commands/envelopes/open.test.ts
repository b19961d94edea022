/**
 * `envelopes open`, in process against an in-process sandbox in a manual
 * journey: the link printed alone, the signer chosen by turn, order, e-mail
 * or phone, --json, a service that is not the sandbox, another account's
 * envelope; the browser decision as a table, and the opener (injected: no
 * program is ever started) called with the link only where it should be.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserFor, type BrowserContext, type BrowserLaunch } from '../../../../src/cli/process/browser.js';
import { example } from '../../../helpers/envelopes.js';
import { json, notFoundHtml, startFakeService, type FakeService } from '../../../helpers/fake-service.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { unwrapped } from '../../../helpers/terminal-fit.js';

let sandbox: TestSandbox;
let id: string;
let links: { signers: { name: string; link: string; turn: boolean }[] };
const LINK = /^http:\/\/127\.0\.0\.1:\d+\/s\/[\w-]{32}$/;

async function create(body: Record<string, unknown>): Promise<string> {
  const result = await runCommand(['envelopes', 'create', '-f', '-', '--new', '--query', 'envelope.id'], {
    env: sandbox.env,
    input: JSON.stringify(body),
  });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim();
}

beforeAll(async () => {
  sandbox = await startTestSandbox({ journey: 'manual' });
  // The example: Layla (order 1, e-mail) then Omar (order 2, WhatsApp), in order.
  id = await create(example());
  // Layla's turn comes once she is notified, half a second of sandbox time after the create.
  const deadline = Date.now() + 60_000;
  do links = await sandbox.control(`/_sandbox/envelopes/${id}/links`);
  while (!links.signers.some((s) => s.turn) && Date.now() < deadline);
});
afterAll(async () => {
  await sandbox?.stop();
});

/** Records what would have been started, and says it started (or not). */
function opener(result = true) {
  const calls: BrowserLaunch[] = [];
  return {
    calls,
    openBrowser: (launch: BrowserLaunch) => {
      calls.push(launch);
      return Promise.resolve(result);
    },
  };
}

describe('envelopes open', () => {
  it('prints the link of the signer whose turn it is, alone on its line (for $(…))', async () => {
    const result = await runCommand(['envelopes', 'open', id], { env: sandbox.env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\n$/);
    const link = result.stdout.trim();
    expect(link).toMatch(LINK);
    const layla = links.signers.find((s) => s.name === 'Layla Haddad')!;
    expect(layla.turn).toBe(true);
    expect(link).toBe(layla.link);
    // A pipe: no browser, and nothing said about one.
    expect(result.stderr).toBe('');
  });

  it('--signer picks by order, e-mail (any case) or phone (any spacing)', async () => {
    const omar = links.signers.find((s) => s.name === 'Omar Khalil')!.link;
    const layla = links.signers.find((s) => s.name === 'Layla Haddad')!.link;
    for (const [signer, link] of [
      ['2', omar],
      ['1', layla],
      ['Layla.Haddad@EXAMPLE.com', layla],
      ['+971 50 123 4567', omar],
      ['+971501234567', omar],
    ] as const) {
      const result = await runCommand(['envelopes', 'open', id, '--signer', signer], { env: sandbox.env });
      expect(result.code, `${signer}: ${result.stderr}`).toBe(0);
      expect(result.stdout.trim(), signer).toBe(link);
    }
  });

  it('a --signer that fits none is exit 2, naming the signers there are', async () => {
    for (const signer of ['3', 'nobody@example.com', '+971500000000']) {
      const result = await runCommand(['envelopes', 'open', id, '--signer', signer], { env: sandbox.env });
      expect(result.code, signer).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`${id} has no signer ${signer}`);
      expect(result.stderr).toContain(
        '1. Layla Haddad <layla.haddad@example.com>; 2. Omar Khalil <+971501234567>',
      );
    }
  });

  it('--json: the envelope, the signer, the link and whether it was opened', async () => {
    const result = await runCommand(['envelopes', 'open', id, '--signer', '2', '--json'], {
      env: sandbox.env,
    });
    expect(result.code, result.stderr).toBe(0);
    const shown = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(shown).toEqual({
      envelope_id: id,
      signer: {
        id: expect.stringMatching(/^sgn_/),
        name: 'Omar Khalil',
        order: 2,
        status: expect.any(String),
      },
      link: expect.stringMatching(LINK),
      opened: false,
    });
    const link = await runCommand(['envelopes', 'open', id, '--query', 'link'], { env: sandbox.env });
    expect(link.stdout.trim()).toMatch(LINK);
  });

  it('an envelope of another account or environment is not found (exit 1)', async () => {
    const live = await sandbox.mintKey({ environment: 'live' });
    const result = await runCommand(['envelopes', 'open', id], {
      env: { ...sandbox.env, SIGN_API_KEY: live },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('HTTP 404 envelope_not_found');
    expect(result.stdout).toBe('');
  });

  it('on a terminal with a browser: opens the link with the opener, and says whose page it is', async () => {
    const browser = opener();
    const result = await runCommand(['envelopes', 'open', id, '--signer', '2'], {
      env: { ...sandbox.env, BROWSER: 'mybrowser --new-window' },
      tty: true,
      openBrowser: browser.openBrowser,
    });
    expect(result.code, result.stderr).toBe(0);
    const link = result.stdout.trim();
    expect(browser.calls).toEqual([{ command: 'mybrowser', args: ['--new-window', link], attached: true }]);
    expect(result.stderr).toContain(
      'opened the signing page of 2. Omar Khalil <+971501234567> in the browser',
    );
    // --json says so.
    const asJson = await runCommand(['envelopes', 'open', id, '--signer', '2', '--json'], {
      env: { ...sandbox.env, BROWSER: 'mybrowser' },
      tty: true,
      openBrowser: opener().openBrowser,
    });
    expect(JSON.parse(asJson.stdout)).toMatchObject({ opened: true, link });
  });

  it.runIf(process.platform === 'linux')('on Linux: xdg-open only where there is a display', async () => {
    const withDisplay = opener();
    const shown = await runCommand(['envelopes', 'open', id], {
      env: { ...sandbox.env, DISPLAY: ':0' },
      tty: true,
      openBrowser: withDisplay.openBrowser,
    });
    expect(withDisplay.calls).toEqual([
      { command: 'xdg-open', args: [shown.stdout.trim()], attached: false },
    ]);
    const headless = opener();
    const result = await runCommand(['envelopes', 'open', id], {
      env: sandbox.env,
      tty: true,
      openBrowser: headless.openBrowser,
    });
    expect(result.code).toBe(0);
    expect(headless.calls).toEqual([]);
    expect(result.stdout.trim()).toMatch(LINK);
    expect(unwrapped(result.stderr)).toContain('no display to open a browser on');
    expect(unwrapped(result.stderr)).toContain('printed the link instead');
  });

  it('never opens in CI, in a pipe or with --no-browser; a browser that fails fails nothing', async () => {
    const env = { ...sandbox.env, BROWSER: 'mybrowser' };
    for (const [extra, tty, args] of [
      [{ CI: 'true' }, true, []],
      [{}, false, []],
      [{}, true, ['--no-browser']],
    ] as const) {
      const browser = opener();
      const result = await runCommand(['envelopes', 'open', id, ...args], {
        env: { ...env, ...extra },
        tty,
        openBrowser: browser.openBrowser,
      });
      expect(result.code).toBe(0);
      expect(browser.calls).toEqual([]);
      expect(result.stdout.trim()).toMatch(LINK);
      expect(result.stderr).toBe('');
    }
    const failing = opener(false);
    const result = await runCommand(['envelopes', 'open', id], {
      env,
      tty: true,
      openBrowser: failing.openBrowser,
    });
    expect(result.code).toBe(0);
    expect(failing.calls).toHaveLength(1);
    expect(result.stdout.trim()).toMatch(LINK);
    expect(result.stderr).toContain('could not open a browser (mybrowser): printed the link instead');
  });
});

describe('envelopes open against answers no sandbox of ours gives', () => {
  let service: FakeService;
  let answer: (path: string) => { status: number; body: unknown } | undefined;
  beforeAll(async () => {
    service = await startFakeService((request, response) => {
      const given = answer(request.url ?? '');
      if (given) json(response, given.status, given.body);
      else notFoundHtml(request, response);
    });
  });
  afterAll(async () => {
    await service?.close();
  });
  const env = () => ({ SIGN_BASE_URL: service.baseUrl, SIGN_API_KEY: 'sk_test_fake_key_for_open' });
  const signer = (fields: Record<string, unknown>) => ({
    id: 'sgn_1',
    name: 'Layla Haddad',
    order: 1,
    channel: 'email',
    email: 'layla@example.com',
    status: 'notified',
    link: 'http://127.0.0.1:1/s/abcdefghijklmnopqrstuvwxyz012345',
    turn: false,
    ...fields,
  });
  const links = (signers: unknown[]) => ({
    status: 200,
    body: { envelope_id: 'env_fake', status: 'sent', journey: 'manual', signers },
  });

  it('a service that is not the sandbox (404, HTML): exit 1, signing links exist only in the sandbox', async () => {
    answer = () => undefined;
    const result = await runCommand(['envelopes', 'open', 'env_x'], { env: env() });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('GET /_sandbox/envelopes/env_x/links: HTTP 404');
    expect(result.stderr).toContain(
      'has no signing pages: they exist only in the sandbox (`sign-cli sandbox`); the service sends each signer their link itself',
    );
  });

  it('no turn: the only signer; several, exit 2 naming them, every name escaped to one line', async () => {
    answer = () => links([signer({})]);
    const only = await runCommand(['envelopes', 'open', 'env_fake'], { env: env() });
    expect(only.code).toBe(0);
    expect(only.stdout.trim()).toBe('http://127.0.0.1:1/s/abcdefghijklmnopqrstuvwxyz012345');
    answer = () =>
      links([
        signer({ name: 'Evil\u001b[2J\u001b]0;pwned\u0007\nerror: fake line\u202e', email: 'e@x.com' }),
        signer({ id: 'sgn_2', name: 'Omar', order: 2, email: undefined, phone: '+971501234567' }),
      ]);
    const several = await runCommand(['envelopes', 'open', 'env_fake'], { env: env() });
    expect(several.code).toBe(2);
    expect(several.stderr).not.toContain('\u001b');
    expect(several.stderr).not.toContain('\u202e');
    expect(several.stderr.trim().split('\n')).toHaveLength(1);
    expect(several.stderr).toContain(
      'no signer of env_fake can act now: say whose page to open with --signer',
    );
    expect(several.stderr).toContain(
      '1. Evil\\u001b[2J\\u001b]0;pwned\\u0007\\nerror: fake line\\u202e <e@x.com>; 2. Omar <+971501234567>',
    );
  });

  it('the first signer whose turn it is; orders absent: --signer n is the n-th', async () => {
    answer = () =>
      links([
        signer({ id: 'sgn_a', order: null, link: 'http://127.0.0.1:1/s/a' }),
        signer({ id: 'sgn_b', order: null, turn: true, link: 'http://127.0.0.1:1/s/b' }),
        signer({ id: 'sgn_c', order: null, turn: true, link: 'http://127.0.0.1:1/s/c' }),
      ]);
    expect((await runCommand(['envelopes', 'open', 'env_fake'], { env: env() })).stdout).toBe(
      'http://127.0.0.1:1/s/b\n',
    );
    expect(
      (await runCommand(['envelopes', 'open', 'env_fake', '--signer', '3'], { env: env() })).stdout,
    ).toBe('http://127.0.0.1:1/s/c\n');
  });

  it('a link that is not http(s) is never printed nor opened (exit 1)', async () => {
    answer = () => links([signer({ turn: true, link: 'file:///etc/passwd' })]);
    const browser = opener();
    const result = await runCommand(['envelopes', 'open', 'env_fake'], {
      env: { ...env(), BROWSER: 'mybrowser' },
      tty: true,
      openBrowser: browser.openBrowser,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(browser.calls).toEqual([]);
    expect(unwrapped(result.stderr)).toContain('has no http(s) link');
  });
});

describe('the browser decision', () => {
  const url = 'http://127.0.0.1:4010/s/abc';
  const at = (context: Partial<BrowserContext>): BrowserContext => ({
    env: {},
    platform: 'linux',
    stdoutIsTTY: true,
    wanted: true,
    ...context,
  });
  it.each([
    [
      'linux with DISPLAY',
      at({ env: { DISPLAY: ':0' } }),
      { command: 'xdg-open', args: [url], attached: false },
    ],
    [
      'linux with Wayland',
      at({ env: { WAYLAND_DISPLAY: 'wayland-0' } }),
      { command: 'xdg-open', args: [url] },
    ],
    ['linux without a display', at({}), 'no_display'],
    ['freebsd without a display', at({ platform: 'freebsd' }), 'no_display'],
    ['macOS', at({ platform: 'darwin' }), { command: 'open', args: [url], attached: false }],
    [
      'Windows',
      at({ platform: 'win32' }),
      { command: 'cmd', args: ['/d', '/s', '/c', `"start "" "${url}""`], verbatim: true },
    ],
    ['BROWSER', at({ env: { BROWSER: 'firefox' } }), { command: 'firefox', args: [url], attached: true }],
    [
      'BROWSER with %s',
      at({ env: { BROWSER: 'w3m -o x=1 %s --y', DISPLAY: ':0' } }),
      { command: 'w3m', args: ['-o', 'x=1', url, '--y'] },
    ],
    ['BROWSER without a display', at({ env: { BROWSER: 'lynx' } }), { command: 'lynx', args: [url] }],
    ['BROWSER on macOS', at({ platform: 'darwin', env: { BROWSER: 'firefox' } }), { command: 'firefox' }],
    ['an empty BROWSER', at({ env: { BROWSER: ' ', DISPLAY: ':0' } }), { command: 'xdg-open' }],
    ['CI', at({ env: { CI: 'true', DISPLAY: ':0', BROWSER: 'firefox' } }), 'ci'],
    ['CI=false', at({ env: { CI: 'false', DISPLAY: ':0' } }), { command: 'xdg-open' }],
    ['CI=0 on macOS', at({ platform: 'darwin', env: { CI: '0' } }), { command: 'open' }],
    ['stdout not a terminal', at({ stdoutIsTTY: false, env: { BROWSER: 'firefox' } }), 'not_a_terminal'],
    ['--no-browser', at({ wanted: false, env: { DISPLAY: ':0' } }), 'not_asked'],
  ] as const)('%s', (_name, context, expected) => {
    const decision = browserFor(url, context);
    if (typeof expected === 'string') expect(decision).toEqual({ none: expected });
    else expect(decision).toMatchObject({ launch: expected });
  });
});
