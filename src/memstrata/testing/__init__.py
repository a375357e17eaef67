"""Tools for testing memstrata and third-party backends.

``WorkingStoreConformance`` is the suite every working-memory store must pass: subclass it
in a test module and provide the ``store`` and ``other_handle`` fixtures.
``LongTermStoreConformance`` is the same for long-term stores (fixture ``store``).
``RedisServer`` and ``PostgresServer`` start real servers on loopback for tests, and
``MemstrataServer`` runs ``memstrata serve`` as a process for end-to-end tests.
"""

from memstrata.testing.clock import ManualClock
from memstrata.testing.longterm import LongTermStoreConformance
from memstrata.testing.memstrata_server import MemstrataServer
from memstrata.testing.postgres_server import PostgresServer
from memstrata.testing.redis_server import RedisServer
from memstrata.testing.working import WorkingStoreConformance

__all__ = [
    "LongTermStoreConformance",
    "ManualClock",
    "MemstrataServer",
    "PostgresServer",
    "RedisServer",
    "WorkingStoreConformance",
]
