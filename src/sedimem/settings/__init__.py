"""The nested parts of :class:`sedimem.config.Settings` that tune engines and services.

They live here, in the core layer, so that ``Settings`` can hold them (and
``SEDIMEM_RETRIEVAL__...``, ``SEDIMEM_CONSOLIDATION__...``, ``SEDIMEM_POSTGRES__...`` reach
them) while the engines and services that read them keep importing nothing above their
layer. Each part is a frozen pydantic model whose fields state their range once.
"""

from sedimem.settings.consolidation import DEFAULT_SESSION_IDLE_SECONDS, ConsolidationSettings
from sedimem.settings.postgres import PostgresSettings
from sedimem.settings.retrieval import RetrievalSettings

__all__ = [
    "DEFAULT_SESSION_IDLE_SECONDS",
    "ConsolidationSettings",
    "PostgresSettings",
    "RetrievalSettings",
]
