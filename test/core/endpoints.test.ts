import { describe, expect, it } from 'vitest';
import {
  ENDPOINTS,
  baseUrlEndsInApi,
  fillPath,
  joinUrl,
  parseBaseUrl,
  resolveEndpoint,
} from '../../src/core/endpoints.js';

describe('joinUrl (docs/service.md, Endpoints: the path is appended to the base URL)', () => {
  it.each([
    ['https://api.example.com', 'https://api.example.com/api/v1/envelopes'],
    ['https://api.example.com/', 'https://api.example.com/api/v1/envelopes'],
    ['https://api.example.com/esign', 'https://api.example.com/esign/api/v1/envelopes'],
    ['https://api.example.com/api', 'https://api.example.com/api/api/v1/envelopes'],
    ['https://api.example.com/api/', 'https://api.example.com/api/api/v1/envelopes'],
    ['http://127.0.0.1:4010', 'http://127.0.0.1:4010/api/v1/envelopes'],
  ])('%s -> %s', (base, expected) => {
    expect(joinUrl(base, ENDPOINTS.createEnvelope.path)).toBe(expected);
  });

  it('tells when the base URL ends in /api', () => {
    expect(baseUrlEndsInApi('https://h/api')).toBe(true);
    expect(baseUrlEndsInApi('https://h/api/')).toBe(true);
    expect(baseUrlEndsInApi('https://h/API')).toBe(true);
    expect(baseUrlEndsInApi('https://h/apis')).toBe(false);
    expect(baseUrlEndsInApi('https://h/api/v2')).toBe(false);
    expect(baseUrlEndsInApi('https://api.example.com')).toBe(false);
  });
});

describe('paths', () => {
  it('fills and encodes parameters', () => {
    expect(fillPath('/api/v1/envelopes/{id}', { id: 'env 1/2' })).toBe('/api/v1/envelopes/env%201%2F2');
    expect(() => fillPath('/x/{id}')).toThrow(/missing path parameter id/);
  });

  it('applies configured overrides and keeps the scope', () => {
    const endpoint = resolveEndpoint('getAuditTrail', { getAuditTrail: '/api/v1/envelopes/{id}/audit' });
    expect(endpoint).toEqual({
      method: 'GET',
      path: '/api/v1/envelopes/{id}/audit',
      scope: 'audit:read',
      label: 'read audit trails',
    });
    expect(resolveEndpoint('createEnvelope').scope).toBe('envelopes:write');
  });
});

describe('parseBaseUrl', () => {
  it('normalises and rejects what cannot be a base URL', () => {
    expect(parseBaseUrl('https://h.example/api/')).toBe('https://h.example/api');
    expect(() => parseBaseUrl('h.example')).toThrow(/not an absolute URL/);
    expect(() => parseBaseUrl('ftp://h.example')).toThrow(/http or https/);
    expect(() => parseBaseUrl('https://h.example/?x=1')).toThrow(/query/);
  });
});
