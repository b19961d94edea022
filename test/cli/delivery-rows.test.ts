/** `webhooks deliveries` rows and `webhooks resend` text, without spawning. */
import { describe, expect, it } from 'vitest';
import type { WebhookDelivery } from '../../src/core/webhooks/deliveries.js';
import { UsageError } from '../../src/core/errors.js';
import { exitCodeOf } from '../../src/cli/exit-codes.js';
import {
  DELIVERY_COLUMNS,
  deliveryRow,
  lastResult,
  parseResendTarget,
  resendLine,
  stateCell,
} from '../../src/cli/render/delivery-rows.js';

const failed: WebhookDelivery = {
  id: 'dlv_1',
  event_id: 'evt_1',
  event_type: 'envelope.created',
  envelope_id: 'env_1',
  url: 'http://127.0.0.1:4020/hooks',
  status: 'failed',
  resend: false,
  attempt_count: 2,
  attempts: [
    { attempt: 1, started_at: '2026-11-21T10:00:00.000Z', status: 500, duration_ms: 3, error: 'HTTP 500' },
    {
      attempt: 2,
      started_at: '2026-11-21T10:00:05.120Z',
      status: null,
      duration_ms: 1,
      error: 'ECONNREFUSED: connect\nECONNREFUSED 127.0.0.1:4020',
    },
  ],
};

describe('delivery rows', () => {
  it('a row per delivery: event, type, envelope, state, attempts, last result, last attempt to the second (UTC, marked), URL', () => {
    expect(DELIVERY_COLUMNS.map((c) => c.head)).toEqual([
      'EVENT',
      'TYPE',
      'ENVELOPE',
      'STATE',
      'ATTEMPTS',
      'LAST RESULT',
      'LAST ATTEMPT',
      'URL',
    ]);
    // Only the URL may be cut: ids, type, state, the error and the time are read by.
    expect(DELIVERY_COLUMNS.filter((c) => c.cut).map((c) => c.head)).toEqual(['URL']);
    expect(deliveryRow(failed)).toEqual([
      'evt_1',
      'envelope.created',
      'env_1',
      'failed',
      '2',
      // Text from the service stays on one line.
      'ECONNREFUSED: connect\\nECONNREFUSED 127.0.0.1:4020',
      '2026-11-21 10:00:05Z',
      'http://127.0.0.1:4020/hooks',
    ]);
  });

  it('the last result: the error, else the 2xx status, else - before any attempt; older shapes without attempts too', () => {
    expect(
      lastResult({
        id: 'd',
        event_id: 'e',
        attempts: [{ attempt: 1, started_at: '', status: 204, duration_ms: 1, error: null }],
      }),
    ).toBe('204');
    expect(lastResult({ id: 'd', event_id: 'e', attempts: [] })).toBe('-');
    expect(lastResult({ id: 'd', event_id: 'e', last_status: 502, last_error: 'HTTP 502' })).toBe('HTTP 502');
    const pending = deliveryRow({ id: 'd', event_id: 'e', status: 'pending', attempts: [] });
    expect(pending.slice(3, 7)).toEqual(['pending', '0', '-', '-']);
  });

  it('the state is marked for a resend and coloured by how it stands', () => {
    const paint = {
      green: (t: string) => `<g>${t}`,
      red: (t: string) => `<r>${t}`,
      yellow: (t: string) => `<y>${t}`,
    };
    expect(stateCell({ ...failed, status: 'delivered', resend: true }, paint)).toBe('<g>delivered (resend)');
    expect(stateCell(failed, paint)).toBe('<r>failed');
    expect(stateCell({ ...failed, status: 'retrying' }, paint)).toBe('<y>retrying');
    expect(stateCell({ ...failed, status: 'pending' }, paint)).toBe('pending');
  });
});

describe('resend', () => {
  it('says which event went where, under which delivery', () => {
    expect(resendLine('evt_1', { id: 'dlv_9', event_id: 'evt_1', url: 'https://hooks.example.com/x' })).toBe(
      'resent evt_1 to https://hooks.example.com/x: delivery dlv_9',
    );
  });

  it('--to must be an absolute http(s) URL (a usage error, exit 2)', () => {
    expect(parseResendTarget('https://hooks.example.com/x')).toBe('https://hooks.example.com/x');
    expect(parseResendTarget('http://127.0.0.1:4020/hooks')).toBe('http://127.0.0.1:4020/hooks');
    for (const bad of [
      'ftp://h/x',
      'hooks.example.com',
      '/hooks',
      '',
      'javascript:alert(1)',
      `https://h/${'x'.repeat(2100)}`,
    ]) {
      const error = (() => {
        try {
          parseResendTarget(bad);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error, bad).toBeInstanceOf(UsageError);
      expect(exitCodeOf(error)).toBe(2);
      expect((error as Error).message).toMatch(/^--to must /);
    }
  });
});
