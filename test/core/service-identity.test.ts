import { describe, expect, it } from 'vitest';
import { environmentOfKey, keyFingerprint, serviceIdentity } from '../../src/core/service-identity.js';
import { budgetName } from '../../src/core/pacing/shared-budget.js';

describe('one service, whatever the spelling of its URL', () => {
  it.each([
    ['http://127.0.0.1:4010', 'http://localhost:4010'],
    ['http://127.0.0.1:4010/', 'http://LOCALHOST:4010'],
    ['http://[::1]:4010', 'http://127.0.0.1:4010'],
    ['https://ESIGN.example.com:443/v', 'https://esign.example.com/v/'],
    ['http://esign.example.com:80', 'http://esign.example.com'],
  ])('%s is %s', (a, b) => {
    expect(serviceIdentity(a)).toBe(serviceIdentity(b));
  });

  it.each([
    ['http://127.0.0.1:4010', 'http://127.0.0.1:4011'],
    ['https://esign.example.com', 'http://esign.example.com'],
    ['https://esign.example.com/A', 'https://esign.example.com/a'],
    ['https://esign.example.com', 'https://other.example.com'],
  ])('%s is not %s', (a, b) => {
    expect(serviceIdentity(a)).not.toBe(serviceIdentity(b));
  });

  it('names one shared rate budget per service and key: localhost and 127.0.0.1 pace together', () => {
    expect(budgetName('http://localhost:4010', 'sk_test_a')).toBe(
      budgetName('http://127.0.0.1:4010/', 'sk_test_a'),
    );
    expect(budgetName('http://localhost:4010', 'sk_test_a')).not.toBe(
      budgetName('http://localhost:4010', 'sk_test_b'),
    );
  });
});

describe('keys', () => {
  it('the environment a key names, and a fingerprint that is not the key', () => {
    expect(environmentOfKey('sk_live_Abc123')).toBe('live');
    expect(environmentOfKey('sk_test_Abc123')).toBe('test');
    expect(environmentOfKey('opaque-token')).toBeUndefined();
    const fp = keyFingerprint('sk_live_Abc123xyz');
    expect(fp).toMatch(/^[0-9a-f]{16}$/);
    expect(fp).not.toContain('Abc123');
    expect(keyFingerprint('sk_live_Abc123xyz')).toBe(fp);
    expect(keyFingerprint('sk_live_Abc123xyZ')).not.toBe(fp);
  });
});
