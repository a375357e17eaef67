"""Saved strings read in place."""

from __future__ import annotations

import pytest

from sedimem.retrieval.index.strings import SavedStrings
from sedimem.storage.longterm.sqlite.indexfile import pack_strings


def test_strings_are_read_in_place_as_a_list_would_give_them() -> None:
    values = ["01J…a", "", "line\nbreak", "émile", "zz\0"]
    saved = SavedStrings(*pack_strings(values))
    assert len(saved) == len(values)
    assert [saved[i] for i in range(len(values))] == values
    assert saved[-1] == values[-1]
    assert saved[1:3] == values[1:3]
    assert saved.list() == values
    assert list(saved) == values
    with pytest.raises(IndexError):
        saved[len(values)]
    assert len(SavedStrings(*pack_strings([]))) == 0


def test_strings_taken_at_positions_are_those_indexing_gives() -> None:
    values = ["01J…a", "", "line\nbreak", "émile", "zz\0"]
    saved = SavedStrings(*pack_strings(values))
    assert saved.take([4, 0, 3, 3, 1]) == [values[4], values[0], values[3], values[3], values[1]]
    assert saved.take([]) == []
    with pytest.raises(IndexError):
        saved.take([0, len(values)])
    with pytest.raises(IndexError):
        saved.take([-1])
