/**
 * The interactive create, driven as a person would: the built binary in a
 * real terminal (tmux), keys sent one answer at a time, the screen read back.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, tempDir } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';
import { sourcedEnv } from '../helpers/terminal-env.js';
import { signWhenTurn } from '../helpers/ceremony.js';
import { startGateProxy } from '../helpers/gate-proxy.js';

const SESSION = `sign-cli-test-${process.pid}`;
// A tmux server of this file's own (its socket in the run's TMPDIR): files running at the same time
// each kill their sessions, and a shared default server exits under another file's new-session.
const TMUX = ['-S', join(tempDir('sign-cli-interactive-tmux-'), 'socket')];
const tmux = (...args: string[]) => execFileSync('tmux', [...TMUX, ...args], { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-t', SESSION, '-S', '-200');

async function waitFor(text: string | RegExp, timeoutMs = 60_000, capture = screen): Promise<string> {
  // Used for what appears once; prompts asked several times go through answer().
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const shown = capture();
    if (typeof text === 'string' ? shown.includes(text) : text.test(shown)) return shown;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(text)}; screen:\n${shown}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const asked = new Map<string, number>();
const occurrences = (text: string, shown: string) => shown.split(text).length - 1;

/** Waits for a prompt (its next appearance, when it was asked before), then answers it. */
async function answer(prompt: string, ...keys: string[]): Promise<void> {
  const times = (asked.get(prompt) ?? 0) + 1;
  asked.set(prompt, times);
  const deadline = Date.now() + 60_000;
  while (occurrences(prompt, screen()) < times) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for "${prompt}" (#${times}); screen:\n${screen()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  for (const key of keys)
    tmux('send-keys', '-t', SESSION, ...(key.startsWith('{') ? [key.slice(1, -1)] : ['-l', key]));
  await new Promise((r) => setTimeout(r, 60));
}

let sandbox: SandboxProcess;
beforeAll(async () => {
  // A session that outlives the tests': killing a test's session never leaves the server without
  // one, so it does not exit under the next test's new-session ("server exited unexpectedly").
  tmux('new-session', '-d', '-s', `anchor-${process.pid}`, 'sleep 3600');
  sandbox = await startSandboxProcess();
});
afterAll(async () => {
  spawnSync('tmux', [...TMUX, 'kill-server']);
  spawnSync('tmux', [...TMUX, 'kill-session', '-t', SESSION]);
  await sandbox?.stop();
});

describe('keys add, with the hidden prompt', () => {
  it('reads the key without echoing it and stores it', async () => {
    const configDir = tempDir();
    const key = 'sk_live_TypedAtTheTerminal0123456789';
    const command = `cd ${ROOT} && env -u CI SIGN_CONFIG_DIR=${configDir} NO_COLOR=1 ${process.execPath} ${BIN} keys add laptop --offline; echo "EXIT=$?"; sleep 60`;
    tmux('new-session', '-d', '-s', `${SESSION}-keys`, '-x', '200', '-y', '20', command);
    try {
      const capture = () => tmux('capture-pane', '-p', '-t', `${SESSION}-keys`);
      const deadline = Date.now() + 60_000;
      while (!capture().includes('API key for profile laptop')) {
        if (Date.now() > deadline) throw new Error(`no prompt; screen:\n${capture()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      tmux('send-keys', '-t', `${SESSION}-keys`, '-l', key);
      tmux('send-keys', '-t', `${SESSION}-keys`, 'Enter');
      while (!/EXIT=\d/.test(capture())) {
        if (Date.now() > deadline) throw new Error(`did not finish; screen:\n${capture()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const shown = capture();
      expect(shown).toContain('EXIT=0');
      expect(shown).not.toContain(key.slice(8, -4));
      expect(shown).toContain('sk_live_****6789');
      expect(JSON.parse(readFileSync(`${configDir}/config.json`, 'utf8')).profiles.laptop.api_key).toBe(key);
    } finally {
      spawnSync('tmux', [...TMUX, 'kill-session', '-t', `${SESSION}-keys`]);
    }
  });
});

describe('envelopes create, interactively', () => {
  it('builds an envelope answer by answer in a real terminal and creates it', async () => {
    // CI unset: this is a person at a terminal, even when the suite runs in CI.
    const env = sourcedEnv(
      {
        SIGN_BASE_URL: sandbox.baseUrl,
        SIGN_API_KEY: sandbox.apiKey,
        SIGN_CONFIG_DIR: tempDir(),
        SIGN_STATE_DIR: tempDir(),
        NO_COLOR: '1',
      },
      { unsetCi: true },
    );
    const command = `cd ${ROOT} && ${env}${process.execPath} ${BIN} envelopes create; echo "EXIT=$?"; sleep 60`;
    tmux('new-session', '-d', '-s', SESSION, '-x', '200', '-y', '50', command);

    const before = await sandbox.envelopeCount();
    await answer('Title', 'Lease from the terminal', '{Enter}');
    await answer('Contract ID', 'CTR-TTY-1', '{Enter}');
    await answer('Document template ID', 'tpl_lease', '{Enter}');
    await answer('Template version', '{Enter}');
    await answer('Signer 1: full name', 'Layla Haddad', '{Enter}');
    await answer('Signer 1: delivery channel', '{Enter}'); // email
    await answer('Signer 1: e-mail', 'layla@example.com', '{Enter}');
    await answer('Signer 1: identity verification', '{Down}', '{Enter}'); // uae_pass
    await answer('Signer 1: signing order', '{Enter}');
    await answer('Add another signer?', 'y', '{Enter}');
    await answer('Signer 2: full name', 'Omar Khalil', '{Enter}');
    await answer('Signer 2: delivery channel', '{Down}', '{Enter}'); // whatsapp
    // A wrong answer is refused on the spot, with the rule and the fix.
    await answer('Signer 2: phone', '0501234567', '{Enter}');
    await waitFor('is a national number (it starts with 0): add the country code');
    tmux('send-keys', '-t', SESSION, ...Array<string>(10).fill('BSpace'));
    tmux('send-keys', '-t', SESSION, '-l', '+971501234567');
    tmux('send-keys', '-t', SESSION, 'Enter');
    await answer('Signer 2: identity verification', '{Enter}'); // none
    await answer('Signer 2: signing order', '{Enter}');
    await answer('Add another signer?', '{Enter}'); // no
    await answer('Must signers sign in order?', '{Enter}'); // yes
    await answer('Signature level', '{Down}', '{Enter}'); // advanced
    await answer('Expires in how many days', '14', '{Enter}');
    await answer('Locale of the signing experience', 'ar', '{Enter}');
    await answer('Webhook URL', '{Enter}');
    await answer('Save this JSON to a file?', '{Enter}');
    await answer('Send it now?', '{Enter}');
    const shown = await waitFor(/EXIT=\d+/, 60_000);
    expect(shown).toMatch(/created env_\w+/);
    expect(shown).toContain('EXIT=0');
    // The summary was shown before sending.
    expect(shown).toContain('"phone": "+971501234567"');

    expect(await sandbox.envelopeCount()).toBe(before + 1);
    const id = /created (env_\w+)/.exec(shown)![1]!;
    const envelope = (await (
      await fetch(`${sandbox.baseUrl}/api/v1/envelopes/${id}`, {
        headers: { authorization: `Bearer ${sandbox.apiKey}` },
      })
    ).json()) as Record<string, unknown>;
    expect(envelope).toMatchObject({
      title: 'Lease from the terminal',
      contract_id: 'CTR-TTY-1',
      document: { template_id: 'tpl_lease', version: 1 },
      sequential: true,
      signature_level: 'advanced',
      expires_in_days: 14,
      locale: 'ar',
      signers: [
        {
          name: 'Layla Haddad',
          channel: 'email',
          email: 'layla@example.com',
          verification: 'uae_pass',
          order: 1,
        },
        { name: 'Omar Khalil', channel: 'whatsapp', phone: '+971501234567', order: 2 },
      ],
    });
  });
});

describe('reading stdin typed at a terminal', () => {
  /** Runs a command in its own tmux session; returns a reader of its screen. */
  function inTerminal(name: string, args: string, configDir = tempDir()) {
    const session = `${SESSION}-${name}`;
    const command = `cd ${ROOT} && ${sourcedEnv({ SIGN_CONFIG_DIR: configDir, SIGN_STATE_DIR: tempDir(), SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey, NO_COLOR: '1' })}${process.execPath} ${BIN} ${args}; echo "EXIT=$?"; sleep 60`;
    tmux('new-session', '-d', '-s', session, '-x', '200', '-y', '20', command);
    const capture = () => tmux('capture-pane', '-p', '-t', session);
    const until = async (pattern: RegExp, timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(capture())) {
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for ${String(pattern)}; screen:\n${capture()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return capture();
    };
    return {
      session,
      capture,
      until,
      keys: (...keys: string[]) => tmux('send-keys', '-t', session, ...keys),
      close: () => spawnSync('tmux', [...TMUX, 'kill-session', '-t', session]),
    };
  }

  for (const [name, args, hint] of [
    ['create', 'envelopes create -f -', 'reading envelope JSON from stdin; Ctrl-D to end'],
    ['validate', 'envelopes validate -', 'reading envelope JSON from stdin; Ctrl-D to end'],
    [
      'keys',
      'keys add typed --stdin --offline',
      'reading the API key for profile typed from stdin (one line)',
    ],
  ] as const) {
    it(`${args}: says what it waits for, and one Ctrl-C exits 130 at once`, async () => {
      const terminal = inTerminal(name, args);
      try {
        await terminal.until(new RegExp(hint.replace(/[()]/g, '\\$&')));
        terminal.keys('-l', '{"title":');
        const before = await sandbox.envelopeCount();
        terminal.keys('C-c');
        const shown = await terminal.until(/EXIT=\d+/, 60_000);
        expect(shown).toContain('EXIT=130');
        expect(await sandbox.envelopeCount()).toBe(before);
      } finally {
        terminal.close();
      }
    });
  }

  it('keys add --stdin at a terminal stores the line typed and finishes at Enter, without waiting for Ctrl-D', async () => {
    const configDir = tempDir();
    const terminal = inTerminal('keyline', 'keys add typed --stdin --offline', configDir);
    try {
      await terminal.until(/reading the API key/);
      terminal.keys('-l', 'sk_test_TypedOnOneLine00000');
      terminal.keys('Enter');
      const shown = await terminal.until(/EXIT=\d+/, 60_000);
      expect(shown).toContain('EXIT=0');
      expect(JSON.parse(readFileSync(`${configDir}/config.json`, 'utf8')).profiles.typed.api_key).toBe(
        'sk_test_TypedOnOneLine00000',
      );
    } finally {
      terminal.close();
    }
  });
});

describe('bulk progress on a terminal', () => {
  it('stays on screen below the lines of what is created, and is gone at the end', async () => {
    const dir = tempDir();
    const file = `${dir}/batch.ndjson`;
    const base = JSON.parse(readFileSync(`${ROOT}/examples/envelope.json`, 'utf8')) as Record<
      string,
      unknown
    >;
    delete base.webhook_url;
    writeFileSync(
      file,
      Array.from({ length: 60 }, (_, i) =>
        JSON.stringify({
          ...base,
          title: `Progress ${process.pid} ${i}`,
          contract_id: `PRG-${process.pid}-${i}`,
        }),
      ).join('\n'),
    );
    // The run is stopped where the test looks (creates held at the gate), not sampled while it
    // races by: what is on screen then is what a person sees mid-run, on any machine.
    const gate = await startGateProxy(
      sandbox.baseUrl,
      (req) => req.method === 'POST' && req.url === '/api/v1/envelopes',
    );
    const session = `${SESSION}-progress`;
    const command = `cd ${ROOT} && ${sourcedEnv({ SIGN_CONFIG_DIR: tempDir(), SIGN_STATE_DIR: tempDir(), SIGN_BASE_URL: gate.url, SIGN_API_KEY: sandbox.apiKey, NO_COLOR: '1' })}${process.execPath} ${BIN} envelopes create --ndjson -f ${file} --rate 600; echo "EXIT=$?"; sleep 60`;
    const capture = () => tmux('capture-pane', '-p', '-t', session);
    const before = await sandbox.envelopeCount();
    try {
      for (const stop of [20, 45]) {
        // In one tick: what was held goes on, and the gate is closed again further on.
        gate.open();
        gate.closeAt(stop);
        if (stop === 20) tmux('new-session', '-d', '-s', session, '-x', '160', '-y', '12', command);
        let guard: NodeJS.Timeout | undefined;
        await Promise.race([
          gate.held(),
          new Promise((_, reject) => {
            guard = setTimeout(() => reject(new Error(`no create reached the gate at ${stop}`)), 60_000);
          }),
        ]).finally(() => clearTimeout(guard));
        // Every create before the held one has been answered: the line counts them, under theirs.
        const done = stop - 1;
        // The progress line last on screen (below the lines of what was created).
        const progressLast = new RegExp(
          `${done}/60 · created ${done} · failed 0 · [\\d.]+/s · ETA \\S+\\s*$`,
        );
        const shown = await waitFor(progressLast, 60_000, capture);
        expect(shown).toMatch(/created env_\w+/);
      }
      gate.open();
      const shown = await waitFor(/EXIT=\d/, 60_000, capture);
      expect(shown).toContain('EXIT=0');
      expect(shown).not.toMatch(/· ETA /);
      expect(await sandbox.envelopeCount()).toBe(before + 60);
    } finally {
      spawnSync('tmux', [...TMUX, 'kill-session', '-t', session]);
      await gate.close();
    }
  });
});

/** Runs `command` in its own tmux session until it prints EXIT=<code>; returns the screen. */
async function inTerminal(
  name: string,
  command: string,
  options: { width?: number; onScreen?: (shown: string) => Promise<void> | void; timeoutMs?: number } = {},
): Promise<string> {
  const session = `${SESSION}-${name}`;
  tmux(
    'new-session',
    '-d',
    '-s',
    session,
    '-x',
    String(options.width ?? 100),
    '-y',
    '30',
    `cd ${ROOT} && ${command}; echo "EXIT=$?"; sleep 60`,
  );
  try {
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    let shown = '';
    while (!/EXIT=\d/.test((shown = tmux('capture-pane', '-p', '-t', session, '-S', '-100')))) {
      if (Date.now() > deadline) throw new Error(`did not finish; screen:\n${shown}`);
      await options.onScreen?.(shown);
      await new Promise((r) => setTimeout(r, 50));
    }
    return shown;
  } finally {
    spawnSync('tmux', [...TMUX, 'kill-session', '-t', session]);
  }
}

describe('envelopes watch at a terminal', () => {
  const envOf = () => ({
    SIGN_CONFIG_DIR: tempDir(),
    SIGN_STATE_DIR: tempDir(),
    SIGN_BASE_URL: sandbox.baseUrl,
    SIGN_API_KEY: sandbox.apiKey,
    NO_COLOR: '1',
  });
  const shellEnv = (env: Record<string, string>) => sourcedEnv(env, { unsetCi: true });
  const create = (env: Record<string, string>, body: unknown) =>
    execFileSync(
      process.execPath,
      [BIN, 'envelopes', 'create', '-f', '-', '--new', '--query', 'envelope.id'],
      { env: { ...process.env, ...env }, input: JSON.stringify(body), encoding: 'utf8' },
    ).trim();

  it('watch redraws one block in place until the envelope completes', async () => {
    // People sign only when the test has seen the screen of the state before (a manual journey
    // waits for them): every state is on screen in turn, however fast or slow the machine.
    const people = await startSandboxProcess({ args: ['--journey', 'manual'] });
    try {
      const env = { ...envOf(), SIGN_BASE_URL: people.baseUrl, SIGN_API_KEY: people.apiKey };
      const example = JSON.parse(readFileSync(`${ROOT}/examples/envelope.json`, 'utf8')) as {
        signers: Record<string, unknown>[];
      };
      for (const signer of example.signers) delete signer.verification;
      const id = create(env, example);
      const states = new Set<string>();
      const counts: string[] = [];
      const sign = (name: string) => signWhenTurn(people.baseUrl, people.apiKey, id, name);
      const shown = await inTerminal(
        'watch',
        `${shellEnv(env)} ${process.execPath} ${BIN} envelopes watch ${id} --interval 0.3`,
        {
          onScreen: async (screen) => {
            const state = /status (\w+), (\d) of 2 signed/.exec(screen);
            if (!state) return;
            states.add(`${state[1]} ${state[2]}`);
            if (counts.includes(state[2]!)) return;
            counts.push(state[2]!);
            if (state[2] === '0') await sign('Layla Haddad');
            else if (state[2] === '1') await sign('Omar Khalil');
          },
        },
      );
      expect(shown).toContain('EXIT=0');
      // The view changed while it was watched: none signed, then one (then both, below)…
      expect(
        counts.filter((count) => count !== '2'),
        `states seen: ${[...states].join(', ')}`,
      ).toEqual(['0', '1']);
      // …yet the screen holds one block: redrawn, not appended.
      expect(shown.match(/ of 2 signed/g)).toHaveLength(1);
      expect(shown.match(/checked \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/g)).toHaveLength(1);
      expect(shown).toMatch(/status completed, 2 of 2 signed/);
      expect(shown).toMatch(/✓ 1\. Layla Haddad\s+email\s+signed \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/);
    } finally {
      await people.stop();
    }
  });
});
