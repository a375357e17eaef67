"""What one is and where, told plainly: a state one likes or hates being in, a home told by
what it is on or near, the school one attends, a move said in the future, what one does not
want or eat, interests, skills and diets, and relatives spoken of in the plural ("my parents
live in Florida")."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from sedimem.extraction.vocabulary import phrase
from sedimem.memory import Memory
from sedimem.scope import Scope
from tests.extraction.said import AT, said, user_turn


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("I hate being still.", ["ana dislikes being still."]),
        ("I love being outdoors and exploring new places.",
         ["ana likes being outdoors.", "ana likes exploring new places."]),
        ("I love being a mom.", ["ana likes being a mom."]),
        ("I like being able to help.", []),  # able to what: the thing is elsewhere
        ("I love being there for my friends.", []),
        ("I don't eat anything sweet.", ["ana does not eat anything sweet."]),
        ("I don't eat anything else.", []),
        ("I live under the sea.", ["ana lives under the sea."]),
        ("I live on a farm.", ["ana lives on a farm."]),
        ("I live near the beach.", ["ana lives near the beach."]),
        ("I live by the ocean.", ["ana lives by the ocean."]),
        ("I live by myself.", []),
        ("I live on a budget.", []),
        ("I live near you.", []),
        ("I'm stationed in South Korea.", ["ana lives in South Korea."]),
        ("Hi, I'm going to hairdresser school.", ["ana attends hairdresser school."]),
        ("I attend Auburn University.", ["ana attends Auburn University."]),
        ("I go to nursing school.", ["ana attends nursing school."]),
        ("I'm going back to school.", []),
        ("I'm going to the store.", []),
        ("I'm going to the school play.", []),
        ("I'll be moving to New York City next year.", ["ana is moving to New York City."]),
        ("I'm about to move to Denver in May.", ["ana is moving to Denver."]),
        ("I plan to move to Denver next spring.", ["ana is moving to Denver."]),
        ("I plan to move to Denver.", []),  # a plan alone is no fact (``test_chat_review``)
        ("I'll call you tomorrow.", []),
        ("I will be there.", []),
        ("I don't want kids.", ["ana does not want kids."]),
        ("I don't want to go.", []),
        ("I want kids.", []),  # a wish, not (yet) a fact
        ("I just became a first time father.", ["ana is a first time father."]),
        ("I'm actually in college right now, studying education.", ["ana is in college."]),
    ],
)  # fmt: skip
def test_states_homes_schools_and_plans(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("I'm a bodybuilder, so I eat a lot of meat.",
         ["ana is a bodybuilder.", "ana eats meat."]),
        ("I like a lot of music.", []),  # no one thing
        ("I've always been interested in woodworking.", ["ana likes woodworking."]),
        ("I'm not really into exercise.", ["ana dislikes exercise."]),
        ("I dropped out of high school.", ["ana dropped out of high school."]),
        ("I'm actually on a diet now.", ["ana is on a diet."]),
        ("I'm in middle school.", ["ana is in middle school."]),
        ("I'm engaged to be married.", ["ana is engaged."]),
        ("I know how to ice fish.", ["ana knows how to ice fish."]),
        ("I know how to do that.", []),
        ("I study marine biology at the university.", ["ana is learning marine biology."]),
        ("I study at night.", []),
        ("I've been practicing Taekwondo since I was a kid.", ["ana practices Taekwondo."]),
        ("I'm practicing a lot.", []),
        ("I don't have a car.", ["ana does not own a car."]),
        ("I don't have a garden of my own.", ["ana does not own a garden."]),
        ("I have a garden of my own.", ["ana owns a garden."]),
        ("I don't have a clue.", []),
        ("I don't have time.", []),
        ("I don't have any kids, but I can imagine.", ["ana has no children."]),
        ("I have no siblings.", ["ana has no siblings."]),
        ("I have no idea.", []),
        ("I have four siblings.", ["ana has 4 siblings."]),
        ("I'm homeschooling my child.", ["ana homeschools ana's child."]),
        ("I am married with kids.", ["ana is married.", "ana is a parent."]),
        ("I'm married with three kids.", ["ana is married.", "ana has 3 children."]),
        ("My favorite thing to cook is Italian food.",
         ["ana's favorite thing to cook is Italian food."]),
        ("I used to collect model cars as a hobby.",
         ["ana used to collect model cars as a hobby."]),
        ("I usually work out in the morning.", ["ana works out in the morning."]),
        ("I often travel for work.", ["ana travels for work."]),
        ("I usually feel tired.", []),  # no habit verb
        ("My mother has dementia.", ["ana's mother has dementia."]),
        ("My dad has Parkinson's.", ["ana's father has Parkinson's."]),
        ("I have ADHD.", ["ana has ADHD."]),  # as it is written
        ("I have a ms word file.", []),
        ("I'm looking for a new job.", ["ana is looking for a new job."]),
        ("I'm currently looking for a new apartment.", ["ana is looking for a new apartment."]),
        ("I'm looking for a gift for my wife.", []),  # a moment's errand
    ],
)  # fmt: skip
def test_interests_skills_schooling_and_diets(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("My parents live in Florida.", ["ana's parents live in Florida."]),
        ("My parents are both deceased.", ["ana's parents passed away."]),
        ("My parents are retired.", ["ana's parents are retired."]),
        ("My parents are divorced.", ["ana's parents are divorced."]),
        ("My kids love hiking.", ["ana's kids like hiking."]),
        ("My two brothers work at Google.", ["ana's brothers work at Google."]),
        ("My parents have a boat.", ["ana's parents own a boat."]),
        ("My kids love them too.", []),  # whom, is in another turn
        ("Our cat Luna was diagnosed with diabetes.",
         ["ana has a cat named Luna.", "Luna has diabetes."]),
        ("My dog loves the beach.", ["ana's dog likes the beach."]),
        ("My dog is a golden retriever.", ["ana's dog is a golden retriever."]),
        ("My friends are coming over.", []),
        # a parent speaks of "our" children and pets as their own
        ("Our son Leo plays soccer.", ["ana's son is Leo.", "Leo plays soccer."]),
        ("Our daughter's name is Maya.", ["ana's daughter is Maya."]),
        ("Our dogs are named Max and Bo.", ["ana has a dog named Max.", "ana has a dog named Bo."]),
        ("Our parents live in Ohio.", ["ana's parents live in Ohio."]),
        ("Our house is small.", []),
    ],
)  # fmt: skip
def test_relatives_in_the_plural(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("subject", "predicate", "obj", "ended", "statement"),
    [
        ("ana's parents", "lives_in", "Florida", False, "ana's parents live in Florida."),
        ("ana's kids", "status", "retired", False, "ana's kids are retired."),
        ("ana's kids", "status", "retired", True, "ana's kids are no longer retired."),
        ("ana's kids", "watches", "Bluey", False, "ana's kids watch Bluey."),
        ("ana's kids", "studies", "French", False, "ana's kids study French."),
        ("ana's kids", "goes_to", "school", False, "ana's kids go to school."),
        ("ana's parents", "owns", "a boat", True, "ana's parents no longer own a boat."),
        ("ana's parents", "died", None, False, "ana's parents passed away."),
        ("ana's sister", "lives_in", "Ohio", False, "ana's sister lives in Ohio."),
        ("ana", "lives", "on a farm", False, "ana lives on a farm."),
    ],
)  # fmt: skip
def test_a_plural_subject_reads_in_the_plural(
    subject: str, predicate: str, obj: str | None, ended: bool, statement: str
) -> None:
    assert phrase(subject, predicate, obj, ended=ended) == statement


async def test_where_ones_parents_live_is_not_where_one_lives(tmp_path: Path) -> None:
    """Told across turns and read after a restart: the parents' home is theirs (it does not
    replace the user's), the move is a plan, and "Where do my parents live?" is answered."""
    user = Scope(tenant="t", user="ana")
    turns = [
        user_turn(text, AT)
        for text in [
            "I live in Boston.",
            "My parents live in Florida.",
            "I'll be moving to Denver next year.",
            "I hate being still, so I run every morning.",
        ]
    ]
    async with await Memory.open(f"sqlite:///{tmp_path}/ana.db") as memory:
        await memory.ingest(turns, user.with_session("s1"))
    async with await Memory.open(f"sqlite:///{tmp_path}/ana.db") as memory:
        home = await memory.facts.current("ana", "lives_in", scope=user)
        assert [f.object for f in home] == ["Boston"]
        theirs = await memory.facts.current("ana's parents", "lives_in", scope=user)
        assert [f.statement for f in theirs] == ["ana's parents live in Florida."]
        plans = await memory.facts.current("ana", "plans", scope=user)
        assert [f.object for f in plans] == ["moving to Denver"]
        context = await memory.assemble("Where do my parents live?", user, 200)
        known = [i.text for i in context.report.included if i.tier == "facts"]
        assert "ana's parents live in Florida." in known, known


