"""Maximal marginal relevance: near-copies yield to distinct memories."""

from hypothesis import given, settings
from hypothesis import strategies as st

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


def reference(items: list[ContextItem], weight: float) -> list[str]:
    """MMR as the module's docstring defines it, written the plain way."""
    import re

    from sedimem.retrieval.terms import STOPWORDS

    def words(text: str) -> set[str]:
        return {w for w in re.findall(r"\w+", text.lower()) if w not in STOPWORDS}

    top = max(i.score for i in items)
    scale = top if top > 0 else 1.0
    sets = [words(i.text) for i in items]
    left, chosen = list(range(len(items))), []
    while left:

        def gain(i: int) -> tuple[float, int]:
            near = max(
                (
                    len(sets[i] & sets[c]) / len(sets[i] | sets[c])
                    for c in chosen
                    if sets[i] | sets[c]
                ),
                default=0.0,
            )
            return (weight * items[i].score / scale - (1 - weight) * near, -i)

        best = max(left, key=gain)
        left.remove(best)
        chosen.append(best)
    return [items[i].id for i in chosen]


@settings(max_examples=200, deadline=None)
@given(
    texts=st.lists(
        st.lists(
            st.sampled_from(["red", "blue", "the", "lake", "dog", "Rex", "a", "é"]), max_size=6
        ),
        min_size=3,
        max_size=12,
    ),
    scores=st.lists(st.floats(min_value=-1, max_value=1), min_size=12, max_size=12),
    weight=st.sampled_from([0.0, 0.3, 0.6, 0.9]),
)
def test_the_order_is_mmrs_as_defined(
    texts: list[list[str]], scores: list[float], weight: float
) -> None:
    ranked = sorted(zip(texts, scores, strict=False), key=lambda p: -p[1])
    items = [item(str(n), " ".join(t), s) for n, (t, s) in enumerate(ranked)]
    assert [i.id for i in diversify(items, weight=weight)] == reference(items, weight)
