/** `webhooks trigger`, in process: signed samples the standard libraries verify, in every scheme. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Stripe from 'stripe';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/paths.js';
import { runCommand, type TestListener } from '../../../helpers/in-process.js';
import { startReceiver } from '../../../helpers/receiver.js';
import { env, wh } from '../../../helpers/webhook-events.js';

let listener: TestListener | undefined;
afterEach(async () => {
  await listener?.stop();
  listener = undefined;
});

describe('webhooks trigger', () => {
  it('sends a signed sample event that the standardwebhooks package verifies', async () => {
    const receiver = await startReceiver();
    try {
      const result = await runCommand(
        ['webhooks', 'trigger', 'envelope.completed', '--to', receiver.url, '--json'],
        { env },
      );
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ type: 'envelope.completed', status: 200 });
      const delivery = receiver.deliveries[0]!;
      const payload = wh.verify(delivery.body, delivery.headers as Record<string, string>) as {
        type: string;
        data: { envelope_status: string };
      };
      expect(payload.type).toBe('envelope.completed');
      expect(payload.data.envelope_status).toBe('completed');
    } finally {
      await receiver.close();
    }
  });

  it('signs with the stripe and hmac schemes too', async () => {
    const receiver = await startReceiver();
    try {
      const secretFile = join(tempDir(), 's.txt');
      writeFileSync(secretFile, 'plain-secret');
      expect(
        (
          await runCommand([
            'webhooks',
            'trigger',
            'signer.viewed',
            '--to',
            receiver.url,
            '--scheme',
            'stripe',
            '--secret-file',
            secretFile,
          ])
        ).code,
      ).toBe(0);
      const stripeHeader = receiver.deliveries[0]!.headers['stripe-signature'] as string;
      expect(
        new Stripe('sk_test_unused').webhooks.constructEvent(
          receiver.deliveries[0]!.body,
          stripeHeader,
          'plain-secret',
        ),
      ).toMatchObject({ type: 'signer.viewed' });
      expect(
        (
          await runCommand([
            'webhooks',
            'trigger',
            'signer.viewed',
            '--to',
            receiver.url,
            '--scheme',
            'hmac',
            '--signature-header',
            'X-Sig',
            '--secret-file',
            secretFile,
          ])
        ).code,
      ).toBe(0);
      expect(receiver.deliveries[1]!.headers['x-sig']).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      await receiver.close();
    }
  });

  it('exits 1 when the handler refuses, and 2 for an unknown type', async () => {
    const receiver = await startReceiver(() => 500);
    try {
      expect(
        (await runCommand(['webhooks', 'trigger', 'signer.signed', '--to', receiver.url], { env })).code,
      ).toBe(1);
    } finally {
      await receiver.close();
    }
    const unknown = await runCommand(
      ['webhooks', 'trigger', 'signer.teleported', '--to', 'http://127.0.0.1:9'],
      { env },
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('signer.signed');
  });
});
