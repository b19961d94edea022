/** The one place a store URL is made safe to show: its password and its credential query values masked. */
import { describe, expect, it } from 'vitest';
import { rateStoreSecrets, showRateStoreUrl } from '../../src/core/pacing/rate-store-url.js';

describe('showRateStoreUrl', () => {
  it.each([
    ['redis://127.0.0.1:6379/0', 'redis://127.0.0.1:6379/0'],
    ['redis://:s3cret@127.0.0.1:6379', 'redis://:****@127.0.0.1:6379'],
    ['redis://127.0.0.1:6379/?password=s3cret', 'redis://127.0.0.1:6379/?password=****'],
    ['rediss://cache.internal/0?Password=s3cret&db=2', 'rediss://cache.internal/0?Password=****&db=2'],
    ['redis://u:p4ss@h/?auth_token=t0k&protocol=3', 'redis://u:****@h/?auth_token=****&protocol=3'],
    // Not a URL (an unencoded "#" ends it early, a space): masked all the same.
    ['redis://h /?password=s3cret&db=1', 'redis://h /?password=****&db=1'],
    ['redis://:a/b@c@h:6379 x', 'redis://****@h:6379 x'],
  ])('%s → %s', (url, shown) => {
    expect(showRateStoreUrl(url)).toBe(shown);
  });
});

describe('rateStoreSecrets', () => {
  it('gives every secret a URL holds, for the output to mask wherever the raw URL shows', () => {
    expect(rateStoreSecrets('redis://127.0.0.1:6379/0')).toEqual([]);
    expect(rateStoreSecrets('redis://:s3cret%40x@h')).toEqual(['s3cret@x']);
    expect(rateStoreSecrets('redis://h/?password=s3cret&db=1')).toEqual(['s3cret']);
    expect(rateStoreSecrets('redis://h /?password=s3cret&db=1')).toEqual(['s3cret']);
  });
});
