/**
 * Reading and writing an append-only JSON-lines log that a crash may have cut
 * mid-line. The torn tail was never acknowledged; it is cut off (by bytes, so
 * text that is not UTF-8 cannot shift the cut), and the next append starts on
 * a line of its own instead of being glued to the fragment.
 */
import { existsSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';

export function readLog(path: string): string {
  if (!existsSync(path)) return '';
  const bytes = readFileSync(path);
  if (bytes.length === 0 || bytes[bytes.length - 1] === 0x0a) return bytes.toString('utf8');
  const whole = bytes.lastIndexOf(0x0a) + 1;
  truncateSync(path, whole);
  return bytes.subarray(0, whole).toString('utf8');
}

/**
 * Writes all of `text` at the file's position: writeFileSync on a descriptor
 * loops over short writes and throws when the disk is full, where a bare
 * writeSync can write part of a line and say nothing.
 */
export function writeAll(fd: number, text: string): void {
  writeFileSync(fd, text);
}
