"""Erasure and portability (GDPR): forget, export and import a user's data.

- :func:`forget` erases what matches in every tier and everything derived from it, then
  makes the erasure physical in the stores (see :mod:`.forget` and :mod:`.scrub`).
- :func:`export_user` / :func:`import_records` move a user's records, pinned blocks
  included, as JSON Lines; export -> import -> export gives the same lines.
"""

from sedimem.gdpr.forget import ForgetReceipt, forget
from sedimem.gdpr.portability import export_user, import_records

__all__ = ["ForgetReceipt", "export_user", "forget", "import_records"]
