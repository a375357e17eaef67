"""A hybrid search's halves side by side: the second on the helper thread while it is
free, both on the caller's thread when another search holds it; errors and forks."""

from __future__ import annotations

import multiprocessing
import threading
import time

import pytest

from sedimem.retrieval.index.beside import side_by_side


def where() -> str:
    return threading.current_thread().name


def test_the_second_half_runs_on_the_helper_thread_meanwhile() -> None:
    started = threading.Event()

    def here() -> str:
        # returns only once the other half has started: the two run at the same time
        assert started.wait(5)
        return where()

    def there() -> str:
        started.set()
        return where()

    first, second = side_by_side(here, there)
    assert first == threading.current_thread().name
    assert second.startswith("sedimem-search")


def test_a_search_finding_the_helper_busy_runs_both_halves_itself() -> None:
    def here() -> tuple[str, str]:
        return side_by_side(where, where)  # the helper is this search's meanwhile

    (inner_here, inner_there), outer_there = side_by_side(here, where)
    assert inner_here == inner_there == threading.current_thread().name
    assert outer_there.startswith("sedimem-search")
    # and free again afterwards
    assert side_by_side(where, where)[1].startswith("sedimem-search")


def test_an_error_of_this_half_is_raised_once_the_other_half_is_done() -> None:
    done = threading.Event()

    def here() -> None:
        raise ValueError("here")

    def there() -> None:
        time.sleep(0.05)
        done.set()

    with pytest.raises(ValueError, match="here"):
        side_by_side(here, there)
    assert done.is_set()  # nothing of the search is left running on the helper


def test_an_error_of_the_other_half_is_raised_here() -> None:
    def there() -> None:
        raise KeyError("there")

    with pytest.raises(KeyError, match="there"):
        side_by_side(lambda: 1, there)
    assert side_by_side(lambda: 1, lambda: 2) == (1, 2)


def _in_child(results: multiprocessing.Queue[tuple[str, str]]) -> None:
    results.put(side_by_side(where, where))


@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="no fork on this platform"
)
def test_a_forked_child_gets_a_helper_of_its_own() -> None:
    side_by_side(where, where)  # the parent's helper thread exists
    context = multiprocessing.get_context("fork")
    results: multiprocessing.Queue[tuple[str, str]] = context.Queue()
    # (a child waiting on its parent's helper thread, which it does not have, would never
    # answer: it is a daemon, stopped if still running)
    child = context.Process(target=_in_child, args=(results,), daemon=True)
    child.start()
    try:
        first, second = results.get(timeout=20)
    finally:
        child.join(5)
        if child.is_alive():
            child.kill()
    assert child.exitcode == 0
    assert first == "MainThread"
    assert second.startswith("sedimem-search")
