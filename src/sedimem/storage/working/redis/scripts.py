"""The Lua scripts of the Redis working store, one atomic step each.

Every script that writes live state ends with ``touch``: the four live keys (KEYS[1..4]:
kv, ex, task, sp) get the session's idle lifetime again, in the same step, so they die
together, and the stamp key (always the last of KEYS: ``at``) gets the server time of the
write, with the same lifetime. Arguments are documented above each script as
``KEYS ...; ARGV ...``.
"""

from __future__ import annotations

import hashlib

__all__ = [
    "ALL", "APPEND", "CLEAR", "CLEAR_SCRATCHPAD", "DELETE", "DELETE_CHECKPOINT", "DROP",
    "DROP_CHECKPOINTS", "DROP_IDLE",
    "FORGET_IDLE", "IDLE_PAGE", "MARK_ACTIVE", "MERGE_SCRATCHPAD", "PUT_CHECKPOINT",
    "REGISTER", "RESTORE", "SET", "TASK", "Script",
]  # fmt: skip


class Script:
    """A Lua script known by its SHA1, so callers can EVALSHA without loading it first."""

    __slots__ = ("sha", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        # bytes: redis-py sends bytes as they are, saving an encode on every call
        self.sha = hashlib.sha1(source.encode()).hexdigest().encode()


# Renew the idle lifetime of the live keys (KEYS[1..4]: kv ex task sp) to ARGV-given
# milliseconds and stamp the write: the last key holds the server time in milliseconds
# (exact digits, no float). ``vr`` and ``tb`` (KEYS[5], KEYS[6]) get the same lifetime from
# the scripts that write them: a version outlives its write by one idle lifetime.
_TOUCH = """
local function touch(ttl)
  for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ttl) end
  local t = redis.call('TIME')
  local ms = t[1] .. string.format('%03d', math.floor(tonumber(t[2]) / 1000))
  redis.call('SET', KEYS[#KEYS], ms, 'PX', ttl)
end
"""

# Versions (see ``version.py``): text "<16-digit microseconds>:<writer>", compared as text.
# ``bump``: a live write's version, moved above the newest it replaces so that it stays the
# newest. A tombstone (``tb``: deleted key -> microseconds) reads as the version "<us>:~",
# which a write of the same microsecond does not beat. The ``vr`` hash holds the versions
# of whole-session writes: ``a`` user keys cleared, ``t`` task state, ``s`` scratchpad
# cleared (``sx``: the same as an entry stamp), ``c`` checkpoints dropped.
_VERSION = """
local function vmax(a, b)
  if not a then return b end
  if not b or a > b then return a end
  return b
end
local function bump(v, known)
  if not known or v > known then return v end
  return string.format('%016d', tonumber(string.sub(known, 1, 16)) + 1) .. string.sub(v, 17)
end
local function tomb(score)
  if not score then return nil end
  return string.format('%016d', tonumber(score)) .. ':~'
end
local function version_of(stored)
  if not stored then return nil end
  return string.match(stored, '^[^|]*|(%d+:[^|]*)|')
end
"""

# The stamp of a scratchpad entry (the service's JSON): normalised created_at and id.
_STAMP = """
local function stamp(text)
  local ok, obj = pcall(cjson.decode, text)
  if not ok or type(obj) ~= 'table' then return nil, nil end
  local at, id = obj['created_at'], obj['id']
  if type(id) ~= 'string' then id = nil end
  if type(at) ~= 'string' then return nil, id end
  local base, frac = string.match(at, '^(%d%d%d%d%-%d%d%-%d%dT%d%d:%d%d:%d%d)%.?(%d*)')
  if not base then return nil, id end
  return base .. '.' .. string.sub(frac .. '000000', 1, 6), id
end
"""

_HEAD = _TOUCH + _VERSION

# KEYS kv ex task sp vr tb at; ARGV key value expiry|'' ttl_ms max_keys now version replay
# -> the version written, 1 over the key limit, 0 superseded (replay only: a superseded
# write changes nothing, not even the session's lifetime, which the newer write renewed).
# The key is stored as "<expiry>|<version>|<value>" (see redis.py). A replay (compare-and-set)
# lands only if no newer write, delete or clear of the key is there. HSET tells whether the
# key is new; only then is the limit checked, counting expired keys as gone (and purging them
# if that makes room).
_SET_LUA = (
    _HEAD
    + """
local kv, ex, vr, tb, key, max = KEYS[1], KEYS[2], KEYS[5], KEYS[6], ARGV[1], tonumber(ARGV[5])
local v, dead_at = ARGV[7], redis.call('ZSCORE', tb, key)
local known = vmax(redis.call('HGET', vr, 'a'), version_of(redis.call('HGET', kv, key)))
known = vmax(known, tomb(dead_at))
if ARGV[8] == '1' then
  if known and v < known then return 0 end
else
  v = bump(v, known)
end
if redis.call('HSET', kv, key, ARGV[3] .. '|' .. v .. '|' .. ARGV[2]) == 1
   and redis.call('HLEN', kv) > max then
  local dead = redis.call('ZRANGEBYSCORE', ex, '-inf', ARGV[6])
  if redis.call('HLEN', kv) - #dead > max then
    redis.call('HDEL', kv, key)
    return 1
  end
  for i = 1, #dead do redis.call('HDEL', kv, dead[i]) end
  redis.call('ZREMRANGEBYSCORE', ex, '-inf', ARGV[6])
end
if ARGV[3] == '' then redis.call('ZREM', ex, key) else redis.call('ZADD', ex, ARGV[3], key) end
if dead_at then redis.call('ZREM', tb, key) end
touch(ARGV[4])
return v
"""
)

# KEYS kv ex task sp vr tb at; ARGV key now ttl_ms version replay
# -> {1 when a live key was removed else 0, version}. Leaves a tombstone, kept for the
# session's idle lifetime (older ones are pruned here).
_DELETE_LUA = (
    _HEAD
    + """
local kv, ex, vr, tb, key, v = KEYS[1], KEYS[2], KEYS[5], KEYS[6], ARGV[1], ARGV[4]
local old = redis.call('HGET', kv, key)
local known = vmax(redis.call('HGET', vr, 'a'), version_of(old))
known = vmax(known, tomb(redis.call('ZSCORE', tb, key)))
if ARGV[5] == '1' then
  if known and v < known then return {0, known} end
else
  v = bump(v, known)
end
redis.call('HDEL', kv, key)
local e = redis.call('ZSCORE', ex, key)
redis.call('ZREM', ex, key)
local us = tonumber(string.sub(v, 1, 16))
redis.call('ZADD', tb, string.format('%d', us), key)
redis.call('ZREMRANGEBYSCORE', tb, '-inf',
           '(' .. string.format('%d', us - tonumber(ARGV[3]) * 1000))
redis.call('PEXPIRE', tb, ARGV[3])
touch(ARGV[3])
if old and not (e and tonumber(e) <= tonumber(ARGV[2])) then return {1, v} end
return {0, v}
"""
)

# KEYS kv ex task sp vr tb at; ARGV now ttl_ms version replay -> {live keys removed, version}
# A replayed clear removes only the keys written before it.
_CLEAR_LUA = (
    _HEAD
    + """
local kv, ex, vr, now, v = KEYS[1], KEYS[2], KEYS[5], tonumber(ARGV[1]), ARGV[3]
local a = redis.call('HGET', vr, 'a')
local n = 0
if ARGV[4] == '1' then
  if a and v < a then return {0, a} end
  local all = redis.call('HGETALL', kv)
  for i = 1, #all, 2 do
    local ver = version_of(all[i + 1])
    if not ver or ver < v then
      local e = redis.call('ZSCORE', ex, all[i])
      if not (e and tonumber(e) <= now) then n = n + 1 end
      redis.call('HDEL', kv, all[i])
      redis.call('ZREM', ex, all[i])
    end
  end
else
  v = bump(v, a)
  n = redis.call('HLEN', kv) - redis.call('ZCOUNT', ex, '-inf', ARGV[1])
  redis.call('DEL', kv, ex)
end
redis.call('HSET', vr, 'a', v)
redis.call('PEXPIRE', vr, ARGV[2])
touch(ARGV[2])
return {n, v}
"""
)

# KEYS kv ex task sp vr tb at; ARGV ttl_ms mode version replay field value ...
# mode: 0 replace, 1 update (only if there is task state), 2 delete
# -> {1 written, version} or {0} (no task state to update, or superseded)
_TASK_LUA = (
    _HEAD
    + """
local task, vr, v = KEYS[3], KEYS[5], ARGV[3]
local known = redis.call('HGET', vr, 't')
if ARGV[4] == '1' then
  if known and v < known then return {0} end
else
  v = bump(v, known)
end
if ARGV[2] == '1' then
  if redis.call('EXISTS', task) == 0 then return {0} end
else
  redis.call('DEL', task)
end
for i = 5, #ARGV, 2 do redis.call('HSET', task, ARGV[i], ARGV[i + 1]) end
redis.call('HSET', vr, 't', v)
redis.call('PEXPIRE', vr, ARGV[1])
touch(ARGV[1])
return {1, v}
"""
)

# KEYS kv ex task sp vr tb at; ARGV entry max_entries ttl_ms
# Entries carry their own stamp and id: an append needs no version.
_APPEND_LUA = (
    _TOUCH
    + """
redis.call('RPUSH', KEYS[4], ARGV[1])
redis.call('LTRIM', KEYS[4], -tonumber(ARGV[2]), -1)
touch(ARGV[3])
return 0
"""
)

# KEYS kv ex task sp vr tb at; ARGV ttl_ms version replay stamp -> {entries removed, version}
# ``stamp``: the version's time as an entry stamp. A replayed clear removes only the entries
# stamped before it (another process may have appended since).
_CLEAR_SCRATCHPAD_LUA = (
    _HEAD
    + _STAMP
    + """
local sp, vr, v, at = KEYS[4], KEYS[5], ARGV[2], ARGV[4]
local s = redis.call('HGET', vr, 's')
local n = 0
if ARGV[3] == '1' then
  if s and v < s then return {0, s} end
  local all = redis.call('LRANGE', sp, 0, -1)
  redis.call('DEL', sp)
  for j = 1, #all do
    local st = stamp(all[j])
    if st and st >= at then redis.call('RPUSH', sp, all[j]) else n = n + 1 end
  end
else
  v = bump(v, s)
  n = redis.call('LLEN', sp)
  redis.call('DEL', sp)
end
local sx = redis.call('HGET', vr, 'sx')
if not sx or at > sx then sx = at end
redis.call('HSET', vr, 's', v, 'sx', sx)
redis.call('PEXPIRE', vr, ARGV[1])
touch(ARGV[1])
return {n, v}
"""
)

# KEYS kv ex task sp vr tb at; ARGV ttl_ms version stamp nvalues (key value expiry|'')*
# ntask (field value)* entry* -> version. Live only: a replayed restore is replayed as its
# parts (clear, sets, task, scratchpad clear and merge), each a compare-and-set.
# Loops instead of unpack(): a snapshot may be larger than Lua's stack.
_RESTORE_LUA = (
    _HEAD
    + """
local vr = KEYS[5]
local known = vmax(vmax(redis.call('HGET', vr, 'a'), redis.call('HGET', vr, 't')),
                   redis.call('HGET', vr, 's'))
local v = bump(ARGV[2], known)
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[6])
local i = 5
for _ = 1, tonumber(ARGV[4]) do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 2] .. '|' .. v .. '|' .. ARGV[i + 1])
  if ARGV[i + 2] ~= '' then redis.call('ZADD', KEYS[2], ARGV[i + 2], ARGV[i]) end
  i = i + 3
end
local ntask = tonumber(ARGV[i])
i = i + 1
for _ = 1, ntask do
  redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
  i = i + 2
end
for j = i, #ARGV do redis.call('RPUSH', KEYS[4], ARGV[j]) end
local sx = redis.call('HGET', vr, 'sx')
if not sx or ARGV[3] > sx then sx = ARGV[3] end
redis.call('HSET', vr, 'a', v, 't', v, 's', v, 'sx', sx)
redis.call('PEXPIRE', vr, ARGV[1])
touch(ARGV[1])
return v
"""
)

# KEYS kv ex task sp vr tb cp cb cx at; ARGV id info content expires_at now ttl_ms version
# replay. Checkpoint ids are unique, so only a drop of the session can supersede a put.
_PUT_CHECKPOINT_LUA = (
    _HEAD
    + """
local cp, cb, cx, now = KEYS[7], KEYS[8], KEYS[9], tonumber(ARGV[5])
if ARGV[8] == '1' then
  local c = redis.call('HGET', KEYS[5], 'c')
  if c and ARGV[7] < c then return 0 end
end
redis.call('HSET', cp, ARGV[1], ARGV[2])
redis.call('HSET', cb, ARGV[1], ARGV[3])
redis.call('ZADD', cx, ARGV[4], ARGV[1])
local dead = redis.call('ZRANGEBYSCORE', cx, '-inf', ARGV[5])
for i = 1, #dead do redis.call('HDEL', cp, dead[i]); redis.call('HDEL', cb, dead[i]) end
redis.call('ZREMRANGEBYSCORE', cx, '-inf', ARGV[5])
local last = redis.call('ZRANGE', cx, -1, -1, 'WITHSCORES')
if #last == 2 then
  local ms = math.ceil((tonumber(last[2]) - now) * 1000) + 1000
  for i = 7, 9 do redis.call('PEXPIRE', KEYS[i], ms) end
end
touch(ARGV[6])
return 0
"""
)

# KEYS cp cb cx; ARGV id now -> 1 when a live checkpoint was removed
_DELETE_CHECKPOINT_LUA = """
local e = redis.call('ZSCORE', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
if e and tonumber(e) > tonumber(ARGV[2]) then return 1 end
return 0
"""

# KEYS kv ex task sp vr tb cp cb cx at; ARGV version stamp ttl_ms -> version
# (``drop``, shared with DROP_IDLE) Drops the session's data and keeps only its versions
# (``vr``, for the session's idle lifetime), so that an older write replayed later cannot
# bring the session back.
_DROP = (
    _VERSION
    + """
local function drop(version, stamp, ttl)
  local vr = KEYS[5]
  local known = vmax(vmax(redis.call('HGET', vr, 'a'), redis.call('HGET', vr, 't')),
                     vmax(redis.call('HGET', vr, 's'), redis.call('HGET', vr, 'c')))
  local v = bump(version, known)
  local sx = redis.call('HGET', vr, 'sx')
  if not sx or stamp > sx then sx = stamp end
  redis.call('DEL', unpack(KEYS))
  redis.call('HSET', vr, 'a', v, 't', v, 's', v, 'c', v, 'sx', sx)
  redis.call('PEXPIRE', vr, ttl)
  return v
end
"""
)
_DROP_LUA = _DROP + "return drop(ARGV[1], ARGV[2], ARGV[3])\n"

# KEYS vr cp cb cx; ARGV version ms. A replayed drop: removes the checkpoints taken before
# ``ms`` (their ids are UUIDv7: the first 48 bits are the creation time in milliseconds).
_DROP_CHECKPOINTS_LUA = (
    _VERSION
    + """
local c = redis.call('HGET', KEYS[1], 'c')
if c and ARGV[1] < c then return 0 end
local before = tonumber(ARGV[2])
local ids = redis.call('ZRANGE', KEYS[4], 0, -1)
for i = 1, #ids do
  local hex = string.sub(string.gsub(ids[i], '-', ''), 1, 12)
  local at = tonumber(hex, 16)
  if not at or at < before then
    redis.call('HDEL', KEYS[2], ids[i]); redis.call('HDEL', KEYS[3], ids[i])
    redis.call('ZREM', KEYS[4], ids[i])
  end
end
redis.call('HSET', KEYS[1], 'c', vmax(c, ARGV[1]))
return 0
"""
)

# KEYS index...; ARGV digest keep_ms. Scores are server milliseconds until which the
# session may hold data; GT never shortens a registration made by another process.
_REGISTER_LUA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], 'GT', now + tonumber(ARGV[2]), ARGV[1])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
  local last = redis.call('ZRANGE', KEYS[i], -1, -1, 'WITHSCORES')
  redis.call('PEXPIRE', KEYS[i], math.max(1, tonumber(last[2]) - now))
