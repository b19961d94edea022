/**
 * The shared rate budget's one Lua script (shared-budget.ts explains the
 * budget): Redis runs it atomically, so the runners never race for a slot.
 */
import { defineScript } from '@redis/client';
import type { CommandParser } from '@redis/client/dist/lib/client/parser.js';

/** The window the service counts in (docs/service.md, Limits: per minute). */
export const BUDGET_WINDOW_MS = 60_000;

/**
 * One script, six operations (ARGV[1]):
 * - take: hand out the next slot (ARGV: limit, interval, slot id, runner id, active ms);
 *   returns {ms to wait, runners sharing}
 * - confirm: at the slot, is a pause (a 429 elsewhere) in force? if so the slot
 *   is given back; returns ms of pause left (0 = go)
 * - pause: nobody gets a slot for ARGV[2] ms; returns the ms of pause in force
 * - release: give back an unused slot (an interrupted wait)
 * - leave: this runner is done (a clean exit): no share is kept for it
 * - peek: {slots in the window, runners, pause left}, for `doctor`
 */
const BUDGET_SCRIPT = `
local slots, pause, runners = KEYS[1], KEYS[2], KEYS[3]
local op = ARGV[1]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = ${BUDGET_WINDOW_MS}
local paused = tonumber(redis.call('GET', pause) or '0')
if op == 'take' then
  local limit, interval, member, runner = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[5]
  redis.call('ZADD', runners, now, runner)
  redis.call('ZREMRANGEBYSCORE', runners, '-inf', now - window)
  redis.call('PEXPIRE', runners, window)
  -- A runner seen lately but silent now may have lost the store and be pacing alone at its
  -- share (1/N): the others space their slots wider to keep that share for it. Only the
  -- spacing: a lower count limit would count its earlier slots, still in the log, twice,
  -- and push the next slot up to a window ahead.
  local recent = redis.call('ZCARD', runners)
  local active = redis.call('ZCOUNT', runners, now - math.max(tonumber(ARGV[6]), 3 * recent * interval), '+inf')
  if active < recent then interval = interval * recent / active end
  redis.call('ZREMRANGEBYSCORE', slots, '-inf', now - window)
  local slot = math.max(now, paused)
  local last = redis.call('ZRANGE', slots, -1, -1, 'WITHSCORES')
  if last[2] then slot = math.max(slot, tonumber(last[2]) + interval) end
  local held = redis.call('ZRANGEBYSCORE', slots, '(' .. (slot - window), '+inf', 'WITHSCORES')
  local count = #held / 2
  if count >= limit then slot = tonumber(held[(count - limit) * 2 + 2]) + window end
  slot = math.ceil(slot)
  redis.call('ZADD', slots, slot, member)
  redis.call('PEXPIRE', slots, slot - now + window)
  return {slot - now, recent}
elseif op == 'confirm' then
  if paused > now then
    redis.call('ZREM', slots, ARGV[2])
    return paused - now
  end
  return 0
elseif op == 'pause' then
  local untilMs = now + tonumber(ARGV[2])
  if untilMs > paused then
    redis.call('SET', pause, untilMs, 'PX', math.max(1, tonumber(ARGV[2])))
    paused = untilMs
  end
  return paused - now
elseif op == 'release' then
  return redis.call('ZREM', slots, ARGV[2])
elseif op == 'leave' then
  return redis.call('ZREM', runners, ARGV[2])
elseif op == 'peek' then
  redis.call('ZREMRANGEBYSCORE', runners, '-inf', now - window)
  return {redis.call('ZCOUNT', slots, '(' .. (now - window), '+inf'), redis.call('ZCARD', runners), math.max(0, paused - now)}
end
return redis.error_reply('unknown operation ' .. tostring(op))
`;

export const budgetScript = defineScript({
  SCRIPT: BUDGET_SCRIPT,
  NUMBER_OF_KEYS: 3,
  parseCommand(parser: CommandParser, keys: readonly [string, string, string], args: readonly string[]) {
    for (const key of keys) parser.pushKey(key);
    parser.push(...args);
  },
  transformReply: (reply: unknown) => reply,
});
