"""The REST interface: a FastAPI application over one :class:`~sedimem.memory.Memory`.

``create_app(memory, settings)`` builds it; the caller opens ``memory`` in the running event
loop and closes it. Everything lives under ``/v1`` except ``/healthz``, ``/readyz`` and
``/metrics``; see ``docs/rest.md``.
"""

from sedimem.api.app import create_app

__all__ = ["create_app"]