end
return 0
"""

# KEYS kv ex task sp vr tb at; ARGV max_entries ttl_ms floor (stamp id written entry)*
# Merges entries written elsewhere (during an outage) into the scratchpad. Only the tail back
# to the first entry stamped before ``floor`` is read: that is where the new entries belong
# and where a copy of one (a write whose reply was lost) can be. New entries whose id is
# already there are skipped, and so are those written (``written``: the entry's own stamp,
# or a replayed restore's) before the scratchpad was last cleared; the rest are placed by
# their created_at stamp, each side keeping its own order. Stamps are normalised
# "YYYY-MM-DDTHH:MM:SS.ffffff" texts; an entry without one stays where it is (old) or goes
# last (new).
_MERGE_SCRATCHPAD_LUA = (
    _TOUCH
    + _STAMP
    + """
local sp, floor = KEYS[4], ARGV[3]
local cleared = redis.call('HGET', KEYS[5], 'sx')
local start = redis.call('LLEN', sp)
local rev, rev_stamps, seen = {}, {}, {}
local scanning = floor ~= ''
while scanning and start > 0 do
  local block = redis.call('LRANGE', sp, math.max(0, start - 128), start - 1)
  for j = #block, 1, -1 do
    local s, id = stamp(block[j])
    if s ~= nil and s < floor then scanning = false; break end
    local n = #rev + 1
    rev[n] = block[j]
    rev_stamps[n] = s
    if id then seen[id] = true end
    start = start - 1
  end
