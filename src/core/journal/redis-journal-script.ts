/**
 * The shared create journal's one Lua script (redis-journal.ts explains the
 * journal): Redis runs each operation atomically, so two runners can never
 * both claim an input, and an entry, its contract index and the journal's
 * last write time change together.
 */
import { defineScript } from '@redis/client';
import type { CommandParser } from '@redis/client/dist/lib/client/parser.js';

/**
 * Four keys, always the same journal's (one hash tag, so a Redis Cluster
 * keeps them in one slot): entries, contracts, meta, and one input's claim.
 * Operations (ARGV[1]):
 * - take (id, runner, lease ms): claims the input unless another runner holds
 *   it; returns {'mine'|'busy', the input's entries as JSON or '', ms left on
 *   the other runner's claim}
 * - record (id, fingerprint, entry JSON, retention ms, contract field or '',
 *   '1' to release the claim, runner): writes the entry under its key's
 *   fingerprint, keeps the journal at least the retention from now; returns
 *   'ok', 'kept' (a `created` entry is never replaced by another state), or
 *   'not_claimed' (`sending` from a runner that no longer holds the claim)
 * - renew (runner, lease ms): extends this runner's claim; 1, or 0 when it is
 *   no longer this runner's (it expired and another runner took it)
 * - release (runner): gives the claim back if it is still this runner's
 * - open (service, environment, retention ms): names the journal (for
 *   `journal list`) and keeps it for the retention from now
 */
const JOURNAL_SCRIPT = `
local entries, contracts, meta, claim = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local op = ARGV[1]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
-- Only ever later: one runner's shorter retention never cuts the others' journal short.
local function keep(key, ms)
  local left = redis.call('PTTL', key)
  if left == -1 or (left >= 0 and left < tonumber(ms)) then redis.call('PEXPIRE', key, ms) end
end
if op == 'take' then
  local holder = redis.call('GET', claim)
  local current = redis.call('HGET', entries, ARGV[2]) or ''
  if holder and holder ~= ARGV[3] then
    return {'busy', current, redis.call('PTTL', claim)}
  end
  redis.call('SET', claim, ARGV[3], 'PX', ARGV[4])
  return {'mine', current, 0}
elseif op == 'record' then
  local entry = cjson.decode(ARGV[4])
  -- The promise before sending is made only by the claim's holder: a runner whose claim ran out
  -- (it stalled) must not send, since another runner has the input now.
  if entry.state == 'sending' and redis.call('GET', claim) ~= ARGV[8] then return 'not_claimed' end
  local current = redis.call('HGET', entries, ARGV[2])
  local byKey = {}
  if current then byKey = cjson.decode(current) end
  local previous = byKey[ARGV[3]]
  local result = 'ok'
  if previous and previous.state == 'created' and entry.state ~= 'created' then
    -- Created stays created: a late write of a stalled runner never makes it look unsent.
    result = 'kept'
  else
    byKey[ARGV[3]] = entry
    redis.call('HSET', entries, ARGV[2], cjson.encode(byKey))
    if ARGV[6] ~= '' then redis.call('HSET', contracts, ARGV[6], ARGV[4]) end
  end
  redis.call('HSET', meta, 'updated', now)
  keep(entries, ARGV[5])
  keep(meta, ARGV[5])
  if redis.call('EXISTS', contracts) == 1 then keep(contracts, ARGV[5]) end
  if ARGV[7] == '1' and redis.call('GET', claim) == ARGV[8] then redis.call('DEL', claim) end
  return result
elseif op == 'renew' then
  if redis.call('GET', claim) == ARGV[2] then
    redis.call('PEXPIRE', claim, ARGV[3])
    return 1
  end
  return 0
elseif op == 'release' then
  if redis.call('GET', claim) == ARGV[2] then redis.call('DEL', claim) end
  return 'ok'
elseif op == 'open' then
  redis.call('HSET', meta, 'service', ARGV[2], 'environment', ARGV[3])
  redis.call('HSETNX', meta, 'created', now)
  if redis.call('HEXISTS', meta, 'updated') == 0 then redis.call('HSET', meta, 'updated', now) end
  keep(meta, ARGV[4])
  if redis.call('EXISTS', entries) == 1 then keep(entries, ARGV[4]) end
  if redis.call('EXISTS', contracts) == 1 then keep(contracts, ARGV[4]) end
  return 'ok'
end
return redis.error_reply('unknown operation ' .. tostring(op))
`;

export const journalScript = defineScript({
  SCRIPT: JOURNAL_SCRIPT,
  NUMBER_OF_KEYS: 4,
  parseCommand(
    parser: CommandParser,
    keys: readonly [string, string, string, string],
    args: readonly string[],
  ) {
    for (const key of keys) parser.pushKey(key);
    parser.push(...args);
  },
  transformReply: (reply: unknown) => reply,
});
