"""Working memory: the state of the task at hand, for one session."""

from sedimem.working.memory import WorkingMemory

__all__ = ["WorkingMemory"]
