import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chainAuditEntry, verifyAuditChain, type AuditEntry } from '../../src/core/envelope/audit.js';
import { SandboxStore } from '../../src/sandbox/store/store.js';
import type { DeliveryRecord, EnvelopeRecord } from '../../src/sandbox/store/records.js';

const lines = (dir: string) => readFileSync(join(dir, 'state.jsonl'), 'utf8').trim().split('\n').length;

describe('SandboxStore', () => {
  it('compacts a log full of superseded journey steps into the same state', () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-'));
    const store = new SandboxStore(dir);
    store.saveSettings('hash-of-the-secret', 'key_1');
    const envelope: EnvelopeRecord = {
      id: 'env_1',
      owner: 'key_1',
      status: 'sent',
      sequential: false,
      signers: [],
      expires_at: null,
      created_at: '2026-11-21T10:00:00.000Z',
      updated_at: '2026-11-21T10:00:00.000Z',
    };
    let last: AuditEntry | undefined = chainAuditEntry(undefined, {
      at: '2026-11-21T10:00:00.000Z',
      type: 'envelope.created',
      actor: 'system',
      detail: 'created',
    });
    store.saveCreated(
      envelope,
      {
        scope: 'key_1',
        key: 'idem-1',
        fingerprint: 'f',
        created_at: Date.now(),
        response: { status: 201, body: {}, headers: {} },
      },
      [last],
      [],
    );
    for (let i = 1; i <= 30; i++) {
      last = chainAuditEntry(last, {
        at: `2026-11-21T10:00:${String(i).padStart(2, '0')}.000Z`,
        type: 'step',
        actor: 'system',
        detail: `step ${i}`,
      });
      store.saveJourney(
        { ...envelope, updated_at: last.at, status: i === 30 ? 'completed' : 'sent' },
        [last],
        [],
      );
    }
    store.close();
    expect(lines(dir)).toBe(32);

    const reopened = new SandboxStore(dir, { compactMinLines: 10 });
    reopened.close();
    expect(lines(dir)).toBe(3); // settings, the envelope with its trail, its idempotency record
    const again = new SandboxStore(dir, { compactMinLines: 10 });
    expect(again.envelopes.get('env_1')?.status).toBe('completed');
    expect(again.audits.get('env_1')).toHaveLength(31);
    expect(verifyAuditChain(again.audits.get('env_1')!).valid).toBe(true);
    expect(again.idempotency.size).toBe(1);
    expect(again.webhookSecretHash).toBe('hash-of-the-secret');
    expect(again.latestTime).toBe(Date.parse('2026-11-21T10:00:30.000Z'));
    again.close();
  });

  it('skips a well-formed line it did not write, naming file and line, and keeps the rest', () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-'));
    const store = new SandboxStore(dir);
    store.saveSettings('hash', 'key_1');
    store.close();
    appendFileSync(
      join(dir, 'state.jsonl'),
      '{"t":"created","envelope":{"id":"env_x"}}\n{"t":"teleport"}\nnot json\n[]\n',
    );
    const reopened = new SandboxStore(dir);
    expect(reopened.problems).toEqual([
      'state.jsonl:2: envelope without id, status or signers; line skipped',
      'state.jsonl:3: unknown record type "teleport"; line skipped',
      'state.jsonl:4: not JSON; line skipped',
      'state.jsonl:5: not a state record (no "t"); line skipped',
    ]);
    expect(reopened.adminKeyId).toBe('key_1');
    reopened.close();
  });

  it('keeps API keys as hashes, and rewrites a log that held secrets in clear', () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-'));
    const clear = 'sk_test_ClearSecretFromAnOlderLog0000';
    writeFileSync(
      join(dir, 'state.jsonl'),
      `${JSON.stringify({ t: 'key', key: { id: 'key_1', name: 'old', key: clear, environment: 'test', scopes: ['envelopes:read'], expires: '2030-01-01', created_at: '2026-01-01T00:00:00Z', last_used: null } })}\n` +
        `${JSON.stringify({ t: 'settings', webhook_secret: 'whsec_T2xkU2VjcmV0SW5DbGVhcg==', admin_key_id: 'key_1' })}\n`,
    );
    const store = new SandboxStore(dir);
    expect(store.findKey(clear)?.id).toBe('key_1');
    expect(store.keys.get('key_1')).toMatchObject({ key_hint: 'sk_test_****0000' });
    expect(store.clearSecrets.keys.get('key_1')).toBe(clear);
    store.close();
    const text = readFileSync(join(dir, 'state.jsonl'), 'utf8');
    expect(text).not.toContain('ClearSecretFromAnOlderLog');
    expect(text).not.toContain('T2xkU2VjcmV0SW5DbGVhcg');
    const again = new SandboxStore(dir);
    expect(again.findKey(clear)?.id).toBe('key_1');
    again.close();
  });

  it('loads deliveries from logs written before resends and attempt logs; keeps a resend with its key record; skips a malformed attempt', () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-'));
    // A delivery line as older versions wrote it: the event id as its id, no event_id, no attempt_log.
    const legacy = {
      id: 'evt_old',
      seq: 4,
      envelope_id: 'env_1',
      event_type: 'envelope.created',
      url: 'http://127.0.0.1:9/h',
      body: '{"id":"evt_old"}',
      status: 'failed',
      attempts: 9,
      next_at: 0,
      last_status: null,
      last_error: 'ECONNREFUSED',
      finished_at: '2026-11-21T10:00:00.000Z',
    };
    const badAttempt = {
      ...legacy,
      id: 'dlv_bad',
      event_id: 'evt_bad',
      attempt_log: [{ attempt: '1', started_at: 5 }],
    };
    writeFileSync(
      join(dir, 'state.jsonl'),
      `${JSON.stringify({ t: 'settings', webhook_secret_hash: 'h', admin_key_id: 'key_1' })}\n${JSON.stringify({ t: 'delivery', delivery: legacy })}\n${JSON.stringify({ t: 'delivery', delivery: badAttempt })}\n`,
    );
    const store = new SandboxStore(dir);
    expect(store.problems).toEqual(['state.jsonl:3: malformed delivery; line skipped']);
    expect(store.deliveriesOfEvent('evt_old').map((d) => d.id)).toEqual(['evt_old']);
    const resend: DeliveryRecord = {
      ...legacy,
      id: 'dlv_new',
      event_id: 'evt_old',
      seq: store.nextDeliverySeq(),
      status: 'pending',
      attempts: 0,
      attempt_log: [],
      last_error: null,
      finished_at: null,
      created_at: '2026-11-21T11:00:00.000Z',
      resend: true,
    };
    expect(resend.seq).toBe(5);
    store.saveResent(resend, {
      scope: 'key_1',
      key: 'idem-r',
      fingerprint: 'f',
      created_at: Date.now(),
      response: { status: 202, body: {}, headers: {} },
    });
    resend.attempts = 1;
    resend.attempt_log!.push({
      attempt: 1,
      started_at: '2026-11-21T11:00:00.000Z',
      status: 200,
      duration_ms: 4,
      error: null,
    });
    resend.status = 'delivered';
    store.saveDelivery(resend);
    store.close();

    const again = new SandboxStore(dir);
    expect(again.problems).toEqual(['state.jsonl:3: malformed delivery; line skipped']);
    expect(again.deliveriesOfEvent('evt_old').map((d) => [d.id, d.status])).toEqual([
      ['evt_old', 'failed'],
      ['dlv_new', 'delivered'],
    ]);
    expect(again.deliveries.get('dlv_new')!.attempt_log).toEqual([
      { attempt: 1, started_at: '2026-11-21T11:00:00.000Z', status: 200, duration_ms: 4, error: null },
    ]);
    expect(again.idempotency.size).toBe(1);
    expect(again.nextDeliverySeq()).toBe(6);
    again.close();
  });
});
