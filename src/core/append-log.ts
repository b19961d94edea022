/**
 * Reading an append-only JSON-lines log that a crash may have cut mid-line.
 * The torn tail was never acknowledged; it is cut off, so the next append
 * starts on a line of its own instead of being glued to the fragment (and
 * lost with it at the next replay).
 */
import { existsSync, readFileSync, truncateSync } from 'node:fs';

export function readLog(path: string): string {
  if (!existsSync(path)) return '';
  const text = readFileSync(path, 'utf8');
  if (text === '' || text.endsWith('\n')) return text;
  const whole = text.slice(0, text.lastIndexOf('\n') + 1);
  truncateSync(path, Buffer.byteLength(whole));
  return whole;
}
