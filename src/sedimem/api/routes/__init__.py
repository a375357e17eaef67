"""The routes of the REST interface, one module per area."""
