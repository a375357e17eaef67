"""The ``sedimem`` command line. Settings are built here, at the edge, and passed down."""

from sedimem.cli.app import app, main

__all__ = ["app", "main"]
