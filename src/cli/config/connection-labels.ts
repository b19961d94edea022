/**
 * What a command says of a resolved connection's key: its environment and its masked label.
 * Apart from connection.ts, which resolves connections: the command context answers these
 * for any command, and connection.ts (settings, key files, profiles) loads only with the
 * first connection.
 */
import { maskKey } from '../../core/keys.js';
import { environmentOfKey } from '../../core/service-identity.js';
import type { Connection } from './connection.js';

/**
 * The environment the connection's key belongs to (`live`, `test`): the
 * profile's stored metadata (from the service's listing), else the key's
 * prefix (`sk_live_…`); null when neither says.
 */
export function environmentOf(connection: Connection): string | null {
  if (!connection.apiKey) return null;
  return connection.keyProfile?.environment ?? environmentOfKey(connection.apiKey) ?? null;
}

/** How errors and warnings name the key: its profile when it has one, always masked. */
export function keyLabel(connection: Connection): string {
  const masked = connection.apiKey ? maskKey(connection.apiKey) : '(none)';
  return connection.profileName ? `${masked} (profile ${connection.profileName})` : masked;
}
