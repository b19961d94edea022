/**
 * Requests to the service through a real forward proxy (tinyproxy), as
 * behind a corporate proxy: HTTP_PROXY/HTTPS_PROXY honoured, NO_PROXY and
 * loopback bypassing it, the proxy's password never shown, a bad proxy URL
 * refused before anything is sent. Loopback is never proxied, so the sandbox
 * listens on 127.0.0.2: still this machine (traffic stays on lo), but not on
 * the never-proxied list (localhost, 127.0.0.1, ::1). Linux routes all of
 * 127.0.0.0/8 to lo; macOS has only 127.0.0.1 unless aliased, hence the skip.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspace } from '../helpers/envelopes.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../helpers/in-process.js';
import { NO_TINYPROXY, startTinyproxy, type ProxyProcess } from '../helpers/tinyproxy.js';

/** A loopback address that is not on the never-proxied list. */
const NOT_LISTED = '127.0.0.2';

describe.skipIf(NO_TINYPROXY || process.platform !== 'linux')('through a proxy', () => {
  let sandbox: TestSandbox;
  let proxy: ProxyProcess;
  let baseUrl: string;
  let target: string;
  beforeAll(async () => {
    sandbox = await startTestSandbox({ host: NOT_LISTED });
    baseUrl = sandbox.baseUrl;
    target = new URL(baseUrl).host;
    proxy = await startTinyproxy();
  });
  afterAll(async () => {
    await proxy?.stop();
    await sandbox?.stop();
  });
  const env = (extra: Record<string, string>) => ({
    SIGN_BASE_URL: baseUrl,
    SIGN_API_KEY: sandbox.apiKey,
    ...extra,
  });

  it('creates an envelope and lists keys through HTTP_PROXY: the proxy logged both', async () => {
    const before = proxy.requests().length;
    const created = await runCommand(['envelopes', 'create', '-f', workspace().unique(), '--json'], {
      env: env({ HTTP_PROXY: proxy.url }),
    });
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout).envelope.id).toMatch(/^env_/);
    const keys = await runCommand(['keys', 'list', '--json'], { env: env({ http_proxy: proxy.url }) });
    expect(keys.code, keys.stderr).toBe(0);
    // undici tunnels through the proxy (CONNECT) for http:// too: one tunnel per run here.
    const seen = proxy.requests().slice(before);
    expect(seen).toEqual([`CONNECT ${target}`, `CONNECT ${target}`]);
  });

  it('goes direct for a host in NO_PROXY, and for loopback whatever the proxy', async () => {
    const before = proxy.requests().length;
    const bypassed = await runCommand(['envelopes', 'create', '-f', workspace().unique()], {
      env: env({ HTTP_PROXY: proxy.url, NO_PROXY: `example.com,${NOT_LISTED}` }),
    });
    expect(bypassed.code, bypassed.stderr).toBe(0);
    // A sandbox on 127.0.0.1, with a proxy that does not exist: loopback never goes through it.
    const local = await startTestSandbox();
    try {
      const loopback = await runCommand(['envelopes', 'create', '-f', workspace().unique()], {
        env: { ...local.env, HTTP_PROXY: 'http://127.0.0.1:9' },
      });
      expect(loopback.code, loopback.stderr).toBe(0);
    } finally {
      await local.stop();
    }
    expect(proxy.requests().slice(before)).toEqual([]);
  });

  it('NO_PROXY with `*` anywhere in it goes direct for everything, as doctor says', async () => {
    for (const noProxy of ['*', 'example.com, *']) {
      const before = proxy.requests().length;
      const doctor = await runCommand(['doctor'], { env: env({ HTTP_PROXY: proxy.url, NO_PROXY: noProxy }) });
      expect(doctor.stdout + doctor.stderr).toMatch(
        /proxy\s.*none for 127\.0\.0\.2:\d+ \(loopback or NO_PROXY\): direct/,
      );
      expect(doctor.stdout + doctor.stderr).toMatch(/answers like the signing service/);
      const created = await runCommand(['envelopes', 'create', '-f', workspace().unique()], {
        env: env({ HTTP_PROXY: proxy.url, NO_PROXY: noProxy }),
      });
      expect(created.code, created.stderr).toBe(0);
      // What doctor showed is what happened: neither run went through the proxy.
      expect(proxy.requests().slice(before), `NO_PROXY=${noProxy}`).toEqual([]);
    }
  });

  it('--verbose and doctor name the proxy with its password masked', async () => {
    const withPassword = proxy.url.replace('http://', 'http://alice:s3cret-pw@');
    const verbose = await runCommand(['keys', 'list', '--verbose'], {
      env: env({ HTTP_PROXY: withPassword }),
    });
    expect(verbose.code, verbose.stderr).toBe(0);
    expect(verbose.stderr).toMatch(
      /requests go through the proxy http:\/\/alice:\*\*\*\*@127\.0\.0\.1:\d+ \(HTTP_PROXY\)/,
    );
    const doctor = await runCommand(['doctor'], { env: env({ HTTP_PROXY: withPassword }) });
    expect(doctor.stdout + doctor.stderr).toMatch(
      /proxy\s.*http:\/\/alice:\*\*\*\*@127\.0\.0\.1:\d+ \(from HTTP_PROXY\); the checks below go through it/,
    );
    expect(doctor.stdout + doctor.stderr).toMatch(/answers like the signing service/);
    for (const result of [verbose, doctor]) expect(result.stdout + result.stderr).not.toContain('s3cret-pw');
  });

  it('a proxy variable that is not a URL is exit 2, naming it, and nothing is sent', async () => {
    const before = await sandbox.envelopeCount();
    const result = await runCommand(['envelopes', 'create', '-f', workspace().unique()], {
      env: env({ HTTPS_PROXY: 'ftp://proxy.corp:21', HTTP_PROXY: 'ftp://proxy.corp:21' }),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/HTTP_PROXY: not a proxy URL/);
    expect(await sandbox.envelopeCount()).toBe(before);
  });
});
