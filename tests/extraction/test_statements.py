"""The offline extractor on sentences written for these tests (not LoCoMo text)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sedimem.consolidation import RuleExtractor
from sedimem.errors import ValidationError
from sedimem.extraction import (
    SINGLE_VALUED,
    cardinality_of,
    extract_statements,
    find_dates,
    phrase,
)
from sedimem.extraction.clauses import thing_of
from sedimem.scope import Scope
from sedimem.types.longterm import SINCE, TOLD, Episode

NOW = datetime(2023, 11, 8, 15, 30, tzinfo=UTC)  # a Wednesday


def triples(text: str, speaker: str | None = "Ana") -> list[tuple[object, ...]]:
    return [
        (s.fact.subject, s.fact.predicate, s.fact.object, s.fact.valid_from.date().isoformat(),
         s.ends)
        for s in extract_statements(text, speaker, NOW)
    ]  # fmt: skip


def test_the_issue_examples() -> None:
    assert triples("I moved to Oslo last May.") == [
        ("Ana", "lives_in", "Oslo", "2023-05-01", False)
    ]
    assert triples("my daughter Maya starts school in September") == [
        ("Ana", "daughter", "Maya", "2023-11-08", False),  # the relation is not dated
        ("Maya", "starts", "school", "2024-09-01", False),  # present tense points ahead
    ]
    assert triples("We adopted a dog named Rex!") == [
        ("Ana", "has_pet", "dog named Rex", "2023-11-08", False),
        ("Ana", "adopted", "a dog named Rex", "2023-11-08", False),
    ]
    ended, habit = extract_statements("I no longer eat meat.", "Ana", NOW)
    assert (ended.fact.subject, ended.fact.predicate, ended.fact.object) == ("Ana", "eats", "meat")
    assert ended.ends
    assert ended.fact.statement == "Ana no longer eats meat."
    assert ended.fact.metadata == {"ends": True}
    # a value said without a date of its own holds from when it was said: an end dated
    # before that still ends it (SemanticMemory.end); one with a date is another stretch
    (told,) = extract_statements("I work at Acme.", "Ana", NOW)
    assert told.fact.metadata == {SINCE: TOLD}
    (dated,) = extract_statements("I moved to Oslo in 2019.", "Ana", NOW)
    assert dated.fact.metadata == {}
    # and the habit told of it ("I eat meat almost every day"), whose value begins so
    assert (habit.fact.predicate, habit.fact.object, habit.ends) == ("habit", "eats meat", True)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Lost my job as a nurse yesterday.", ("Ana", "works_as", "nurse", "2023-11-07", True)),
        ("I quit my job at Initech", ("Ana", "works_at", "Initech", "2023-11-08", True)),
        ("I stopped smoking two years ago", ("Ana", "smokes", None, "2021-01-01", True)),
        ("I no longer work at the bakery", ("Ana", "works_at", "the bakery", "2023-11-08", True)),
        ("I'm no longer vegetarian.", ("Ana", "diet", "vegetarian", "2023-11-08", True)),
        ("I'm not vegan anymore", ("Ana", "diet", "vegan", "2023-11-08", True)),
        ("My dog Rex passed away.", ("Ana", "has_pet", "dog named Rex", "2023-11-08", True)),
        ("Our old cat died in March", ("Ana", "has_pet", "cat", "2023-03-01", True)),
        ("We had to put our dog down.", ("Ana", "has_pet", "dog", "2023-11-08", True)),
        ("Sadly, my cat Tom died.", ("Ana", "has_pet", "cat named Tom", "2023-11-08", True)),
        ("I lost my dog Rex last week", ("Ana", "has_pet", "dog named Rex", "2023-10-30", True)),
    ],
)
def test_negations_end_a_fact(text: str, expected: tuple[object, ...]) -> None:
    assert triples(text) == [expected]


def test_a_job_quit_as_a_whole_ends_where_and_as_what() -> None:
    assert triples("I quit my job.") == [
        ("Ana", "works_at", None, "2023-11-08", True),
        ("Ana", "works_as", None, "2023-11-08", True),
    ]


@pytest.mark.parametrize(
    ("text", "verb", "thing"),
    [
        ("I don't eat meat anymore", "eats", "meat"),
        ("I stopped playing tennis.", "plays", "tennis"),
        ("I no longer play the guitar", "plays", "the guitar"),
    ],
)
def test_a_plain_verb_ended_ends_its_habit_too(text: str, verb: str, thing: str) -> None:
    assert triples(text) == [
        ("Ana", verb, thing, "2023-11-08", True),
        ("Ana", "habit", f"{verb} {thing}", "2023-11-08", True),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I live in Bergen", ("Ana", "lives_in", "Bergen")),
        ("I work at Statoil.", ("Ana", "works_at", "Statoil")),
        ("Oh, I'm a nurse at the city hospital", ("Ana", "works_as", "nurse")),
        ("I'm vegetarian", ("Ana", "diet", "vegetarian")),
        ("I'm from Porto", ("Ana", "comes_from", "Porto")),
        ("I really love jazz piano, it calms me", ("Ana", "likes", "jazz piano")),
        ("I'm a huge chess fan", ("Ana", "likes", "chess")),
        ("I've been into climbing since I was ten", ("Ana", "likes", "climbing")),
        ("I hate cold coffee", ("Ana", "dislikes", "cold coffee")),
        ("I play the cello", ("Ana", "plays", "cello")),
        ("Knitting and baking are my main hobbies.", ("Ana", "likes", "Knitting")),
        ("My goal is to run a marathon", ("Ana", "goal", "run a marathon")),
        ("Tom lives in Rome", None),  # who Tom is to the speaker is unknown: not noted
        ("Roses are beautiful.", None),  # a general statement names no person
        ("My brother works at a bank", ("Ana's brother", "works_at", "a bank")),
        ("Just signed up for a pottery class!", ("Ana", "signed_up_for", "a pottery class")),
        ("I started a new job as a data engineer", ("Ana", "works_as", "data engineer")),
        ("I got a new job at Globex", ("Ana", "works_at", "Globex")),
        ("My cat Tom loves tuna", ("Ana", "has_pet", "cat named Tom")),
        ("We got another kitten called Miso", ("Ana", "has_pet", "kitten named Miso")),
        ("Networking plays a big role", None),  # a capitalised gerund names nobody
        ("I love their work", None),  # whose work is in another turn
        ("I won my first chess tournament", ("Ana", "won", "Ana's first chess tournament")),
    ],
)
def test_statements(text: str, expected: tuple[object, ...] | None) -> None:
    found = triples(text)
    assert (found[0][:3] if found else None) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Do you live in Oslo?",  # a question
        "I'd love to visit Japan",  # a wish
        "I'm gonna start a bakery",  # a plan
        "You work at Acme, right",  # about the listener
        "I love it!",  # nothing named
        "That's great, thanks!",
        "I think so",
        "I visited a very large and old museum with many rooms and halls and gardens",  # too long
    ],
)
def test_nothing_worth_keeping(text: str) -> None:
    assert triples(text) == []


@pytest.mark.parametrize(
    ("text", "pointing"),
    [
        ("I love making this!", "this"),  # a pronoun and hardly anything else: of what?
        ("I love holding them.", "them"),
        ("I like having them around.", "them"),
        ("Yeah, I love the taste of it.", "it"),
        ("I learned that the hard way.", "that"),  # a demonstrative as a pronoun
        ("I painted this after I visited the center.", "this"),
        ("I love fantasy movies, they're a great escape.", "they're"),  # a clause
    ],
)
def test_an_object_that_points_elsewhere_is_no_fact(text: str, pointing: str) -> None:
    found = triples(text)
    assert not [t for t in found if pointing in str(t[2]).split()], found


def test_an_object_of_function_words_is_no_fact() -> None:
    assert triples("We joined in.") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # enough words of its own to say what it is about
        (
            "I'm passionate about helping people find peace and joy through it.",
            "helping people find peace and joy through it",
        ),
        ("I like the people I work with.", "the people I work with"),  # a stranded preposition
        ("I adopted this cute pup from a shelter.", "this cute pup from a shelter"),  # determiner
        ("I like to ride at the", "to ride"),  # what followed was cut: so is what led to it
        ("I love The Who.", "The Who"),  # a title, whatever its words
        ("I love It Ends with Us.", "It Ends with Us"),  # not the vague "it"
        ("My favorite book is It Ends with Us.", "It Ends with Us"),
    ],
)
def test_an_object_keeps_what_it_says(text: str, expected: str) -> None:
    assert expected in [t[2] for t in triples(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I moved to Oslo around two years ago.", ("lives_in", "Oslo", "2021-01-01")),
        (
            "I started playing guitar about five years ago",
            ("started", "playing guitar", "2018-01-01"),
        ),
        ("I joined a gym almost a month ago", ("joined", "a gym", "2023-10-01")),
        ("I went hiking just yesterday", ("did", "hiking", "2023-11-07")),
    ],
)
def test_how_near_a_date_is_goes_with_the_date(text: str, expected: tuple[str, ...]) -> None:
    assert expected in [(t[1], t[2], t[3]) for t in triples(text)]


@pytest.mark.parametrize(
    ("text", "objects"),
    [
        (
            "I like to read, go for walks, and spend time with my pets.",
            ["to read", "to go for walks", "to spend time with Ana's pets"],
        ),
        ("I like to read and watch TV.", ["to read", "to watch TV"]),
        # not verbs: what the first one goes on doing
        ("I like to go hiking, camping, and fishing.", ["to go hiking", "camping", "fishing"]),
        ("I like to read biographies and memoirs.", ["to read biographies", "memoirs"]),
    ],
)
def test_what_one_likes_to_do_reads_as_an_infinitive(text: str, objects: list[str]) -> None:
    assert [t[2] for t in triples(text) if t[1] == "likes"] == objects


def test_a_possessive_is_the_subjects_own() -> None:
    assert ("Ana's spouse", "runs", "his own business") in [
        t[:3] for t in triples("My husband runs his own business.")
    ]


def test_short_lists_give_one_fact_per_item() -> None:
    assert [t[2] for t in triples("We love climbing, sliding, and playing games.")] == [
        "climbing",
        "sliding",
        "playing games",
    ]
    # not a list of likes: the tail is a remark, so the first phrase is kept whole
    assert [t[2] for t in triples("I love action and sci-fi movies, the effects are so cool")] == [
        "action and sci-fi movies"
    ]
    assert triples("I like those, these and them") == []


def test_first_person_needs_a_speaker() -> None:
    assert triples("I live in Bergen", speaker=None) == []
    # the people a turn names are subjects of their own, with or without a speaker
    assert triples("My husband Tom lives in Rome", speaker=None) == [
        ("Tom", "lives_in", "Rome", "2023-11-08", False)
    ]
    with pytest.raises(ValidationError, match="at"):
        extract_statements("I live in Bergen", "Ana", datetime(2023, 1, 1))


@pytest.mark.parametrize(
    ("text", "future", "day", "granularity"),
    [
        ("yesterday", False, "2023-11-07", "day"),
        ("last night", False, "2023-11-07", "day"),
        ("today", False, "2023-11-08", "day"),
        ("the other day", False, "2023-11-06", "week"),
        ("last week", False, "2023-10-30", "week"),
        ("next week", True, "2023-11-13", "week"),
        ("last weekend", False, "2023-11-04", "day"),
        ("last month", False, "2023-10-01", "month"),
        ("next month", True, "2023-12-01", "month"),
        ("last year", False, "2022-01-01", "year"),
        ("3 days ago", False, "2023-11-05", "day"),
        ("a couple of weeks ago", False, "2023-10-25", "week"),
        ("two months ago", False, "2023-09-01", "month"),
        ("a few years back", False, "2020-01-01", "year"),
        ("last Saturday", False, "2023-11-04", "day"),
        ("next Fri", True, "2023-11-10", "day"),
        ("on Monday", False, "2023-11-06", "day"),
        ("on Monday", True, "2023-11-13", "day"),
        ("last May", False, "2023-05-01", "month"),
        ("last December", False, "2022-12-01", "month"),
        ("next March", True, "2024-03-01", "month"),
        ("in September", True, "2024-09-01", "month"),
        ("in September", False, "2023-09-01", "month"),
        ("in December", False, "2022-12-01", "month"),
        ("since June", False, "2023-06-01", "month"),
        ("in 2010", False, "2010-01-01", "year"),
        ("in May 2019", False, "2019-05-01", "month"),
        ("on 3 March, 2021", False, "2021-03-03", "day"),
        ("on the 3rd of March 2021", False, "2021-03-03", "day"),
        ("July 4, 2020", False, "2020-07-04", "day"),
        ("on July 4", False, "2023-07-04", "day"),
        ("on December 24", False, "2022-12-24", "day"),
        ("on January 2", True, "2024-01-02", "day"),
    ],
)
def test_dates(text: str, future: bool, day: str, granularity: str) -> None:
    (mention,) = find_dates(f"It happened {text}, really.", NOW, future=future)
    assert mention.when.date().isoformat() == day
    assert mention.granularity == granularity
    assert mention.text.lower().endswith(text.lower().split()[-1])


def test_dates_that_are_not() -> None:
    assert find_dates("You may go now, in a minute", NOW) == []
    assert find_dates("on February 30, 2021", NOW) == []  # no such day
    assert find_dates("on February 30", NOW) == []
    (may,) = find_dates("We met in May", NOW)
    assert may.when.month == 5


def test_cardinality_names() -> None:
    assert {"lives_in", "works_at", "works_as", "diet"} <= SINGLE_VALUED
    assert cardinality_of("lives_in") == "one"
    assert cardinality_of("likes") == "many"
    (moved,) = extract_statements("I moved to Oslo", "Ana", NOW)
    assert moved.cardinality == "one"
    assert moved.fact.cardinality == "one"  # learn supersedes whatever the defaults say
    (liked,) = extract_statements("I like tea", "Ana", NOW)
    assert liked.cardinality == "many"
    # stated on the fact: a tenant default making "prefers" single-valued does not apply
    assert liked.fact.cardinality == "many"
    (preferred,) = extract_statements("I prefer quiet cafés", "Ana", NOW)
    assert preferred.fact.cardinality == "many"


async def test_rule_extractor_reads_chat_turns() -> None:
    episode = Episode(
        task_type="conversation",
        description="Ana: I moved to Oslo last May. I no longer eat meat.",
        occurred_at=NOW,
        scope=Scope(project="p", user="ana", session="s1"),
    )
    facts = await RuleExtractor().extract(episode)
    assert [(f.subject, f.predicate, f.object) for f in facts] == [("Ana", "lives_in", "Oslo")]
    assert facts[0].valid_from.date().isoformat() == "2023-05-01"
    assert facts[0].scope == Scope(project="p", user="ana")
    assert facts[0].source_episode_ids == [episode.id]
    ended, habit = RuleExtractor.episode_statements(episode)[-2:]
    assert ended.ends
    assert habit.ends
    assert (ended.fact.object, habit.fact.object) == ("meat", "eats meat")
    by_metadata = episode.model_copy(
        update={"description": "I work at Acme", "metadata": {"speaker": "Bo"}}
    )
    assert [f.subject for f in await RuleExtractor().extract(by_metadata)] == ["Bo"]
    assert RuleExtractor.statements("I play the cello", "Bo", NOW)[0].fact.object == "cello"


def pairs(text: str) -> list[tuple[object, ...]]:
    return [(p, o) for _, p, o, _, _ in triples(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # what follows a place is not the place: it would go stale on its own
        ("I moved to Porto for a job at a biotech startup.",
         [("lives_in", "Porto"), ("works_at", "a biotech startup")]),
        ("I live in Leeds with my wife and two kids.", [("lives_in", "Leeds")]),
        ("I moved to Lisbon to study.", [("lives_in", "Lisbon")]),
        ("We moved to Utrecht because of the schools.", [("lives_in", "Utrecht")]),
        ("I moved to Berlin for love.", [("lives_in", "Berlin")]),
        # ... while "to the", "to a" may be part of it
        ("I live in a flat next to the park.", [("lives_in", "a flat next to the park")]),
        # a new employer and role
        ("I joined a bank as a team lead!",
         [("works_at", "a bank"), ("works_as", "team lead")]),
        ("Just joined Airbus as an engineer.", [("works_at", "Airbus"), ("works_as", "engineer")]),
        # joining something without a role is no job
        ("I joined a gym last week.", [("joined", "a gym")]),
        ("I got promoted to senior engineer last week!", [("works_as", "senior engineer")]),
        # an aside after a comma does not hide the statement before it
        ("I'm a chemistry teacher in Ohio, looking for lab ideas.",
         [("works_as", "chemistry teacher"), ("lives_in", "Ohio")]),
        ("I'm currently reading Dune, about halfway through.", [("reading", "Dune")]),
        # ... nor what it would hide of a statement read without it
        ("I'm a backend developer at a fintech startup in Berlin, mostly Go and Postgres.",
         [("works_as", "backend developer"), ("works_at", "a fintech startup"),
          ("lives_in", "Berlin")]),
        # ... unless what follows is not an aside, or the head is too short to say anything
        ("I love it, Paris is great.", []),
        # a running count: one value at a time, the next count replaces it
        ("I counted 32 bird species so far this year!", [("tally_bird_species", "32")]),
        ("I've read 1,200 pages already", [("tally_pages", "1200")]),
        ("I've read 12 books.", [("tally_books", "12")]),
        ("I've seen it 3 times.", []),
        ("I just moved into a new apartment in Brooklyn.", [("lives_in", "Brooklyn")]),
        ("I work remotely for a startup in Austin.", [("works_at", "a startup in Austin")]),
        ("I'm on a keto diet.", [("diet", "on a keto diet")]),
        ("I'm on a diet.", [("status", "on a diet")]),  # no kind: no ``diet`` replaced
        ("I can't eat gluten.", [("does_not_eat", "gluten")]),
        ("My wife's name is Sarah.", [("spouse", "Sarah")]),
        ("I've been playing guitar for ten years.", [("plays", "guitar")]),
        ("I'm playing a game.", []),
        ("I'm a nurse working night shifts at a hospital.", [("works_as", "nurse")]),
        ("I retired last year after 30 years as a teacher.", [("status", "retired")]),
        # values that change, said as the change
        ("We moved back to Seattle.", [("lives_in", "Seattle")]),
        ("My rent went up to $2,400.", [("rent", "$2,400")]),
        ("My salary is now 85k.", [("salary", "85k")]),
        ("I just turned 30!", [("age", "30")]),
        ("I changed my name to Alex.", [("name", "Alex")]),
        ("I live with my parents in Madrid.", [("lives_in", "Madrid")]),
        ("I'm originally from Kenya.", [("comes_from", "Kenya")]),
        ("I'm not vegan.", []),  # what one is not, without a change, is not noted
        ("I have a 2 year old son named Theo.", [("son", "Theo")]),
        ("I'm studying for the bar exam.", [("preparing_for", "the bar exam")]),
        ("I'm currently unemployed and looking for work.", [("status", "unemployed")]),
        # a title cut inside its quotes loses them
        ('I\'m reading a book called "The Martian." It is great.',
         [("reading", "a book called The Martian")]),
    ],
)  # fmt: skip
def test_places_end_where_the_clause_moves_on_and_joining_as_is_a_job(
    text: str, expected: list[tuple[object, ...]]
) -> None:
    assert pairs(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I drive a Tesla Model 3, how often should I rotate the tires?",
         [("drives", "a Tesla Model 3")]),
        ("I live in Leeds - is it safe to cycle there?", [("lives_in", "Leeds")]),
        ("I'm vegetarian, any ideas for dinner?", [("diet", "vegetarian")]),
        # a question with no statement of the speaker's before it states nothing
        ("Do you think I live in Paris, or what?", []),
        ("You live in Paris, right?", []),
        ("I live in Paris, don't I?", []),
        ("What if I moved to Berlin, would that help?", []),
        ("I wonder, is Berlin expensive?", []),
    ],
)  # fmt: skip
def test_a_question_that_opens_on_a_statement_states_it(
    text: str, expected: list[tuple[object, ...]]
) -> None:
    assert pairs(text) == expected
    for statement in extract_statements(text, "Ana", NOW):
        assert not statement.sentence.endswith("?")  # read from the statement, not the ask


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I work night shifts as a security guard.", [("works_as", "security guard")]),
        ("I work weekend shifts as a barista", [("works_as", "barista")]),
        ("I'm recovering from knee surgery.", [("recovering_from", "knee surgery")]),
        ("I'm still recovering from a broken leg", [("recovering_from", "broken leg")]),
        (
            "My dog Rex loves the beach.",  # alive: kept, and what Rex loves is Rex's
            [("has_pet", "dog named Rex"), ("likes", "the beach")],
        ),
        ("I lost my keys again", []),
        ("I'm recovering from a long week", []),
    ],
)
def test_shifts_recovery_and_a_living_pet(text: str, expected: list[tuple[str, str]]) -> None:
    assert [(t[1], t[2]) for t in triples(text)] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My birthday is June 5th.", [("birthday", "June 5", "2023-11-08")]),
        ("My birthday's on May 3", [("birthday", "May 3", "2023-11-08")]),
        ("My birthday is June 5th, by the way.", [("birthday", "June 5", "2023-11-08")]),
        ("My birthday is next Tuesday!", [("birthday", "November 14", "2023-11-08")]),
        ("My birthday is in March.", []),  # not a day
        ("My mom's birthday is June 5th, any gift ideas?", [("birthday", "June 5", "2023-11-08")]),
        ("My sister Jo's birthday is on March 3.", [("birthday", "March 3", "2023-11-08")]),
        ("My dog's birthday is May 1.", []),
        ("I'm 6 feet tall.", [("height", "6 feet", "2023-11-08")]),
        ("I'm about 5 foot 9", [("height", "5 foot 9", "2023-11-08")]),
        ("I'm 6 feet away from the door", []),
        ("I got married last year.", [("marital_status", "married", "2022-01-01")]),
        ("I just got engaged!", [("marital_status", "engaged", "2023-11-08")]),
        ("I got divorced in 2020.", [("marital_status", "divorced", "2020-01-01")]),
        ("I'm engaged to Tom.", [("marital_status", "engaged", "2023-11-08")]),
        ("I got a new bike.", []),
    ],
)
def test_birthdays_and_changes_of_status(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert [(t[1], t[2], t[3]) for t in triples(text)] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My partner is called Sam.", [("partner", "Sam")]),
        ("My husband is named Tom", [("spouse", "Tom")]),
        ("My sister goes by Jo.", [("sister", "Jo")]),
        ("My partner is called, well, nothing yet", []),
        (
            "I just started a new job at Siemens as a data analyst.",
            [("works_as", "data analyst"), ("works_at", "Siemens")],
        ),
        (
            "I work night shifts as a security guard at the harbour.",
            [("works_as", "security guard"), ("works_at", "the harbour")],
        ),
        (
            "My brother works as a chef at a small bistro.",
            [("works_as", "chef"), ("works_at", "a small bistro")],  # the brother's
        ),
        ("I'm pregnant with our second child.", [("has_condition", "a pregnancy")]),
        ("I'm pregnant with twins!", [("has_condition", "a pregnancy")]),
        ("I'm pregnant with excitement about the trip", []),
        ("I have a greyhound called Pepper.", [("has_pet", "greyhound named Pepper")]),
    ],
)
def test_names_given_a_job_in_either_order_and_a_pregnancy(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert [(t[1], t[2]) for t in triples(text)] == expected


def test_a_relatives_birthday_is_theirs() -> None:
    assert [t[0] for t in triples("My mom's birthday is June 5th.")] == ["Ana's mother"]
    assert [t[0] for t in triples("My mom is a nurse.")] == ["Ana's mother"]
    assert [t[0] for t in triples("My sister Jo's birthday is March 3.")] == ["Jo"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("These days my favorite color is green.", [("favorite_color", "green", False)]),
        ("Nowadays I live in Porto", [("lives_in", "Porto", False)]),
        ("So now I have three cats.", [("number_of_cats", "3", False)]),
        ("I went vegan last week.", [("diet", "vegan", False)]),
        ("I've become a vegetarian", [("diet", "vegetarian", False)]),
        ("We raised the budget to 3000 euros.", [("budget", "3000 euros", False)]),
        ("I cut my rent down to $900", [("rent", "$900", False)]),
        (
            "I left Google and joined Stripe.",
            [("works_at", "Google", True), ("works_at", "Stripe", False)],
        ),
        ("I left the party and joined my friends", []),
        ("I've moved to a new place in Brooklyn.", [("lives_in", "Brooklyn", False)]),
        ("Our rent went up to 1500 a month.", [("rent", "1500 a month", False)]),
        ("I started working at Amazon in May.", [("works_at", "Amazon", False)]),
        ("I went home", []),
    ],
)
def test_changed_values_in_other_words(text: str, expected: list[tuple[str, str, bool]]) -> None:
    assert [(t[1], t[2], t[4]) for t in triples(text)] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a current preference or device replacing an old one
        (
            "I switched from iPhone to Android",
            [("prefers", "iPhone", True), ("prefers", "Android", False)],
        ),
        (
            "We switched from a PC to a Mac last year.",
            [("prefers", "PC", True), ("prefers", "Mac", False)],
        ),
        ("I switched from coffee to green tea", [("prefers", "coffee", True),
                                                  ("prefers", "green tea", False)]),
        ("I'd switch from iPhone to Android", []),  # a wish
        ("I switched from it to that", []),  # what, is in another turn
        # children and their ages
        (
            "my kids are 5 and 8",
            [("number_of_children", "2", False), ("has_child", "child aged 5", False),
             ("has_child", "child aged 8", False)],
        ),
        (
            "My two daughters are 3 and 6 years old.",
            [("number_of_daughters", "2", False), ("has_child", "daughter aged 3", False),
             ("has_child", "daughter aged 6", False)],
        ),
        (
            "We're a family of four: my kids are 5 and 8.",  # a colon opens a clause on "my"
            [("number_of_children", "2", False), ("has_child", "child aged 5", False),
             ("has_child", "child aged 8", False)],
        ),
        ("My kids are 5 and 8 hours late", []),
        ("my three kids are 5 and 8", []),  # which count is right is unclear
        # every relative of a list, the one without a count word too
        (
            "I have two sisters and a brother",
            [("number_of_sisters", "2", False), ("number_of_brothers", "1", False)],
        ),
        ("I have a brother.", [("number_of_brothers", "1", False)]),
        ("I have a boyfriend", []),  # one partner is no count worth noting
        # a baby on the way
        ("my wife and I are expecting", [("expecting", "a baby", False)]),
        ("We're expecting twins in March!", [("expecting", "twins", False)]),
        ("We're expecting a baby girl", [("expecting", "a baby girl", False)]),
        ("I'm expecting our second child", [("expecting", "a baby", False)]),
        ("I'm expecting a call from my boss", []),
        # a new employer told after "changed jobs"
        ("I changed jobs, I'm at Spotify now", [("works_at", "Spotify", False)]),
        ("I switched jobs and I'm now at Acme Corp.", [("works_at", "Acme Corp", False)]),
        ("I got a new job, I'm with Google now", [("works_at", "Google", False)]),
        ("I'm at Spotify now", []),  # alone: where one is, not where one works
        ("I changed jobs, I'm at the gym now", []),
    ],
)  # fmt: skip
def test_misses_a_review_found(text: str, expected: list[tuple[str, str, bool]]) -> None:
    assert [(t[1], t[2], t[4]) for t in triples(text)] == expected


def test_the_misses_read_as_sentences_and_date_where_said() -> None:
    by_predicate = {
        s.fact.predicate: s for s in extract_statements("We're expecting in May.", "Ana", NOW)
    }
    # the due date is no start of the fact: expecting holds from when it is said
    assert by_predicate["expecting"].fact.valid_from == NOW
    assert by_predicate["expecting"].fact.statement == "Ana is expecting a baby."
    statements = [s.fact.statement for s in extract_statements("my kids are 5 and 8", "Ana", NOW)]
    assert statements == ["Ana has 2 children.", "Ana has a child aged 5.",
                          "Ana has a child aged 8."]  # fmt: skip
    (brother,) = extract_statements("I have a brother", "Ana", NOW)
    assert brother.fact.statement == "Ana has one brother."
    assert brother.cardinality == "one"  # "I have two brothers" later replaces it
    assert phrase("Ana", "number_of_puppies", "1") == "Ana has one puppy."
    assert phrase("Ana", "number_of_children", "1") == "Ana has one child."


@pytest.mark.parametrize(
    ("text", "future", "day"),
    [
        ("last summer", False, "2023-06-01"),
        ("this spring", False, "2023-03-01"),
        ("this spring", True, "2024-03-01"),
        ("next summer", True, "2024-06-01"),
        ("last winter", False, "2022-12-01"),
        ("this fall", False, "2023-09-01"),  # 8 November: in the autumn that began 1 Sep
        ("last autumn", False, "2022-09-01"),  # this autumn is not over yet
        ("in the summer of 2019", False, "2019-06-01"),
        ("winter 2020", False, "2020-12-01"),
    ],
)
def test_seasons_are_dates(text: str, future: bool, day: str) -> None:
    (mention,) = find_dates(f"It happened {text}, really.", NOW, future=future)
    assert mention.when.date().isoformat() == day
    assert mention.granularity == "season"


def test_a_season_is_cut_out_of_the_object_and_dates_the_fact() -> None:
    assert triples("We went to Rome last summer") == [
        ("Ana", "went_to", "Rome", "2023-06-01", False)
    ]
    assert find_dates("I fall asleep in summer", NOW) == []  # no "last/this/next": no date


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "My friend Sam moved to Berlin.",
            [("Ana", "friend", "Sam"), ("Sam", "lives_in", "Berlin")],
        ),
        ("My best friend is vegan.", [("Ana's friend", "diet", "vegan")]),
        ("My coworker lives in Denver.", [("Ana's colleague", "lives_in", "Denver")]),
        ("My boss is allergic to peanuts.", [("Ana's boss", "allergic_to", "peanuts")]),
        ("My roommate works as a nurse.", [("Ana's roommate", "works_as", "nurse")]),
        ("I have two close friends.", [("Ana", "number_of_friends", "2")]),
        # what is said of them is never the speaker's
        ("My friend and I went hiking on Saturday.", [("Ana", "did", "hiking")]),
        ("My friends think I'm crazy.", []),
    ],
)
def test_what_is_said_of_friends_and_colleagues_is_about_them(
    text: str, expected: list[tuple[str, str, str]]
) -> None:
    assert [(s, p, o) for s, p, o, _, _ in triples(text)] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Radiohead is my favorite band now.", [("Ana", "favorite_band", "Radiohead")]),
        ("My favorite band these days is Radiohead.", [("Ana", "favorite_band", "Radiohead")]),
        ("I just celebrated my 30th birthday!", [("Ana", "age", "30")]),
        ("I'm down to 74 kg now.", [("Ana", "weight", "74 kg")]),
        ("We just had our third baby!", [("Ana", "number_of_children", "3")]),
        ("We welcomed our 2nd daughter last week.", [("Ana", "number_of_children", "2")]),
        (
            "I quit teaching and now I'm a software developer.",
            [("Ana", "works_as", "software developer")],
        ),
    ],
)
def test_a_new_value_told_in_passing(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert [(s, p, o) for s, p, o, _, _ in triples(text)] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the thing, without why, with whom, how often or when
        ("I drive a Civic to work.", ("drives", "a Civic")),
        ("I drive a Toyota to school.", ("drives", "a Toyota")),
        ("I ride my bike in the park.", ("rides", "Ana's bike")),
        ("I play guitar for fun.", ("plays", "guitar")),
        ("I play chess with my dad.", ("plays", "chess")),
        ("I teach yoga in the morning.", ("teaches", "yoga")),
        ("I'm learning Spanish for fun.", ("learning", "Spanish")),
        ("I've been learning the cello for two years.", ("learning", "the cello")),
        ("I'm learning Spanish for the past few months.", ("learning", "Spanish")),
        ("I teach yoga since 2019.", ("teaches", "yoga")),
        # what one likes keeps how and with whom: that is part of what is liked
        ("I like to paint in my spare time.", ("likes", "to paint in Ana's spare time")),
        ("I like hiking with my dog.", ("likes", "hiking with Ana's dog")),
        # what belongs to the thing stays
        ("I own a house with a garden.", ("owns", "a house with a garden")),
        ("I play the guitar in a band.", ("plays", "guitar in a band")),
        # a verb that is not complete without what follows keeps it
        ("I love spending time with my family.", ("likes", "spending time with Ana's family")),
        ("I like to hang out with friends.", ("likes", "to hang out with friends")),
        ("I like to go to work early.", ("likes", "to go to work early")),
    ],
)
def test_an_object_stops_where_the_thing_does(text: str, expected: tuple[str, str]) -> None:
    assert [(p, o) for _, p, o, _, _ in triples(text)] == [expected]


def test_a_habit_keeps_its_schedule_and_a_place_stays_where_it_says_where_one_lives() -> None:
    assert [(p, o) for _, p, o, _, _ in triples("I volunteer at the shelter twice a month.")] == [
        ("habit", "volunteers at the shelter twice a month")
    ]
    assert [(p, o) for _, p, o, _, _ in triples("I drink coffee every morning.")] == [
        ("habit", "drinks coffee every morning")
    ]
    assert [(p, o) for _, p, o, _, _ in triples("I take the bus to work every day.")] == [
        ("habit", "takes the bus to work every day")
    ]
    assert [(p, o) for _, p, o, _, _ in triples("I teach math at a high school in Austin.")] == [
        ("teaches", "math at a high school in Austin"),
        ("lives_in", "Austin"),
    ]


@pytest.mark.parametrize(
    ("said", "thing"),
    [
        ("a Civic to work", "a Civic"),
        ("tennis with my brother on weekends", "tennis"),
        ("yoga twice a month", "yoga"),
        # a verb that is not complete without what follows keeps it
        ("to spend time with my family", "to spend time with my family"),
        ("to hang out with friends", "to hang out with friends"),
        ("to go to work", "to go to work"),
        # what belongs to the thing stays
        ("a house with a garden", "a house with a garden"),
        ("a degree in biology", "a degree in biology"),
    ],
)
def test_thing_of_cuts_only_what_follows_a_complete_thing(said: str, thing: str) -> None:
    assert thing_of(said) == thing


def test_a_thing_learned_with_someone_keeps_them_when_the_verb_needs_them() -> None:
    assert [(p, o) for _, p, o, _, _ in triples("I'm learning to travel with my dog.")] == [
        ("learning", "to travel with Ana's dog")
    ]
