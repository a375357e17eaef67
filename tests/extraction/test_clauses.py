"""A turn's statement clauses, each with what came before it: the text of its sentence up
to it and the turn's sentence before (read by the rules on "but" and "he"/"she")."""

from __future__ import annotations

from sedimem.extraction.clauses import split_clauses


def test_each_clause_knows_the_text_of_its_sentence_before_it() -> None:
    clauses = split_clauses("Oh and I was born in Brazil, but honestly grew up in Texas; so yeah.")
    assert [(c.text, c.before) for c in clauses] == [
        ("I was born in Brazil", "Oh and "),
        ("grew up in Texas", "Oh and I was born in Brazil, but honestly "),
    ]
    for clause in clauses:  # the clause is where its text says
        assert clause.sentence.text[len(clause.before) :].startswith(clause.text)


def test_a_repeated_clause_is_placed_where_it_is() -> None:
    first, second, third = split_clauses("I hate olives; I love pizza but hate olives.")
    assert (first.before, second.before) == ("", "I hate olives; ")
    assert third.before == "I hate olives; I love pizza but "


def test_each_clause_knows_the_sentence_before_its_own_even_a_question() -> None:
    clauses = split_clauses(
        "Hi! What should I get my wife? She loves gardening. She loves gardening."
    )
    assert [(c.text, c.previous_sentence) for c in clauses] == [
        ("She loves gardening", "What should I get my wife?"),
        ("She loves gardening", "She loves gardening."),
    ]
