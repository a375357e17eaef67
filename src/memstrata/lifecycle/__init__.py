"""Agent lifecycle: spawn, pause, resume, terminate, with hooks."""

from memstrata.lifecycle.manager import Lifecycle
from memstrata.lifecycle.results import HookFailure, LifecycleResult, TerminateResult

__all__ = ["HookFailure", "Lifecycle", "LifecycleResult", "TerminateResult"]
