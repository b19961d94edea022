import { describe, expect, it } from 'vitest';
import { InputParseError } from '../../src/core/errors.js';
import { lineColumn, locateJsonError, parseJsonText } from '../../src/core/envelope/json-source.js';

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

describe('what JSON.parse lets through', () => {
  it('refuses a key given twice in one object, naming it and both places', () => {
    const error = failure('{\n  "title": 5,\n  "title": "Lease"\n}');
    expect([error.line, error.column]).toEqual([3, 3]);
    expect(error.message).toContain('duplicate key "title" (first at line 2, column 3)');
    const signer = failure('{"signers":[{"channel":"whatsapp","name":"A","channel":"email"}]}');
    expect(signer.message).toContain('duplicate key "channel"');
    // The same key spelt with an escape is the same key.
    expect(failure('{"title":"a","t\\u0069tle":"b"}').message).toContain('duplicate key "title"');
    // The same key in different objects is fine.
    expect(parseJsonText('{"a":{"x":1},"b":{"x":2},"c":[{"x":1},{"x":2}]}', 'f')).toEqual({
      a: { x: 1 },
      b: { x: 2 },
      c: [{ x: 1 }, { x: 2 }],
    });
  });

  it('refuses nesting deeper than 64 levels without ever recursing, even 100,000 levels', () => {
    const deep = `{"title":${'['.repeat(100_000)}`;
    const error = failure(deep);
    expect(error.message).toContain('nested deeper than 64 levels');
    // The 65th container: the object, then the 64th bracket, at offset 9 + 63.
    expect([error.line, error.column]).toEqual([1, 9 + 63 + 1]);
    expect(locateJsonError(`${'['.repeat(200_000)}${']'.repeat(200_000)}`)).toBe(-1);
    expect(parseJsonText(`${'['.repeat(64)}${']'.repeat(64)}`, 'f')).toBeDefined();
  });

  it('agrees with JSON.parse on valid and broken documents (generated)', () => {
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const value = (depth: number): unknown => {
      const r = random();
      if (depth > 4 || r < 0.3) return [1.5e-3, -0, 'x\u00e9\\"\n', true, null, 42][Math.floor(random() * 6)];
      if (r < 0.65) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      return Object.fromEntries(
        Array.from({ length: Math.floor(random() * 4) }, (_, i) => [`k${i}`, value(depth + 1)]),
      );
    };
    for (let n = 0; n < 300; n++) {
      const text = JSON.stringify(value(0), null, n % 2 === 0 ? 2 : undefined);
      expect(locateJsonError(text)).toBe(-1);
      // Cut or corrupted: the scan says broken exactly when JSON.parse does.
      const cut = text.slice(0, Math.floor(random() * text.length));
      const corrupted = text.replace(/[,:\]}]/, ';');
      for (const broken of [cut, corrupted]) {
        let parses = true;
        try {
          JSON.parse(broken);
        } catch {
          parses = false;
        }
        expect(locateJsonError(broken) === -1).toBe(parses);
      }
    }
  });
});
