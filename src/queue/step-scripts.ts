/**
 * The step scheduler's Lua scripts (`step-worker.ts`, `step-lane.ts`): each runs atomically on Redis, so a job is always
 * in exactly one place. Keys of a lane, under `<prefix>:<lane>:steps:`: `due` (sorted set, id → due time: waiting and delayed jobs),
 * `lease` (sorted set, id → lease end: running jobs), `jobs` (hash, id → entry), `failed` (sorted set, id → when)
 * and `failures` (hash, id → failure). An entry is `tries|takeovers|readyAt|token|json`: the step's tries made and
 * take-overs, when it became due, the claim holding it (empty while not running) and the job's data as JSON (never
 * decoded here, so it comes back byte for byte). A failure is `attempts|errorBytes|<error><json>`.
 */

/** Why an entry this release does not read (another release wrote it in another form) failed: its lane goes on. */
export const UNREADABLE_ERROR = 'its entry no longer reads: another version of the app wrote it';

/**
 * Helpers every script shares. Leases are dated by Redis' own clock (`TIME`), as a script runs: a script a worker
 * sent before Redis hung runs when it answers, and dated by the worker's clock it would find the leases it set
 * itself lapsed and count a take-over each (a hang of a few lock periods failed the steps of a worker that lived).
 */
const COMMON = `
local function serverNow()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local function apply(command, key, list)
  if #list > 0 then redis.call(command, key, unpack(list)) end
end
local function split(entry)
  return string.match(entry, '^(%d+)|(%d+)|(%d+)|([^|]*)|(.*)$')
end
local function fail(failedKey, failuresKey, keep, minAt, scores, records)
  redis.call('ZADD', failedKey, unpack(scores))
  redis.call('HSET', failuresKey, unpack(records))
  local old = redis.call('ZRANGEBYSCORE', failedKey, '-inf', '(' .. minAt)
  local excess = redis.call('ZCARD', failedKey) - tonumber(keep)
  if excess > 0 then
    for _, id in ipairs(redis.call('ZRANGE', failedKey, 0, excess - 1)) do old[#old + 1] = id end
  end
  if #old > 0 then
    redis.call('ZREM', failedKey, unpack(old))
    redis.call('HDEL', failuresKey, unpack(old))
  end
end
`;

/**
 * Adds a job unless its id is waiting, delayed or running (then nothing changes); a failed job of that id leaves the
 * failed set for it. An added job is announced as the lane's name on the wake channel, when one is given (the
 * workers of other processes then claim it at once). KEYS: jobs, due, failed, failures. ARGV: id, entry, dueAt,
 * wake channel or '', lane. Returns 1 when added.
 */
export const ADD = `
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
if redis.call('ZREM', KEYS[3], ARGV[1]) == 1 then redis.call('HDEL', KEYS[4], ARGV[1]) end
if ARGV[4] ~= '' then redis.call('PUBLISH', ARGV[4], ARGV[5]) end
return 1
`;

/**
 * One round trip of a worker: settles the steps it finished, then claims up to `limit` due jobs. A settle applies only
 * while the job is still held by the claim that ran it (a job taken over meanwhile is the new holder's). A claimed
 * job is leased until `leaseUntil`; one whose lease lapsed (its worker died or hung) is taken over, counted against
 * its step, and failed without running past `maxTakeovers`; one whose entry does not read fails at once.
 * KEYS: due, lease, jobs, failed, failures. ARGV: lockMs, limit, token, maxTakeovers, failedKeep, failedMinAt,
 * stalledError, n, then n × (id, token, kind: again|retry|back|done|fail, dueAt, entry or failure).
 * Returns { settled flags, claimed (id, entry, tookOver), unrun (id, tries, json), next due or lease end, ids of
 * unreadable entries }.
 */
