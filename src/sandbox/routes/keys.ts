/**
 * The API keys resource (docs/service.md, Authentication and keys): the account's keys of every
 * environment, masked.
 */
import { sendJson } from '../http.js';
import { accountOf } from '../store/realm.js';
import { listedKey } from './resources.js';
import type { Route, SandboxServices } from '../http/services.js';

export function keyRoutes({ store }: SandboxServices): Route[] {
  return [
    {
      operation: 'listApiKeys',
      method: 'GET',
      // A dashboard shows test and live keys side by side.
      handle: ({ res, key }) =>
        sendJson(res, 200, {
          object: 'list',
          data: [...store.keys.values()].filter((k) => accountOf(k) === accountOf(key)).map(listedKey),
        }),
    },
  ];
}
