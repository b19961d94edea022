/**
 * Idempotency-Keys are remembered 24 hours, per account and environment (as
 * Stripe keeps them): within that a re-send is answered with the first
 * response; after it, the same key makes a new envelope. Only Date is faked;
 * the requests are real HTTP to the sandbox in this process.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { IDEMPOTENCY_RETENTION_MS } from '../../src/sandbox/server.js';
import { ROOT } from '../helpers/paths.js';
import { startTestSandbox, type TestSandbox } from '../helpers/in-process.js';

const ENVELOPE = JSON.parse(readFileSync(join(ROOT, 'examples', 'envelope.json'), 'utf8')) as Record<
  string,
  unknown
>;
let sandbox: TestSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterEach(() => {
  vi.useRealTimers();
});
afterAll(async () => {
  await sandbox?.stop();
});

const create = async (idempotencyKey: string, apiKey = sandbox.apiKey) => {
  const response = await fetch(`${sandbox.baseUrl}/api/v1/envelopes`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      'idempotency-key': idempotencyKey,
    },
    body: JSON.stringify({ ...ENVELOPE, contract_id: `RET-${idempotencyKey}` }),
  });
  return { status: response.status, id: ((await response.json()) as { id: string }).id };
};

describe('Idempotency-Key retention', () => {
  it('replays within 24 hours and creates anew after them', async () => {
    expect(IDEMPOTENCY_RETENTION_MS).toBe(24 * 60 * 60 * 1000);
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'], now: start });
    const first = await create('retention-1');
    expect(first.status).toBe(201);

    vi.setSystemTime(start + IDEMPOTENCY_RETENTION_MS - 60_000);
    const replay = await create('retention-1');
    expect(replay.id).toBe(first.id);

    vi.setSystemTime(start + IDEMPOTENCY_RETENTION_MS + 60_000);
    const later = await create('retention-1');
    expect(later.status).toBe(201);
    expect(later.id).not.toBe(first.id);
  });

  it('belongs to the account and environment: the same key string under a live key is a new envelope', async () => {
    const first = await create('retention-2');
    const live = await sandbox.mintKey({ environment: 'live' });
    const other = await create('retention-2', live);
    expect(other.status).toBe(201);
    expect(other.id).not.toBe(first.id);
  });
});
