/** The fields of `sign-cli api`: typed values, nested keys, appends, conflicts. */
import { describe, expect, it } from 'vitest';
import { buildBody, queryOf, rawField, typedField } from '../../src/cli/commands/api/fields.js';

const typed = (text: string) => typedField(text, async (path) => `contents of ${path}`);

describe('api fields', () => {
  it('-f is a string; -F is true, false, null, a number, a file, or else a string', async () => {
    expect(rawField('n=5')).toEqual({ key: 'n', value: '5' });
    expect(rawField('a=b=c')).toEqual({ key: 'a', value: 'b=c' });
    expect(
      await Promise.all(
        ['a=true', 'a=false', 'a=null', 'a=-3.5', 'a=1e3', 'a=007', 'a=@x.txt', 'a=text'].map(typed),
      ),
    ).toEqual([
      { key: 'a', value: true },
      { key: 'a', value: false },
      { key: 'a', value: null },
      { key: 'a', value: -3.5 },
      { key: 'a', value: 1000 },
      { key: 'a', value: '007' },
      { key: 'a', value: 'contents of x.txt' },
      { key: 'a', value: 'text' },
    ]);
    expect(() => rawField('novalue')).toThrow(/-f novalue: not key=value/);
    expect(() => rawField('=x')).toThrow(/not key=value/);
  });

  it('nests by brackets and dots; [] appends, filling one element until a key repeats', () => {
    const body = buildBody([
      { key: 'document.template_id', value: 'tpl' },
      { key: 'document[version]', value: 3 },
      { key: 'signers[][name]', value: 'Layla' },
      { key: 'signers[][channel]', value: 'email' },
      { key: 'signers[][name]', value: 'Omar' },
      { key: 'tags[]', value: 'a' },
      { key: 'tags[]', value: 'b' },
      { key: 'orders[1]', value: 2 },
    ]);
    expect(body).toEqual({
      document: { template_id: 'tpl', version: 3 },
      signers: [{ name: 'Layla', channel: 'email' }, { name: 'Omar' }],
      tags: ['a', 'b'],
      orders: [undefined, 2],
    });
  });

  it('refuses keys that contradict each other or are malformed', () => {
    expect(() =>
      buildBody([
        { key: 'a', value: 1 },
        { key: 'a.b', value: 2 },
      ]),
    ).toThrow(/conflicts/);
    expect(() =>
      buildBody([
        { key: 'a[0]', value: 1 },
        { key: 'a.b', value: 2 },
      ]),
    ).toThrow(/conflicts/);
    expect(() => buildBody([{ key: '[0]', value: 1 }])).toThrow(/starts with a name/);
    expect(() => buildBody([{ key: 'a[0', value: 1 }])).toThrow(/brackets/);
  });

  it('as a query, keys stay as written and values are text', () => {
    expect(
      queryOf([
        { key: 'status', value: 'sent' },
        { key: 'status', value: 'completed' },
        { key: 'limit', value: 5 },
        { key: 'x', value: null },
      ]),
    ).toEqual({ status: ['sent', 'completed'], limit: ['5'], x: [''] });
  });
});
