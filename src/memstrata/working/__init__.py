"""Working memory: the state of the task at hand, for one session."""

from memstrata.working.memory import WorkingMemory

__all__ = ["WorkingMemory"]
