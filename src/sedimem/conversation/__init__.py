"""Conversations: chat turns filed as episodes, with the facts they state extracted.

See ``docs/conversations.md``.
"""

from sedimem.conversation.ingest import Conversations, message_key

__all__ = ["Conversations", "message_key"]