async def test_a_search_for_a_job_ends_when_one_is_found(tmp_path: Path) -> None:
    """ "I'm looking for a new job", then a month later "I got a new job at Meta": after a
    restart the job search is over, the flat hunt told beside it is not, and a relative's
    new job ends nothing of the user's."""
    user = Scope(tenant="t", user="ana")
    later = AT + timedelta(days=30)
    async with await Memory.open(f"sqlite:///{tmp_path}/ana.db") as memory:
        told = ["I'm looking for a new job.", "I'm looking for a new apartment."]
        await memory.ingest([user_turn(t, AT) for t in told], user.with_session("a"))
        await memory.ingest(
            [user_turn("My sister got a new job at Meta.", later)], user.with_session("b")
        )
        looking = await memory.facts.current("ana", "looking_for", scope=user)
        assert sorted(f.object for f in looking) == ["a new apartment", "a new job"]
        await memory.ingest([user_turn("I got a new job at Meta!", later)], user.with_session("c"))
    async with await Memory.open(f"sqlite:///{tmp_path}/ana.db") as memory:  # a restart
        looking = await memory.facts.current("ana", "looking_for", scope=user)
        assert [f.object for f in looking] == ["a new apartment"]
        assert [f.object for f in await memory.facts.current("ana", "works_at", scope=user)] == [
            "Meta"
        ]


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("I don't have a car anymore.", ["ana no longer owns a car."]),
        ("I no longer have a garden.", ["ana no longer owns a garden."]),
        ("I don't have a dog anymore.", ["ana no longer has a dog."]),
        ("I'm no longer married.", ["ana is no longer married."]),
        ("I'm not married anymore.", ["ana is no longer married."]),
        ("I don't have time anymore.", []),  # no thing one owns
        ("I'm not a morning person.", []),  # what one is not is not filed
    ],
)
def test_what_one_no_longer_has_or_is(text: str, statements: list[str]) -> None:
    assert said(text) == statements


