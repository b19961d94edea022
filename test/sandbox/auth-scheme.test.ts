/** The sandbox reads `Authorization: Bearer <key>` as RFC 9110 says: the scheme's name in any case, on the API and the control endpoints. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../helpers/in-process.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('sandbox authentication scheme', () => {
  it('takes bearer, BEARER and Bearer (one or more spaces or tabs before the key), on the API and the control endpoints', async () => {
    for (const authorization of [
      `bearer ${sandbox.apiKey}`,
      `BEARER ${sandbox.apiKey}`,
      `Bearer \t${sandbox.apiKey}`,
    ]) {
      expect(
        (await fetch(`${sandbox.baseUrl}/api/v1/api-keys`, { headers: { authorization } })).status,
        authorization.slice(0, 8),
      ).toBe(200);
      expect(
        (await fetch(`${sandbox.baseUrl}/_sandbox/state`, { headers: { authorization } })).status,
        authorization.slice(0, 8),
      ).toBe(200);
    }
  });

  it('still refuses another scheme, no key, or a key that is not the sandbox key on the control endpoints', async () => {
    for (const authorization of [
      `Basic ${sandbox.apiKey}`,
      'Bearer',
      `Bearer ${sandbox.apiKey}x`,
      `Bearer ${sandbox.apiKey} extra`,
    ]) {
      expect(
        (await fetch(`${sandbox.baseUrl}/_sandbox/state`, { headers: { authorization } })).status,
        authorization.slice(0, 8),
      ).toBe(401);
    }
    expect(
      (
        await fetch(`${sandbox.baseUrl}/api/v1/api-keys`, {
          headers: { authorization: `Basic ${sandbox.apiKey}` },
        })
      ).status,
    ).toBe(401);
  });
});
