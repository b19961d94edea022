import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chainAuditEntry, verifyAuditChain, type AuditEntry } from '../../src/core/audit.js';
import { SandboxStore, type EnvelopeRecord } from '../../src/sandbox/store.js';

const lines = (dir: string) => readFileSync(join(dir, 'state.jsonl'), 'utf8').trim().split('\n').length;

describe('SandboxStore', () => {
  it('compacts a log full of superseded journey steps into the same state', () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-'));
    const store = new SandboxStore(dir);
    store.saveSettings('whsec_AAAA', 'key_1');
    const envelope: EnvelopeRecord = { id: 'env_1', owner: 'key_1', status: 'sent', sequential: false, signers: [], expires_at: null, created_at: '2026-11-21T10:00:00.000Z', updated_at: '2026-11-21T10:00:00.000Z' };
    let last: AuditEntry | undefined = chainAuditEntry(undefined, { at: '2026-11-21T10:00:00.000Z', type: 'envelope.created', actor: 'system', detail: 'created' });
    store.saveCreated(envelope, { scope: 'key_1', key: 'idem-1', fingerprint: 'f', created_at: Date.now(), response: { status: 201, body: {}, headers: {} } }, [last], []);
    for (let i = 1; i <= 30; i++) {
      last = chainAuditEntry(last, { at: `2026-11-21T10:00:${String(i).padStart(2, '0')}.000Z`, type: 'step', actor: 'system', detail: `step ${i}` });
      store.saveJourney({ ...envelope, updated_at: last.at, status: i === 30 ? 'completed' : 'sent' }, [last], []);
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
    expect(again.webhookSecret).toBe('whsec_AAAA');
    expect(again.latestTime).toBe(Date.parse('2026-11-21T10:00:30.000Z'));
    again.close();
  });
});
