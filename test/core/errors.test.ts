import { describe, expect, it } from 'vitest';
import { parseErrorBody } from '../../src/core/errors.js';

describe('parseErrorBody reads any error body shape', () => {
  it.each([
    [
      '{"code":"validation_failed","message":"title is required"}',
      'application/json',
      { code: 'validation_failed', message: 'title is required' },
    ],
    ['{"error":"invalid_api_key"}', 'application/json', { message: 'invalid_api_key' }],
    [
      '{"error":{"code":"rate_limited","message":"slow down"}}',
      'application/json',
      { code: 'rate_limited', message: 'slow down' },
    ],
    ['{"detail":"Key expired"}', 'application/json', { message: 'Key expired' }],
    [
      '{"type":"https://example.com/probs/scope","title":"Forbidden","detail":"missing envelopes:write","status":403}',
      'application/problem+json',
      { code: 'https://example.com/probs/scope', message: 'Forbidden: missing envelopes:write' },
    ],
    ['{"type":"about:blank","title":"Not Found"}', 'application/problem+json', { message: 'Not Found' }],
    [
      '{"errors":[{"code":"bad","message":"phone is invalid"}]}',
      'application/json',
      { code: 'bad', message: 'phone is invalid', details: [{ code: 'bad', message: 'phone is invalid' }] },
    ],
    ['Service Unavailable\nretry later', 'text/plain', { message: 'Service Unavailable' }],
    ['<html><head><title>502 Bad Gateway</title></head></html>', 'text/html', { message: '502 Bad Gateway' }],
    ['{not json', 'application/json', { message: '{not json' }],
    ['', 'application/json', {}],
  ])('%s', (body, type, expected) => {
    expect(parseErrorBody(body, type)).toEqual(expected);
  });
});
