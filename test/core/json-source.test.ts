import { describe, expect, it } from 'vitest';
import { InputParseError } from '../../src/core/errors.js';
import { lineColumn, locateJsonError, parseJsonText } from '../../src/core/json-source.js';

function failure(text: string): InputParseError {
  try {
    parseJsonText(text, 'f.json');
  } catch (error) {
    return error as InputParseError;
  }
  throw new Error('expected a parse error');
}

describe('JSON errors carry line and column', () => {
  it.each([
    ['{\n  "title": "x",\n}', 3, 1],
    ['{\n  "title": "x"\n  "contract_id": "y"\n}', 3, 3],
    ['{\n  "a": tru\n}', 2, 11],
    ['{"a": 1', 1, 8],
    ['', 1, 1],
    ['{"a": "unterminated\n}', 1, 20],
    ["{'a': 1}", 1, 2],
    ['{"a": 1} trailing', 1, 10],
    ['{"a": 01}', 1, 8],
  ])('%j -> line %i column %i', (text, line, column) => {
    const error = failure(text);
    expect(error).toBeInstanceOf(InputParseError);
    expect([error.line, error.column]).toEqual([line, column]);
    expect(error.message).toContain(`f.json:${line}:${column}`);
  });

  it('parses valid JSON, with or without a byte order mark', () => {
    expect(parseJsonText('\ufeff{"a":[1,true,null,"\\u00e9"]}', 'x')).toEqual({ a: [1, true, null, 'é'] });
    expect(locateJsonError('{"a": [1, 2.5e3, -0, "x\\n"]}')).toBe(-1);
  });

  it('counts lines from one', () => {
    expect(lineColumn('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
  });
});
