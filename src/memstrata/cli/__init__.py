"""The ``memstrata`` command line. Settings are built here, at the edge, and passed down."""

from memstrata.cli.app import app, main

__all__ = ["app", "main"]