async def test_a_car_and_a_marriage_end_when_the_user_says_so(tmp_path: Path) -> None:
    """Told in one session, ended in a later one, read after a restart: the car and the
    marriage are history, the garden told beside them is not."""
    user = Scope(tenant="t", user="ana")
    async with await Memory.open(f"sqlite:///{tmp_path}/ana.db") as memory:
        told = ["I have a car.", "I have a large garden.", "I'm married."]
        await memory.ingest([user_turn(t, AT) for t in told], user.with_session("a"))
        later = AT + timedelta(days=60)
        ended = ["I don't have a car anymore.", "I'm no longer married."]
        await memory.ingest([user_turn(t, later) for t in ended], user.with_session("b"))
    async with await Memory.open(f"sqlite:///{tmp_path}/ana.db") as memory:  # a restart
        owned = await memory.facts.current("ana", "owns", scope=user)
        assert [f.object for f in owned] == ["a large garden"]
        assert await memory.facts.current("ana", "marital_status", scope=user) == []


def test_a_usual_habit_is_one_thing_not_a_list_cut_short() -> None:
    """ "We usually watch movies, hike, or play board games": the clause read whole would
    file "watches movies, hike" (the list cut at its second comma); what is filed is read
    from before the first comma, or nothing."""
    assert all("hike" not in s for s in said("We usually watch movies, hike, or play games."))


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("I'm a nurse.", ["ana works as a nurse."]),
        ("I'm an engineer at Google.", ["ana works as an engineer.", "ana works at Google."]),
        ("I work as a UX designer.", ["ana works as a UX designer."]),  # said letter by letter
        ("I'm an RN at the clinic.", ["ana works as an RN."]),
        ("I'm a university professor.", ["ana works as a university professor."]),
        ("I work as head of sales.", ["ana works as head of sales."]),
        ("Our mom is a teacher.", ["ana's mother works as a teacher."]),
    ],
)  # fmt: skip
def test_a_role_is_said_with_its_article(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("They're so good. I've been a fan for years.", []),  # no job, nothing liked named
        ("I'm a huge fan.", []),  # not "likes huge"
        ("I'm a huge Lakers fan.", ["ana likes Lakers."]),
        ("I'm a first time dad, what advice would you give me?", ["ana is a first time dad."]),
        ("I'm a patient at Mercy.", ["ana is a patient at Mercy."]),
    ],
)  # fmt: skip
def test_how_one_stands_to_a_thing_is_no_job(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("My husband's favorite food is sushi.", ["ana's spouse's favorite food is sushi."]),
        ("My son's favorite show is Bluey.", ["ana's son's favorite show is Bluey."]),
        # a child told by age: two children's favorites are two subjects, not one replaced
        ("My 3 year old's favorite show is Bluey.", ["ana's 3-year-old's favorite show is Bluey."]),
        ("My sister Mia's favorite band is Muse.",
         ["ana's sister is Mia.", "Mia's favorite band is Muse."]),
        ("My husband's car is red.", []),
        # the article that opened the sentence is no part of a name
        ("The beach is my favorite place to relax.",
         ["ana's favorite place to relax is the beach."]),
        ("My favorite food is pizza.", ["ana's favorite food is pizza."]),
    ],
)  # fmt: skip
def test_a_relatives_favorite_is_theirs(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("I moved to Seattle from Chicago two years ago.",
         ["ana lives in Seattle.", "ana moved from Chicago."]),
        ("I moved from Chicago to Seattle.", ["ana lives in Seattle.", "ana moved from Chicago."]),
        ("I moved to Austin from the Bay Area.",
         ["ana lives in Austin.", "ana moved from the Bay Area."]),
        ("I moved away from home to Boston.", ["ana lives in Boston."]),  # home: no place named
    ],
)  # fmt: skip
def test_a_move_tells_where_one_lived_before(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        # what came before a wish is still said: only the wish is left out
        ("I've been a paralegal for six years and want to move into compliance.",
         ["ana works as a paralegal."]),
        ("I have two kids and want a third.", ["ana has 2 children."]),
        ("I live in Leeds and I hope to move to London.", ["ana lives in Leeds."]),
        # a second part sharing the subject is read as if said alone
        ("I'm 42 and just got diagnosed with high blood pressure.",
         ["ana has high blood pressure.", "ana is 42 years old."]),
        ("I live in Leeds and was born in York.", ["ana lives in Leeds.", "ana comes from York."]),
        ("I work at Acme and recently started running.",
         ["ana started running.", "ana works at Acme."]),
        ("I'm 30 and got married last year.", ["ana is 30 years old.", "ana is married."]),
    ],
)  # fmt: skip
def test_what_is_said_before_and_after_and(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("I'm cooking for my in-laws tonight and my father-in-law is diabetic.",
         ["ana's father-in-law has diabetes."]),
        ("My mother-in-law Rosa lives with us.",
         ["ana's mother-in-law is Rosa.", "ana lives with ana's mother-in-law."]),
        ("My stepdad is a pilot.", ["ana's stepfather works as a pilot."]),
        ("My grandson Eli turned 5.", ["ana's grandson is Eli.", "Eli is 5 years old."]),
        ("My father is a pilot.", ["ana's father works as a pilot."]),
    ],
)  # fmt: skip
def test_in_laws_step_relatives_and_grandchildren(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        # a new job with an aside after it is the job, not a thing started
        ("Also I started a new job at Mount Sinai, day shifts now, so I can train in the "
         "mornings.", ["ana works at Mount Sinai."]),
        ("I started running, mostly on weekends.", ["ana started running."]),
        # why a knee is bad is no part of it
        ("I have a bad knee from an old football injury.", ["ana has a bad knee."]),
        # a wish to work towards is a goal; a wish of the moment is not
        ("I want to get back in shape.", ["ana aims to get back in shape."]),
        ("I'd like to learn Spanish.", ["ana aims to learn Spanish."]),
        ("I want to lose 10 kg.", ["ana aims to lose 10 kg."]),
        ("I want to eat something.", []),
        # a home named in passing
        ("Yes, there's a gym near my apartment in Queens.", ["ana lives in Queens."]),
        ("I sold my house in Ohio.", ["ana no longer owns house in Ohio."]),  # no home now
        ("I moved out of my apartment in Queens.", []),
        ("We rented our vacation home in Florida.", []),
        ("I'm cleaning my apartment in the city.", []),
    ],
)  # fmt: skip
def test_a_coaching_chat_told_in_passing(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        # "the budget" of a user's plans is theirs, changed as "my budget" would be
        ("Change of plans: we're going in November instead, and the budget went up to $8,000.",
         ["ana's budget is $8,000."]),
        ("The rent went up to 1800.", ["ana's rent is 1800."]),
        ("The budget is tight.", []),
        ("The weight went up to 50 kg.", []),  # whose weight, the turn does not say
    ],
)  # fmt: skip
def test_the_budget_said_without_my(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        # a developer's chat with a coding assistant
        ("Our backend is written in Go and we deploy on AWS with Terraform.",
         ["ana's backend is written in Go.", "ana deploys to AWS."]),
        ("We deploy on Fridays.", []),  # when, not where
        ("We use React on the frontend.", ["ana uses React."]),  # not "uses the frontend"
        ("I use Vim on Linux.", ["ana uses Vim.", "ana uses Linux."]),
        ("I'm the tech lead for a team of 6.", ["ana works as a tech lead."]),
        ("I'm the CTO of Acme.", ["ana works as a CTO.", "ana works at Acme."]),
        ("Please always answer with code examples in TypeScript.",
         ["ana prefers answers with code examples in TypeScript."]),
        ("Answer with code examples.", []),  # for this question only, maybe
    ],
)  # fmt: skip
def test_a_developers_stack_role_and_answer_style(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        # what is said of "my wife and I" is said of each of them
        ("My partner and I are both teachers.",
         ["ana works as a teacher.", "ana's partner works as a teacher."]),
        ("My wife and I both work at Google.",
         ["ana works at Google.", "ana's spouse works at Google."]),
        ("Yes, my husband and I love hiking.", ["ana likes hiking.", "ana's spouse likes hiking."]),
        ("My wife Mia and I live in Leeds.",
         ["ana lives in Leeds.", "ana's spouse is Mia.", "Mia lives in Leeds."]),
        ("I have a sister who lives in London.",
         ["ana has one sister.", "ana's sister lives in London."]),
        # a nationality is said of oneself, apart from where one lives
        ("I'm Canadian but I've lived in London for 10 years.",
         ["ana is Canadian.", "ana lives in London."]),
        ("I'm half Japanese.", ["ana is half Japanese."]),
        ("I'm Catholic.", []),
    ],
)  # fmt: skip
def test_two_people_at_once_and_nationality(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("My kids go to Lincoln Elementary.", ["ana's kids attend Lincoln Elementary."]),
        ("My son goes to Roosevelt High.", ["ana's son attends Roosevelt High."]),
        ("I went to high school in Ohio.", ["ana went to high school in Ohio."]),
    ],
)  # fmt: skip
def test_a_school_by_its_name_alone(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        # a pet's name said after it is its name
        ("I adopted a cat last weekend, her name is Pixel.",
         ["ana has a cat named Pixel.", "ana adopted a cat named Pixel."]),
        ("We got a dog. His name is Max.", ["ana has a dog named Max."]),
        ("I met a woman, her name is Ann.", ["ana met a woman."]),
        # a pet said with "a" is its owner's: the clause's subject, not always the speaker
        ("My sister has a dog named Sue.", ["ana's sister has a dog named Sue."]),
        ("My sister has a dog, her name is Sue.", ["ana's sister has a dog named Sue."]),
        ("Tom has a dog named Rex.", []),
        ("I have a dog named Rex.", ["ana has a dog named Rex."]),
    ],
)  # fmt: skip
def test_a_pets_name_and_whose_pet_it_is(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        # a student's year is no job; the school and what one studies are facts
        ("I'm a sophomore at NYU studying computer science.",
         ["ana is a sophomore.", "ana attends NYU.", "ana is learning computer science."]),
        ("I'm a senior engineer at Google.",
         ["ana works as a senior engineer.", "ana works at Google."]),
        # a habit of working somewhere names the employer
        ("I work part-time at Starbucks on weekends.",
         ["ana works part-time at Starbucks on weekends.", "ana works at Starbucks."]),
        ("I work from home on Fridays.", ["ana works from home on Fridays."]),
        # medications in a list, an event after "since", grandchildren by name
        ("I take lisinopril and metformin every morning.",
         ["ana takes lisinopril.", "ana takes metformin."]),
        ("I'm 72 and I live alone since my wife died.",
         ["ana is 72 years old.", "ana is living alone.", "ana's spouse passed away."]),
        ("I died laughing.", []),
        ("I have two grandchildren, Emma and Jack.",
         ["ana has 2 grandchildren.", "ana's grandchild is Emma.", "ana's grandchild is Jack."]),
    ],
)  # fmt: skip
def test_a_students_and_a_retirees_chat(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        # every item of a list is kept: an allergy left out is a risk
        ("I'm allergic to peanuts, shellfish and eggs.",
         ["ana is allergic to peanuts.", "ana is allergic to shellfish.",
          "ana is allergic to eggs."]),
        ("I'm afraid of spiders, heights and clowns.",
         ["ana is afraid of spiders.", "ana is afraid of heights.", "ana is afraid of clowns."]),
        ("I'm allergic to cats, which is sad.", ["ana is allergic to cats."]),
        # how well one speaks is no part of the language
        ("I speak fluent Spanish and some French.", ["ana speaks Spanish.", "ana speaks French."]),
        ("I speak English, Hindi and a bit of Tamil.",
         ["ana speaks English.", "ana speaks Hindi.", "ana speaks Tamil."]),
    ],
)  # fmt: skip
def test_every_item_of_a_list(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("I'm allergic to nuts and dairy.",
         ["ana is allergic to nuts.", "ana is allergic to dairy."]),
        ("I'm vegan and gluten-free.", ["ana is vegan.", "ana does not eat gluten."]),
        ("I play tennis, golf and chess.",
         ["ana plays tennis.", "ana plays golf.", "ana plays chess."]),
        ("I play the guitar and the piano.", ["ana plays guitar.", "ana plays piano."]),
        ("I play guitar and sing.", ["ana plays guitar."]),  # singing is played by nobody
        ("I use Python, Go and Rust.", ["ana uses Python.", "ana uses Go.", "ana uses Rust."]),
        ("I collect all kinds of things, like old signs, furniture, and clothes.",
         ["ana collects old signs.", "ana collects furniture.", "ana collects clothes."]),
    ],
)  # fmt: skip
def test_lists_of_what_one_plays_uses_collects_or_cannot_eat(
    text: str, statements: list[str]
) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("I have a dog, a cat and two fish.",
         ["ana has a dog.", "ana has a cat.", "ana has 2 fish."]),
        ("I have three puppies.", ["ana has 3 puppies."]),
        ("I have a sister, two brothers and a dog.",
         ["ana has one sister.", "ana has 2 brothers.", "ana has a dog."]),
    ],
)  # fmt: skip
def test_pets_and_relatives_counted_in_one_list(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        # the relative is named as their own facts name them ("ana's mother", not "mom"),
        # and what they recover from is theirs
        ("My mom lives with us since her hip surgery.",
         ["ana lives with ana's mother.", "ana's mother is recovering from hip surgery."]),
        ("My dad moved in with us after his stroke.",
         ["ana lives with ana's father.", "ana's father is recovering from a stroke."]),
        ("My mom lives with us since her divorce.", ["ana lives with ana's mother."]),
        # what does not agree with one is what one does not eat or drink
        ("Spicy food doesn't agree with me.", ["ana does not eat spicy food."]),
        ("Coffee doesn't agree with me.", ["ana does not drink coffee."]),
        ("My boss doesn't agree with me.", []),
    ],
)  # fmt: skip
def test_a_relative_who_moved_in_and_what_does_not_agree(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("I changed my name to Ana Lopez.", ["ana's name is Ana Lopez."]),
        ("I go by Annie now.", ["ana's name is Annie."]),
        ("call me maybe", []),  # a song, not a name
        ("Call me back later.", []),
    ],
)  # fmt: skip
def test_a_name_changed_or_gone_by(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("I have a house, a car and a boat.",
         ["ana owns a house.", "ana owns a car.", "ana owns a boat."]),
        ("I have a house in Maine, a boat and a cabin.",
         ["ana owns a house in Maine.", "ana owns a boat.", "ana owns a cabin."]),
        ("I have a garden, which I love.", ["ana owns a garden."]),
    ],
)  # fmt: skip
def test_every_thing_one_has_in_a_list(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("I'm a vegetarian but I eat fish sometimes.", ["ana is vegetarian.", "ana eats fish."]),
        ("I don't eat after 8pm.", []),  # when one eats, not what one does not eat
        ("I don't eat meat.", ["ana does not eat meat."]),
    ],
)  # fmt: skip
def test_how_often_and_when_are_no_part_of_food(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("I just bought a Tesla Model Y.",
         ["ana bought a Tesla Model Y.", "ana drives a Tesla Model Y."]),
        ("I bought a new laptop.", ["ana bought a new laptop."]),
        ("I adopted a dog.", ["ana adopted a dog.", "ana has a dog."]),
    ],
)  # fmt: skip
def test_what_a_past_event_makes_true(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("My son has ADHD and dyslexia.", ["ana's son has ADHD.", "ana's son has dyslexia."]),
        ("My mom has diabetes and high blood pressure.",
         ["ana's mother has diabetes.", "ana's mother has high blood pressure."]),
        ("I have diabetes and a dog.", ["ana has diabetes.", "ana has a dog."]),
    ],
)  # fmt: skip
def test_each_condition_of_a_list(text: str, statements: list[str]) -> None:
    assert said(text) == statements
