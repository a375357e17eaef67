"""Retrieval quality on public datasets."""
