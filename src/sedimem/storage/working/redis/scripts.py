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
    "ALL", "APPEND", "CLEAR", "CLEAR_SCRATCHPAD", "DELETE", "DELETE_CHECKPOINT", "DROP_IDLE",
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


# Renew the idle lifetime of the live keys (KEYS[1..4]) to ARGV-given milliseconds and stamp
# the write: the last key holds the server time in milliseconds (exact digits, no float).
_TOUCH = """
local function touch(ttl)
  for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ttl) end
  local t = redis.call('TIME')
  local ms = t[1] .. string.format('%03d', math.floor(tonumber(t[2]) / 1000))
  redis.call('SET', KEYS[#KEYS], ms, 'PX', ttl)
end
"""

# KEYS kv ex task sp at; ARGV key stored expiry|'' ttl_ms max_keys now -> 0 ok, 1 limit
# ``stored`` is "<expiry>|<value>" (see redis.py). HSET tells whether the key is new; only then
# is the limit checked, counting expired keys as gone (and purging them if that makes room).
_SET_LUA = (
    _TOUCH
    + """
local kv, ex, key, max = KEYS[1], KEYS[2], ARGV[1], tonumber(ARGV[5])
if redis.call('HSET', kv, key, ARGV[2]) == 1 and redis.call('HLEN', kv) > max then
  local dead = redis.call('ZRANGEBYSCORE', ex, '-inf', ARGV[6])
  if redis.call('HLEN', kv) - #dead > max then
    redis.call('HDEL', kv, key)
    return 1
  end
  for i = 1, #dead do redis.call('HDEL', kv, dead[i]) end
  redis.call('ZREMRANGEBYSCORE', ex, '-inf', ARGV[6])
end
if ARGV[3] == '' then redis.call('ZREM', ex, key) else redis.call('ZADD', ex, ARGV[3], key) end
touch(ARGV[4])
return 0
"""
)

# KEYS kv ex task sp at; ARGV key now ttl_ms -> 1 when a live key was removed
_DELETE_LUA = (
    _TOUCH
    + """
local existed = redis.call('HDEL', KEYS[1], ARGV[1])
local e = redis.call('ZSCORE', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
touch(ARGV[3])
if existed == 1 and not (e and tonumber(e) <= tonumber(ARGV[2])) then return 1 end
return 0
"""
)

# KEYS kv ex task sp at; ARGV now ttl_ms -> number of live keys removed
_CLEAR_LUA = (
    _TOUCH
    + """
local n = redis.call('HLEN', KEYS[1]) - redis.call('ZCOUNT', KEYS[2], '-inf', ARGV[1])
redis.call('DEL', KEYS[1], KEYS[2])
touch(ARGV[2])
return n
"""
)

# KEYS kv ex task sp at; ARGV ttl_ms only_if_present field value ... -> 1 written, 0 no task
_TASK_LUA = (
    _TOUCH
    + """
if ARGV[2] == '1' then
  if redis.call('EXISTS', KEYS[3]) == 0 then return 0 end
else
  redis.call('DEL', KEYS[3])
end
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1]) end
touch(ARGV[1])
return 1
"""
)

# KEYS kv ex task sp at; ARGV entry max_entries ttl_ms
_APPEND_LUA = (
    _TOUCH
    + """
redis.call('RPUSH', KEYS[4], ARGV[1])
redis.call('LTRIM', KEYS[4], -tonumber(ARGV[2]), -1)
touch(ARGV[3])
return 0
"""
)

# KEYS kv ex task sp at; ARGV ttl_ms -> number of entries removed
_CLEAR_SCRATCHPAD_LUA = (
    _TOUCH
    + """
local n = redis.call('LLEN', KEYS[4])
redis.call('DEL', KEYS[4])
touch(ARGV[1])
return n
"""
)

# KEYS kv ex task sp at; ARGV ttl_ms nvalues (key value expiry|'')* ntask (field value)* entry*
# Loops instead of unpack(): a snapshot may be larger than Lua's stack.
_RESTORE_LUA = (
    _TOUCH
    + """
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
local i = 3
for _ = 1, tonumber(ARGV[2]) do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
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
touch(ARGV[1])
return 0
"""
)

# KEYS kv ex task sp cp cb cx at; ARGV id info content expires_at now ttl_ms
_PUT_CHECKPOINT_LUA = (
    _TOUCH
    + """
local cp, cb, cx, now = KEYS[5], KEYS[6], KEYS[7], tonumber(ARGV[5])
redis.call('HSET', cp, ARGV[1], ARGV[2])
redis.call('HSET', cb, ARGV[1], ARGV[3])
redis.call('ZADD', cx, ARGV[4], ARGV[1])
local dead = redis.call('ZRANGEBYSCORE', cx, '-inf', ARGV[5])
for i = 1, #dead do redis.call('HDEL', cp, dead[i]); redis.call('HDEL', cb, dead[i]) end
redis.call('ZREMRANGEBYSCORE', cx, '-inf', ARGV[5])
local last = redis.call('ZRANGE', cx, -1, -1, 'WITHSCORES')
if #last == 2 then
  local ms = math.ceil((tonumber(last[2]) - now) * 1000) + 1000
  for i = 5, 7 do redis.call('PEXPIRE', KEYS[i], ms) end
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

# KEYS kv ex task sp at; ARGV max_entries ttl_ms floor (stamp id entry)*
# Merges entries written elsewhere (during an outage) into the scratchpad. Only the tail back
# to the first entry stamped before ``floor`` is read: that is where the new entries belong
# and where a copy of one (a write whose reply was lost) can be. New entries whose id is
# already there are skipped; the rest are placed by their created_at stamp, each side keeping
# its own order. Stamps are normalised "YYYY-MM-DDTHH:MM:SS.ffffff" texts; an entry without
# one stays where it is (old) or goes last (new).
_MERGE_SCRATCHPAD_LUA = (
    _TOUCH
    + """
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
local sp, floor = KEYS[4], ARGV[3]
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
for i = 4, #ARGV, 3 do
  local id = ARGV[i + 1]
  if id == '' or not seen[id] then
    if id ~= '' then seen[id] = true end
    local n = #new + 1
    new[n] = ARGV[i + 2]
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
# The per-tenant idle index ``ms:ix:{<tenant hash>}:idle`` is a zset of "<digest>|<scope>"
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

# KEYS kv ex task sp cp cb cx at; ARGV touched_ms -> 1 when the session was removed
# Removes the whole session unless it was written after ``touched_ms`` (or is gone already).
_DROP_IDLE_LUA = """
local at = redis.call('GET', KEYS[8])
if not at or tonumber(at) > tonumber(ARGV[1]) then return 0 end
for i = 1, #KEYS do redis.call('DEL', KEYS[i]) end
return 1
"""


SET, DELETE, CLEAR, TASK, APPEND = (
    Script(s) for s in (_SET_LUA, _DELETE_LUA, _CLEAR_LUA, _TASK_LUA, _APPEND_LUA)
)
CLEAR_SCRATCHPAD, MERGE_SCRATCHPAD, RESTORE = (
    Script(s) for s in (_CLEAR_SCRATCHPAD_LUA, _MERGE_SCRATCHPAD_LUA, _RESTORE_LUA)
)
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
        *(RESTORE, PUT_CHECKPOINT, DELETE_CHECKPOINT, REGISTER),
        *(MARK_ACTIVE, IDLE_PAGE, FORGET_IDLE, DROP_IDLE),
    )
}
