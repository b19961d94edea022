/**
 * The deliveries both `webhooks deliveries` and `webhooks resend` are tested
 * on: an in-process sandbox at speed 200,000 (the 8 retries, 17 h 42 min of
 * sandbox time, take about a third of a second), whose webhooks go to real
 * receivers on loopback: one that fails its first 9 requests (every attempt
 * of the first event), and a closed port.
 */
import { createServer } from 'node:net';
import { expect } from 'vitest';
import { example } from './envelopes.js';
import { runCommand, startTestSandbox, type TestSandbox } from './in-process.js';
import { startReceiver, eventTypes, type Receiver } from './receiver.js';
import { tempDir } from './cli.js';

export const SPEED = 200_000;

export interface Attempt {
  attempt: number;
  started_at: string;
  status: number | null;
  duration_ms: number;
  error: string | null;
}
export interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  envelope_id: string;
  url: string;
  status: string;
  resend: boolean;
  attempt_count: number;
  attempts: Attempt[];
}

export interface DeliveryFixture {
  sandbox: TestSandbox;
  env: Record<string, string>;
  /** Answers 500 to its first 9 requests, then 200. */
  flaky: Receiver;
  good: Receiver;
  closedUrl: string;
  /** An envelope whose first event fails for good at `flaky`; one whose webhook_url is a closed port. */
  envelopeA: string;
  envelopeB: string;
  cli(
    args: string[],
    options?: { input?: string; env?: Record<string, string> },
  ): ReturnType<typeof runCommand>;
  requests(): Promise<number>;
  close(): Promise<void>;
}

export const deliveryLines = (stdout: string): Delivery[] =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Delivery);

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function until(check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function deliveryFixture(): Promise<DeliveryFixture> {
  const sandbox = await startTestSandbox({ speed: SPEED });
  const env = { ...sandbox.env, SIGN_STATE_DIR: tempDir() };
  const cli = (args: string[], options: { input?: string; env?: Record<string, string> } = {}) =>
    runCommand(args, { env, ...options });
  const createOne = async (webhookUrl: string): Promise<string> => {
    const result = await cli(['envelopes', 'create', '-f', '-', '--new', '--query', 'envelope.id'], {
      input: JSON.stringify({ ...example(), webhook_url: webhookUrl }),
    });
    expect(result.code, result.stderr).toBe(0);
    return result.stdout.trim();
  };
  const flaky = await startReceiver((n) => (n < 9 ? 500 : 200));
  const good = await startReceiver();
  const closedUrl = `http://127.0.0.1:${await closedPort()}/hooks`;
  const envelopeA = await createOne(flaky.url);
  const envelopeB = await createOne(closedUrl);
  await flaky.waitFor((all) => eventTypes(all).includes('envelope.completed'));
  // B's first event has failed for good once its 9 attempts are recorded.
  await until(async () => {
    const { data } = await sandbox.control<{ data: { envelope_id: string; status: string }[] }>(
      `/_sandbox/deliveries?envelope_id=${envelopeB}`,
    );
    return data[0]?.status === 'failed';
  });
  return {
    sandbox,
    env,
    flaky,
    good,
    closedUrl,
    envelopeA,
    envelopeB,
    cli,
    requests: async () => (await sandbox.control<{ requests: number }>('/_sandbox/state')).requests,
    close: async () => {
      await sandbox.stop();
      await flaky.close();
      await good.close();
    },
  };
}
