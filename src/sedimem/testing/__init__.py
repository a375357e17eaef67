"""Tools for testing sedimem and third-party backends.

``WorkingStoreConformance`` is the suite every working-memory store must pass: subclass it
in a test module and provide the ``store`` and ``other_handle`` fixtures.
``LongTermStoreConformance`` is the same for long-term stores (fixture ``store``).
``RedisServer`` and ``PostgresServer`` start real servers on loopback for tests,
``PostgresReplica`` a streaming replica of a ``PostgresServer`` (to stop, pause or promote),
and ``SedimemServer`` runs ``sedimem serve`` as a process for end-to-end tests.
``ScriptedLLMServer`` is an OpenAI-compatible chat + embeddings server process answering
from a script (malformed JSON, 429 with Retry-After, slow replies...), recording requests.
"""

from sedimem.testing.clock import ManualClock
from sedimem.testing.llm_server import ScriptedLLMServer
from sedimem.testing.longterm import LongTermStoreConformance
from sedimem.testing.postgres_replica import PostgresReplica
from sedimem.testing.postgres_server import PostgresServer
from sedimem.testing.redis_server import RedisServer
from sedimem.testing.sedimem_server import SedimemServer
from sedimem.testing.working import WorkingStoreConformance

__all__ = [
    "LongTermStoreConformance",
    "ManualClock",
    "ScriptedLLMServer",
    "SedimemServer",
    "PostgresReplica",
    "PostgresServer",
    "RedisServer",
    "WorkingStoreConformance",
]
