/** The secrets a command line holds, masked in any message that echoes what was typed. */
import { describe, expect, it } from 'vitest';
import { typedSecrets } from '../../src/cli/flags/typed-secrets.js';

describe('typedSecrets', () => {
  it('finds the value of any --…secret… option, inline or next, in any case', () => {
    expect(typedSecrets(['webhooks', 'verify', '--secret=s3cr3t-value'])).toEqual(['s3cr3t-value']);
    expect(typedSecrets(['--webhook-secret', 'abc123'])).toEqual(['abc123']);
    expect(typedSecrets(['--SECRTE', 'x', '--Signing-Secret', 'plain words'])).toEqual(['plain words']);
    // A file that holds the secret is a path, not the secret; an option last has no value.
    expect(typedSecrets(['--secret-file', 'secret.txt', '--secret'])).toEqual([]);
  });

  it('finds words shaped like a key or a webhook secret, wherever they are', () => {
    expect(
      typedSecrets(['keys', 'check', 'sk_live_abcd1234', 'url=whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw']),
    ).toEqual(['sk_live_abcd1234', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw']);
    expect(typedSecrets(['--secret=whsk_abcdef'])).toEqual(['whsk_abcdef', 'whsk_abcdef']);
    expect(typedSecrets(['sk_test_ab', 'envelopes', 'validate', 'examples/envelope.json'])).toEqual([]);
  });
});
