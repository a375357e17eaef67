"""Agent lifecycle: spawn, pause, resume, terminate, with hooks."""

from sedimem.lifecycle.manager import Lifecycle
from sedimem.lifecycle.results import HookFailure, LifecycleResult, TerminateResult

__all__ = ["HookFailure", "Lifecycle", "LifecycleResult", "TerminateResult"]
