"""LangGraph on sedimem: ``SedimemSaver`` (checkpointer over working memory) and
``SedimemStore`` (``BaseStore`` over long-term memory). Needs ``sedimem[langgraph]``."""

from sedimem.integrations.langgraph.saver import SedimemSaver
from sedimem.integrations.langgraph.store import SedimemStore

__all__ = ["SedimemSaver", "SedimemStore"]
