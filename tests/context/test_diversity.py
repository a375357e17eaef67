"""Maximal marginal relevance: near-copies yield to distinct memories."""

from sedimem.context.diversity import diversify
from sedimem.context.models import ContextItem


def item(i: str, text: str, score: float) -> ContextItem:
    return ContextItem(id=i, text=text, score=score)


def test_a_near_copy_yields_to_a_distinct_item() -> None:
    items = [
        item("a", "The deploy to production failed on the database migration", 1.0),
        item("b", "The deploy to production failed on the database migration again", 0.95),
        item("c", "Deploy to production failed: database migration", 0.9),
        item("d", "Rolled back the release and paged the on-call engineer", 0.7),
    ]
    assert [i.id for i in diversify(items)] == ["a", "d", "b", "c"]
    # scores are kept; with the relevance weight at 1 the order is the score order
    assert [i.score for i in diversify(items)] == [1.0, 0.7, 0.95, 0.9]
    assert [i.id for i in diversify(items, weight=1.0)] == ["a", "b", "c", "d"]


def test_distinct_items_keep_their_order() -> None:
    items = [item(str(n), f"topic{n} alpha{n} beta{n}", 1.0 - n / 10) for n in range(6)]
    assert diversify(items) == items
    assert diversify(items[:2]) == items[:2]
    assert diversify([]) == []
