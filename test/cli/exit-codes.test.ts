import { describe, expect, it } from 'vitest';
import { ExitCode, exitCodeOf } from '../../src/cli/exit-codes.js';
import {
  ApiError,
  AuthError,
  InputParseError,
  InterruptedError,
  NetworkError,
  StorageError,
  UnexpectedResponseError,
  UsageError,
  ValidationError,
} from '../../src/core/errors.js';

describe('exit codes (docs/commands/exit-codes.md)', () => {
  it('maps each error class to its code', () => {
    expect(exitCodeOf(new UsageError('x'))).toBe(ExitCode.usage);
    expect(exitCodeOf(new ValidationError('f.json', [{ path: 'title', message: 'is required' }]))).toBe(2);
    expect(exitCodeOf(new InputParseError('f.json', 1, 2, 'unexpected end'))).toBe(2);
    expect(exitCodeOf(new AuthError('x', 401))).toBe(3);
    expect(exitCodeOf(new ApiError('x', 500, undefined, undefined))).toBe(1);
    expect(exitCodeOf(new NetworkError('x', 'ECONNRESET'))).toBe(1);
    expect(exitCodeOf(new UnexpectedResponseError('x', 200, 'text/html'))).toBe(1);
    expect(exitCodeOf(new StorageError('/tmp/x', 'ENOSPC', 'x'))).toBe(1);
    expect(exitCodeOf(new InterruptedError())).toBe(130);
    expect(exitCodeOf(new Error('plain'))).toBe(1);
    expect(exitCodeOf('not an error')).toBe(1);
  });
});
