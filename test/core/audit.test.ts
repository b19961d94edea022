import { describe, expect, it } from 'vitest';
import {
  GENESIS_HASH,
  auditEntryHash,
  chainAuditEntry,
  verifyAuditChain,
  type AuditEntry,
} from '../../src/core/envelope/audit.js';

function trail(n: number): AuditEntry[] {
  const entries: AuditEntry[] = [];
  for (let i = 0; i < n; i++) {
    entries.push(
      chainAuditEntry(entries.at(-1), {
        at: `2026-11-21T10:00:0${i}.000Z`,
        type: `step.${i}`,
        actor: 'system',
        detail: `detail ${i}`,
      }),
    );
  }
  return entries;
}

describe('audit hash chain', () => {
  it('links each entry to the previous one, starting from the genesis hash', () => {
    const entries = trail(3);
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(entries[0]!.prev_hash).toBe(GENESIS_HASH);
    expect(entries[1]!.prev_hash).toBe(entries[0]!.hash);
    const { hash, ...unsigned } = entries[2]!;
    expect(auditEntryHash(unsigned)).toBe(hash);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(verifyAuditChain(entries)).toEqual({ valid: true, entries: 3, head: entries[2]!.hash });
    expect(verifyAuditChain([])).toEqual({ valid: true, entries: 0, head: GENESIS_HASH });
  });

  it('does not depend on key order', () => {
    const [entry] = trail(1);
    const reordered = Object.fromEntries(Object.entries(entry!).reverse()) as unknown as AuditEntry;
    expect(verifyAuditChain([reordered]).valid).toBe(true);
  });

  it.each([
    ['a changed detail', (t: AuditEntry[]) => (t[1]!.detail = 'forged'), 1, /changed/],
    ['a changed time', (t: AuditEntry[]) => (t[2]!.at = '2030-01-01T00:00:00.000Z'), 2, /changed/],
    ['a removed entry', (t: AuditEntry[]) => t.splice(1, 1), 1, /seq/],
    ['swapped entries', (t: AuditEntry[]) => ([t[1], t[2]] = [t[2]!, t[1]!]), 1, /seq/],
    ['an inserted entry', (t: AuditEntry[]) => t.splice(1, 0, { ...t[1]! }), 2, /seq/],
    [
      'a re-hashed forgery',
      (t: AuditEntry[]) => {
        const { hash: _h, ...rest } = { ...t[1]!, detail: 'forged' };
        t[1] = { ...rest, hash: auditEntryHash(rest) };
      },
      2,
      /prev_hash/,
    ],
  ])('detects %s', (_name, tamper, index, reason) => {
    const entries = trail(4);
    tamper(entries);
    const result = verifyAuditChain(entries);
    expect(result.valid).toBe(false);
    if (!result.valid) {
      expect(result.index).toBe(index);
      expect(result.reason).toMatch(reason);
    }
  });
});

describe('verifyAuditChain with a head hash', () => {
  it('needs the trail to end at the head it was given: a cut tail or an empty trail does not verify', () => {
    const entries = trail(4);
    const head = entries.at(-1)!.hash;
    expect(verifyAuditChain(entries, head)).toMatchObject({ valid: true, entries: 4, head });
    expect(verifyAuditChain(entries.slice(0, 3), head)).toMatchObject({
      valid: false,
      index: 3,
      reason: expect.stringMatching(/missing at the end/),
    });
    expect(verifyAuditChain([], head)).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/empty/),
    });
    // Without a head, a shorter trail is still a valid chain: the head is what detects the cut.
    expect(verifyAuditChain(entries.slice(0, 3)).valid).toBe(true);
  });
});
