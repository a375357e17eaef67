"""Retrieval: turning a question into search terms, and fusing ranked lists into one."""

from sedimem.retrieval.fusion import RetrievalSettings, fuse
from sedimem.retrieval.terms import query_terms

__all__ = ["RetrievalSettings", "fuse", "query_terms"]
