import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { confirm, input, select } from '@inquirer/prompts';
import { render } from '@inquirer/testing';
import { describe, expect, it } from 'vitest';
import { validateEnvelope } from '../../src/core/envelope/envelope.js';
import { CommandContext } from '../../src/cli/context.js';
import {
  askEnvelope,
  checks,
  promptForEnvelope,
  type PromptApi,
} from '../../src/cli/interactive/envelope-prompt.js';

describe('answers are checked by the core rules as they are typed', () => {
  it.each([
    ['phone', checks.phone, '0501234567', /national number .*add the country code/],
    ['phone', checks.phone, '+971 50 123 456', /not a valid number for its country code/],
    ['phone', checks.phone, '', /required when channel is "whatsapp"/],
    ['email', checks.email, 'layla.example.com', /e-mail address/],
    ['version', checks.version, '0', /positive integer/],
    ['version', checks.version, '1.5', /positive integer/],
    ['version', checks.version, 'two', /positive integer/],
    ['title', checks.title, '   ', /must not be empty/],
    ['webhook URL', checks.webhookUrl, 'ftp://x', /http\(s\) URL/],
    ['expiry', checks.expires, '-3', /positive integer/],
  ])('%s rejects %j', (_name, check, value, message) => {
    expect(check(value)).toMatch(message);
  });

  it.each([
    [checks.phone, '+971501234567'],
    [checks.email, 'layla@example.com'],
    [checks.version, '3'],
    [checks.webhookUrl, ''],
    [checks.webhookUrl, 'https://example.com/hooks'],
    [checks.expires, ''],
    [checks.contractId, ''],
  ])('accepts %#', (check, value) => {
    expect(check(value)).toBe(true);
  });

  it('shows the rule in the real inquirer prompt and waits for a valid answer', async () => {
    const { answer, events, getScreen } = await render(input, {
      message: 'Signer 2: phone, international form (+971…)',
      validate: checks.phone,
    });
    events.type('0501234567');
    events.keypress('enter');
    await new Promise((r) => setTimeout(r, 20));
    expect(getScreen()).toMatch(/national number \(it starts with 0\): add the country code/);
    for (let i = 0; i < 10; i++) events.keypress('backspace');
    events.type('+971501234567');
    events.keypress('enter');
    await expect(answer).resolves.toBe('+971501234567');
  });
});

/** A PromptApi answering from a script, running each answer through the prompt's own validator first. */
function scripted(answers: (string | boolean)[]): PromptApi & { asked: string[] } {
  const queue = [...answers];
  const asked: string[] = [];
  const next = (message: string) => {
    asked.push(message);
    if (queue.length === 0) throw new Error(`no scripted answer for "${message}"`);
    return queue.shift()!;
  };
  return {
    asked,
    async input(config) {
      let answer = String(next(config.message));
      if (answer === '' && config.default !== undefined) answer = config.default;
      const verdict = await config.validate?.(answer);
      if (verdict !== undefined && verdict !== true)
        throw new Error(`rejected ${JSON.stringify(answer)} for "${config.message}": ${verdict}`);
      return answer;
    },
    async select(config) {
      const answer = String(next(config.message));
      if (!config.choices.some((c) => c.value === answer))
        throw new Error(`no choice ${answer} for "${config.message}"`);
      return answer as never;
    },
    async confirm(config) {
      return Boolean(next(config.message));
    },
  };
}

describe('the question flow', () => {
  const ANSWERS: (string | boolean)[] = [
    'Office lease',
    'CTR-9',
    'tpl_lease',
    '', // title, contract, template, version (default 1)
    'Layla Haddad',
    'email',
    'layla@example.com',
    'uae_pass',
    '',
    true, // signer 1, order default 1, add another
    'Omar Khalil',
    'whatsapp',
    '+971501234567',
    '__none__',
    '',
    false, // signer 2, order default 2
    true,
    'advanced',
    '14',
    'ar',
    'https://example.com/hooks', // sequential, level, expiry, locale, webhook
  ];

  it('builds a valid envelope, asking for the contact field the channel needs', async () => {
    const prompts = scripted(ANSWERS);
    const envelope = await askEnvelope(prompts);
    expect(envelope).toEqual({
      title: 'Office lease',
      contract_id: 'CTR-9',
      document: { template_id: 'tpl_lease', version: 1 },
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
      sequential: true,
      signature_level: 'advanced',
      expires_in_days: 14,
      locale: 'ar',
      webhook_url: 'https://example.com/hooks',
    });
    expect(validateEnvelope(envelope)).toEqual({ errors: [], warnings: [] });
    expect(prompts.asked).toContain('Signer 2: phone, international form (+971…)');
    expect(prompts.asked.some((m) => m.startsWith('Signer 2: e-mail'))).toBe(false);
  });

  it('refuses an order already taken', async () => {
    const answers = [...ANSWERS];
    answers[14] = '1'; // signer 2 asks for order 1, which signer 1 has
    await expect(askEnvelope(scripted(answers))).rejects.toThrow(/order 1 is taken/);
  });

  it('shows a summary, saves the JSON when asked, and sends on confirmation', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prompt-'));
    const file = join(dir, 'lease.json');
    const ctx = new CommandContext({ color: false, input: true, json: false }, new AbortController().signal);
    const envelope = await promptForEnvelope(ctx, scripted([...ANSWERS, file, true]));
    expect(envelope).toMatchObject({ title: 'Office lease' });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(envelope);
    const declined = await promptForEnvelope(ctx, scripted([...ANSWERS, '', false]));
    expect(declined).toBeUndefined();
  });

  it('works with the real inquirer select and confirm prompts', async () => {
    const channel = await render(select, {
      message: 'channel',
      choices: [
        { name: 'email', value: 'email' },
        { name: 'whatsapp', value: 'whatsapp' },
      ],
    });
    channel.events.keypress('down');
    channel.events.keypress('enter');
    await expect(channel.answer).resolves.toBe('whatsapp');
    const more = await render(confirm, { message: 'Add another signer?', default: false });
    more.events.keypress('enter');
    await expect(more.answer).resolves.toBe(false);
  });
});
