"""Benchmarks: each module prints its figures and, last, a JSON line of metrics."""