end
local new, new_stamps = {}, {}
for i = 4, #ARGV, 4 do
  local id, written = ARGV[i + 1], ARGV[i + 2]
  local stale = cleared and written ~= '' and written < cleared
  if not stale and (id == '' or not seen[id]) then
    if id ~= '' then seen[id] = true end
    local n = #new + 1
    new[n] = ARGV[i + 3]
    new_stamps[n] = ARGV[i]
  end
end
if #new == 0 then return 0 end
if start == 0 then redis.call('DEL', sp) else redis.call('LTRIM', sp, 0, start - 1) end
local a, b = #rev, 1
while a >= 1 or b <= #new do
  local s = rev_stamps[a]
  if a >= 1 and (b > #new or new_stamps[b] == '' or s == nil or s <= new_stamps[b]) then
    redis.call('RPUSH', sp, rev[a]); a = a - 1
  else
    redis.call('RPUSH', sp, new[b]); b = b + 1
  end
end
redis.call('LTRIM', sp, -tonumber(ARGV[1]), -1)
touch(ARGV[2])
return #new
"""
)

# -- idle sessions (consolidation) ------------------------------------------------------------
# The per-tenant idle index ``sdm:ix:{<tenant hash>}:idle`` is a zset of "<digest>|<scope>"
# scored by the server time (ms) of a recent write. It is refreshed by the writers at most
# every few seconds (not inside the write scripts: it lives in another slot), so a score is
# a lower bound of the session's latest write; the session's stamp key is the exact value.

# KEYS idle; ARGV member keep_ms. GT: a score never moves back. Entries older than keep_ms
# (the writer's session lifetime and some) belong to sessions gone meanwhile.
_MARK_ACTIVE_LUA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local keep = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], 'GT', now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - keep)
if redis.call('PTTL', KEYS[1]) < keep then redis.call('PEXPIRE', KEYS[1], keep) end
return 0
"""

# KEYS idle; ARGV idle_ms count after_score after_member -> {cutoff, member, score, ...}
# Up to ``count`` entries scored at most ``cutoff`` (server time - idle_ms), in (score,
# member) order, after the position (after_score, after_member) when one is given.
_IDLE_PAGE_LUA = """
local t = redis.call('TIME')
local cutoff = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) - tonumber(ARGV[1])
local want, after_s, after_m = tonumber(ARGV[2]), ARGV[3], ARGV[4]
local out = {cutoff}
local low, offset = '-inf', 0
if after_s ~= '' then low = after_s end
while #out < 2 * want + 1 do
  local page = redis.call('ZRANGEBYSCORE', KEYS[1], low, cutoff, 'WITHSCORES',
                         'LIMIT', offset, want)
  if #page == 0 then break end
  for i = 1, #page, 2 do
    local m, s = page[i], page[i + 1]
    if #out < 2 * want + 1 and
       (after_s == '' or tonumber(s) > tonumber(after_s) or m > after_m) then
      out[#out + 1] = m
      out[#out + 1] = s
    end
  end
  offset = offset + #page / 2
end
return out
"""

# KEYS idle; ARGV member score. Remove an entry whose session is gone, unless a writer
# refreshed it meanwhile (its score moved up): that session is back.
_FORGET_IDLE_LUA = """
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if s and tonumber(s) <= tonumber(ARGV[2]) then redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
"""

# KEYS kv ex task sp vr tb cp cb cx at; ARGV touched_ms version stamp ttl_ms
# -> 1 when the session was removed. Removes the whole session (keeping its versions, as
# ``drop``) unless it was written after ``touched_ms`` (or is gone already).
_DROP_IDLE_LUA = (
    _DROP
    + """
local at = redis.call('GET', KEYS[#KEYS])
if not at or tonumber(at) > tonumber(ARGV[1]) then return 0 end
drop(ARGV[2], ARGV[3], ARGV[4])
return 1
"""
)


SET, DELETE, CLEAR, TASK, APPEND = (
    Script(s) for s in (_SET_LUA, _DELETE_LUA, _CLEAR_LUA, _TASK_LUA, _APPEND_LUA)
)
CLEAR_SCRATCHPAD, MERGE_SCRATCHPAD, RESTORE, DROP, DROP_CHECKPOINTS = (
    Script(s)
    for s in (
        _CLEAR_SCRATCHPAD_LUA, _MERGE_SCRATCHPAD_LUA, _RESTORE_LUA, _DROP_LUA,
        _DROP_CHECKPOINTS_LUA,
    )
)  # fmt: skip
PUT_CHECKPOINT, DELETE_CHECKPOINT, REGISTER = (
    Script(s) for s in (_PUT_CHECKPOINT_LUA, _DELETE_CHECKPOINT_LUA, _REGISTER_LUA)
)
MARK_ACTIVE, IDLE_PAGE, FORGET_IDLE, DROP_IDLE = (
    Script(s) for s in (_MARK_ACTIVE_LUA, _IDLE_PAGE_LUA, _FORGET_IDLE_LUA, _DROP_IDLE_LUA)
)
#: sha -> script, to load one the server does not know
ALL = {
    s.sha: s
    for s in (
        *(SET, DELETE, CLEAR, TASK, APPEND, CLEAR_SCRATCHPAD, MERGE_SCRATCHPAD),
        *(RESTORE, DROP, DROP_CHECKPOINTS, PUT_CHECKPOINT, DELETE_CHECKPOINT, REGISTER),
        *(MARK_ACTIVE, IDLE_PAGE, FORGET_IDLE, DROP_IDLE),
    )
}