export const CYCLE = `${COMMON}
local UNREADABLE = '${UNREADABLE_ERROR}'
local now = serverNow()
local leaseUntil = now + tonumber(ARGV[1])
local n = tonumber(ARGV[8])
local settled = {}
local fscores, frecords = {}, {}
if n > 0 then
  local ids = {}
  for i = 1, n do ids[i] = ARGV[8 + (i - 1) * 5 + 1] end
  local current = redis.call('HMGET', KEYS[3], unpack(ids))
  local unlease, hdel, hset, zdue = {}, {}, {}, {}
  for i = 1, n do
    local base = 8 + (i - 1) * 5
    local id, token, kind, at, payload = ARGV[base + 1], ARGV[base + 2], ARGV[base + 3], ARGV[base + 4], ARGV[base + 5]
    local holder = current[i] and select(4, split(current[i]))
    settled[i] = holder == token and 1 or 0
    if holder == token then
      unlease[#unlease + 1] = id
      if kind == 'done' or kind == 'fail' then hdel[#hdel + 1] = id else
        hset[#hset + 1] = id; hset[#hset + 1] = payload
        zdue[#zdue + 1] = at; zdue[#zdue + 1] = id
      end
      if kind == 'fail' then
        fscores[#fscores + 1] = now; fscores[#fscores + 1] = id
        frecords[#frecords + 1] = id; frecords[#frecords + 1] = payload
      end
    end
  end
  apply('ZREM', KEYS[2], unlease)
  apply('HDEL', KEYS[3], hdel)
  apply('HSET', KEYS[3], hset)
  apply('ZADD', KEYS[1], zdue)
end
local limit = tonumber(ARGV[2])
local claimed, unrun, unreadable = {}, {}, {}
if limit > 0 then
  local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, limit)
  local stalled = #ids
  if stalled < limit then
    for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, limit - stalled)) do
      ids[#ids + 1] = id
    end
  end
  if #ids > 0 then
    local entries = redis.call('HMGET', KEYS[3], unpack(ids))
    local undue, unlease, lease, hset, hdel = {}, {}, {}, {}, {}
    for i, id in ipairs(ids) do
      local tookOver = i <= stalled
      if not tookOver then undue[#undue + 1] = id end
      local tries, takeovers, readyAt, _, json
      if entries[i] then tries, takeovers, readyAt, _, json = split(entries[i]) end
      if entries[i] and not json then
        unlease[#unlease + 1] = id; hdel[#hdel + 1] = id
        fscores[#fscores + 1] = now; fscores[#fscores + 1] = id
        frecords[#frecords + 1] = id
        frecords[#frecords + 1] = '0|' .. #UNREADABLE .. '|' .. UNREADABLE .. entries[i]
        unreadable[#unreadable + 1] = id
      elseif entries[i] then
        takeovers = tonumber(takeovers) + (tookOver and 1 or 0)
        if takeovers > tonumber(ARGV[4]) then
          unlease[#unlease + 1] = id; hdel[#hdel + 1] = id
          fscores[#fscores + 1] = now; fscores[#fscores + 1] = id
          frecords[#frecords + 1] = id
          frecords[#frecords + 1] = tries .. '|' .. #ARGV[7] .. '|' .. ARGV[7] .. json
          unrun[#unrun + 1] = { id, tries, json }
        else
          local entry = tries .. '|' .. takeovers .. '|' .. readyAt .. '|' .. ARGV[3] .. '|' .. json
          hset[#hset + 1] = id; hset[#hset + 1] = entry
          lease[#lease + 1] = leaseUntil; lease[#lease + 1] = id
          claimed[#claimed + 1] = { id, entry, tookOver and 1 or 0 }
        end
      elseif tookOver then
        unlease[#unlease + 1] = id -- its entry is gone (the store lost data): nothing to run
      end
    end
    apply('ZREM', KEYS[1], undue)
    apply('ZREM', KEYS[2], unlease)
    apply('HDEL', KEYS[3], hdel)
    apply('HSET', KEYS[3], hset)
    apply('ZADD', KEYS[2], lease)
  end
end
if #fscores > 0 then fail(KEYS[4], KEYS[5], ARGV[5], ARGV[6], fscores, frecords) end
local nextAt = ''
if #claimed < limit then
  local due = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  local lease = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  local soonest = math.min(tonumber(due[2] or '1e300'), tonumber(lease[2] or '1e300'))
  if soonest < 1e300 then nextAt = tostring(soonest) end
end
return { settled, claimed, unrun, nextAt, unreadable }
`;

/** Extends the leases still held by their claims. KEYS: lease, jobs. ARGV: lockMs, then (id, token) pairs. */
export const RENEW = `${COMMON}
local leaseUntil = serverNow() + tonumber(ARGV[1])
local ids, tokens = {}, {}
for i = 2, #ARGV, 2 do ids[#ids + 1] = ARGV[i]; tokens[#tokens + 1] = ARGV[i + 1] end
local entries = redis.call('HMGET', KEYS[2], unpack(ids))
local lease = {}
for i, id in ipairs(ids) do
  if entries[i] and select(4, split(entries[i])) == tokens[i] then
    lease[#lease + 1] = leaseUntil; lease[#lease + 1] = id
  end
end
if #lease > 0 then redis.call('ZADD', KEYS[1], 'XX', unpack(lease)) end
return #lease / 2
`;

/**
 * A failed job back in the lane with all its tries (an operator's retry). KEYS: failed, failures, jobs, due.
 * ARGV: id, now. Returns 1 when there was such a failed job.
 */
export const RETRY_FAILED = `
local failure = redis.call('HGET', KEYS[2], ARGV[1])
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 or not failure then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
local _, bytes, rest = string.match(failure, '^(%d+)|(%d+)|(.*)$')
local json = string.sub(rest, tonumber(bytes) + 1)
if redis.call('HSETNX', KEYS[3], ARGV[1], '0|0|' .. ARGV[2] .. '||' .. json) == 1 then
  redis.call('ZADD', KEYS[4], ARGV[2], ARGV[1])
end
return 1
`;

/** Deletes a waiting or delayed job if its entry is still `entry` (not started meanwhile). KEYS: jobs, due. */
export const DISCARD = `
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`;
