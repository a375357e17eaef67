"""Tools for testing memstrata and third-party backends.

``WorkingStoreConformance`` is the suite every working-memory store must pass: subclass it
in a test module and provide the ``store`` and ``other_handle`` fixtures.
"""

from memstrata.testing.clock import ManualClock
from memstrata.testing.working import WorkingStoreConformance

__all__ = ["ManualClock", "WorkingStoreConformance"]
