/**
 * `webhooks listen --save-dir <dir>`: each delivery kept exactly as it was
 * received, one file each, in the raw HTTP form `webhooks verify
 * --request-file` reads (request line, headers as sent, blank line, body
 * bytes). Verified and refused deliveries alike: a refused one is the one
 * worth looking at later. Files are the user's alone (0600; the directory
 * 0700 when made here) and are never overwritten.
 */
import { mkdirSync, openSync, closeSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock, type Clock } from '../core/clock.js';

export interface ReceivedDelivery {
  method: string;
  /** The request target as sent (path and query). */
  url: string;
  httpVersion: string;
  /** Names and values as they came, in order (node's rawHeaders). */
  rawHeaders: readonly string[];
  body: Buffer;
  /** The delivery's id (webhook-id or the scheme's equivalent), when it carried one. */
  id: string | undefined;
}

/** An id as a file name part: letters, digits, `_`, `-` and `.`, at most 80 of them. */
const safeName = (text: string): string => text.replace(/[^\w.-]/g, '_').slice(0, 80);

export class DeliveryCapture {
  private count = 0;

  constructor(
    readonly dir: string,
    /** Names the files by when they were received. */
    private readonly clock: Pick<Clock, 'now'> = systemClock,
  ) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  /** Writes one delivery; returns the file's path. */
  save(delivery: ReceivedDelivery): string {
    this.count++;
    const lines = [`${delivery.method} ${delivery.url} HTTP/${delivery.httpVersion}`];
    let chunked = false;
    for (let i = 0; i + 1 < delivery.rawHeaders.length; i += 2) {
      const name = delivery.rawHeaders[i]!;
      // The body is kept decoded from its chunks: the file says how long it is instead.
      if (name.toLowerCase() === 'transfer-encoding') {
        chunked = true;
        continue;
      }
      lines.push(`${name}: ${delivery.rawHeaders[i + 1]}`);
    }
    if (chunked) lines.push(`Content-Length: ${delivery.body.length}`);
    const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
    const stamp = new Date(this.clock.now())
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z');
    const path = join(
      this.dir,
      `${stamp}-${String(this.count).padStart(6, '0')}-${safeName(delivery.id ?? 'no-id')}.http`,
    );
    // 'wx': a file already there (a name reused across runs) is never overwritten.
    const fd = openSync(path, 'wx', 0o600);
    try {
      writeSync(fd, head);
      writeSync(fd, delivery.body);
    } finally {
      closeSync(fd);
    }
    return path;
  }
}
