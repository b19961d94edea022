/**
 * Hints a newcomer needs: a base URL that is a web server but not the service is named so by
 * create (as doctor does), and the habits of gh get a pointer to sign-cli's own way.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE } from '../helpers/envelopes.js';
import { tempDir } from '../helpers/paths.js';
import { runCommand } from '../helpers/in-process.js';

let web: Server;
let baseUrl = '';
beforeAll(async () => {
  // A web server at the wrong base URL: HTML for everything, as a dev server or a site answers.
  web = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(request.method === 'POST' ? 501 : 404, {
        'content-type': 'text/html;charset=utf-8',
      });
      response.end(
        '<!DOCTYPE html><html><head><title>Error response</title></head><body><h1>Error response</h1></body></html>',
      );
    });
  });
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(web.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => web.close(resolve));
});

const KEY = 'sk_test_newcomerhints00000000000000000abcd';

describe('a base URL that answers, but not like the signing service', () => {
  it('create says so, names the base URL to check, and that sending again cannot duplicate', async () => {
    const result = await runCommand(['envelopes', 'create', '-f', EXAMPLE, '--retries', '0'], {
      env: { SIGN_BASE_URL: baseUrl, SIGN_API_KEY: KEY, SIGN_STATE_DIR: tempDir() },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'create envelope: HTTP 501 (text/html;charset=utf-8) with "<!DOCTYPE html><html><head><title>Error response</title></he"…, not like the signing service, whose errors are JSON',
    );
    expect(result.stderr).toContain(
      `is ${baseUrl} the signing service? check --base-url, SIGN_BASE_URL or the profile's base URL; it was sent with Idempotency-Key`,
    );
    expect(result.stderr).not.toContain('the service failed');
  });

  it('get says so for its 404 page too', async () => {
    const result = await runCommand(['envelopes', 'get', 'env_x'], {
      env: { SIGN_BASE_URL: baseUrl, SIGN_API_KEY: KEY },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /HTTP 404 \(text\/html;charset=utf-8\) with .*not like the signing service/,
    );
  });
});
