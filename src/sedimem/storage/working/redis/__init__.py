"""The Redis working store: key layout and write commands, Lua scripts, the store."""

from sedimem.storage.working.redis.store import RedisWorkingStore, entry_stamp

__all__ = ["RedisWorkingStore", "entry_stamp"]
