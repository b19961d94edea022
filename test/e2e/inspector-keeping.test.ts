/**
 * `webhooks listen --inspect` keeping deliveries in SQLite, the built CLI spawned as a user runs
 * it: Ctrl-C at a terminal (the listener's whole process group signalled) still keeps the
 * deliveries that came just before it, and a listener killed outright leaves a file that holds
 * what was kept.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSqlite } from '../../src/listener/inspector/sqlite.js';
import { startListenerProcess, type ListenerProcess } from '../helpers/listener.js';
import { tempDir } from '../helpers/paths.js';
import { env, event, post, signed } from '../helpers/webhook-events.js';

const sqlite = loadSqlite();

/** Waits until the inspector lists a delivery: it lists only what the writer has written. */
async function listed(listener: ListenerProcess): Promise<void> {
  for (let tries = 0; ; tries++) {
    const answer = (await (await fetch(`${listener.inspector}api/deliveries`)).json()) as {
      deliveries: unknown[];
    };
    if (answer.deliveries.length > 0) return;
    if (tries > 1_200) throw new Error('the inspector listed nothing');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const eventIdsIn = (file: string): string[] => {
  const db = new sqlite!.DatabaseSync(file);
  try {
    return db
      .prepare('SELECT event_id FROM deliveries ORDER BY id')
      .all()
      .map((row) => String(row.event_id));
  } finally {
    db.close();
  }
};

describe.runIf(sqlite && process.platform !== 'win32')('the inspector’s SQLite file', () => {
  it('keeps the deliveries that came just before Ctrl-C', async () => {
    const file = join(tempDir(), 'deliveries.sqlite');
    const listener = await startListenerProcess(['--inspect', '0', '--inspect-db', file], env, {
      ownGroup: true,
    });
    const ids: string[] = [];
    for (let n = 0; n < 40; n++) {
      const { id, body } = event(`evt_ctrl_c_${n}`);
      expect((await post(listener.url, body, signed(id, body))).status).toBe(200);
      ids.push(id);
    }
    // At once: the last deliveries are still on their way to the writer when the group is signalled.
    expect(await listener.stop()).toBe(0);
    expect(eventIdsIn(file)).toEqual(ids);
  });

  it('holds what was kept after the listener is killed outright', async () => {
    const file = join(tempDir(), 'deliveries.sqlite');
    const listener = await startListenerProcess(['--inspect', '0', '--inspect-db', file], env);
    const { id, body } = event('evt_before_kill');
    await post(listener.url, body, signed(id, body));
    await listed(listener);
    const exited = new Promise((resolve) => listener.child.once('exit', resolve));
    listener.child.kill('SIGKILL');
    await exited;
    expect(existsSync(file)).toBe(true);
    expect(eventIdsIn(file)).toEqual(['evt_before_kill']);
  });
});
