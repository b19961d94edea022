/** The inspector's guards as functions: which Host names it, which POSTs are taken; and --inspect's address. */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { inspectAddress } from '../../../src/cli/commands/webhooks/listen-inspect.js';
import { crossSiteRefusal, hostRefusal } from '../../../src/listener/inspector/guard.js';

describe('the Host check', () => {
  const named = (host: string | undefined, name?: string) =>
    hostRefusal(host, { port: 4040, ...(name ? { name } : {}) }) === undefined;

  it('takes an IP address, localhost or the name given, with the port', () => {
    expect(named('127.0.0.1:4040')).toBe(true);
    expect(named('LOCALHOST:4040')).toBe(true);
    expect(named('[::1]:4040')).toBe(true);
    expect(named('192.168.1.20:4040')).toBe(true);
    expect(named('devbox:4040', 'devbox')).toBe(true);
  });

  it('refuses any other name, another port, no port, or none at all', () => {
    expect(named('attacker.example:4040')).toBe(false);
    expect(named('localhost.attacker.example:4040')).toBe(false);
    expect(named('127.0.0.1:4041')).toBe(false);
    expect(named('127.0.0.1')).toBe(false);
    expect(named('devbox:4040')).toBe(false);
    expect(named(undefined)).toBe(false);
    expect(named('127.0.0.1:4040@evil')).toBe(false);
  });
});

describe('POSTs from other sites', () => {
  const request = (headers: Record<string, string>) =>
    ({ headers: { host: '127.0.0.1:4040', ...headers } }) as unknown as IncomingMessage;
  const json = { 'content-type': 'application/json' };

  it("takes a script's JSON, and the inspector's own page", () => {
    expect(crossSiteRefusal(request(json))).toBeUndefined();
    expect(crossSiteRefusal(request({ 'content-type': 'application/json; charset=utf-8' }))).toBeUndefined();
    expect(
      crossSiteRefusal(
        request({ ...json, origin: 'http://127.0.0.1:4040', 'sec-fetch-site': 'same-origin' }),
      ),
    ).toBeUndefined();
  });

  it('refuses what is not JSON, and what a browser says comes from elsewhere', () => {
    expect(crossSiteRefusal(request({ 'content-type': 'text/plain' }))?.status).toBe(415);
    expect(crossSiteRefusal(request({}))?.status).toBe(415);
    expect(crossSiteRefusal(request({ 'content-type': 'application/jsonp' }))?.status).toBe(415);
    expect(crossSiteRefusal(request({ ...json, origin: 'http://localhost:4040' }))?.status).toBe(403);
    expect(crossSiteRefusal(request({ ...json, origin: 'null' }))?.status).toBe(403);
    expect(crossSiteRefusal(request({ ...json, 'sec-fetch-site': 'same-site' }))?.status).toBe(403);
    expect(crossSiteRefusal(request({ ...json, 'sec-fetch-site': 'none' }))?.status).toBe(403);
  });
});

describe("--inspect's address", () => {
  it('reads a port, a host, host:port and [v6]:port; loopback and 4040 when left out', () => {
    expect(inspectAddress(true)).toEqual({ host: '127.0.0.1', port: 4040 });
    expect(inspectAddress('0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(inspectAddress('4041')).toEqual({ host: '127.0.0.1', port: 4041 });
    expect(inspectAddress('0.0.0.0:4042')).toEqual({ host: '0.0.0.0', port: 4042 });
    expect(inspectAddress('[::1]:4043')).toEqual({ host: '::1', port: 4043 });
    expect(inspectAddress('::1')).toEqual({ host: '::1', port: 4040 });
    expect(inspectAddress('localhost:4044')).toEqual({ host: 'localhost', port: 4044, name: 'localhost' });
    expect(inspectAddress('10.0.0.5')).toEqual({ host: '10.0.0.5', port: 4040 });
  });

  it.each(['a b', 'http://127.0.0.1:4040', '1:2:3', ''])('refuses %j', (value) => {
    expect(() => inspectAddress(value)).toThrow(/^--inspect ".*" is not \[host:\]port/);
  });
});
