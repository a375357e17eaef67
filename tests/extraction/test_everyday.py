"""The facts of one's days told in passing: medicine, routines, shifts, savings, what one
always books, what makes one ill, traits, job offers, a trip's budget, how long one has
worked somewhere, when one was born, and what one would rather do."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from sedimem.extraction import extract_statements
from sedimem.memory import Memory
from sedimem.scope import Scope
from tests.extraction.said import AT, said, user_turn


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("I take metformin for my diabetes.", ["ana takes metformin.", "ana has diabetes."]),
        ("I'm on antidepressants.", ["ana takes antidepressants."]),
        ("I take notes every day.", ["ana takes notes every day."]),  # a habit, no medicine
        ("I take the bus.", []),
        ("I usually wake up at 6am.", ["ana wakes up at 6am."]),
        ("I usually go to bed around 11.", ["ana goes to bed at 11."]),
        ("I still live with my parents.", ["ana lives with ana's parents."]),
        ("I live with two roommates.", ["ana lives with ana's two roommates."]),
        ("I live with my parents in Boston.", ["ana lives in Boston."]),  # where, as before
        ("I live alone.", ["ana is living alone."]),
        ("I live with it.", []),
        ("I drink way too much coffee, like 4 cups a day.", ["ana drinks coffee."]),
        ("I drink oat milk lattes.", ["ana drinks oat milk lattes."]),
        ("I drink coffee every morning.", ["ana drinks coffee every morning."]),  # a habit
        ("I drink to forget.", []),
        ("I'm drinking tea right now.", []),
        ("I go to bed early.", []),
        ("I bike to work.", ["ana bikes to work."]),
        ("I take the train to work.", ["ana takes the train to work."]),
        ("I work night shifts.", ["ana works night shifts."]),
        ("I'm saving for a house.", ["ana aims to save for a house."]),
        ("I always fly with KLM.", ["ana prefers flying with KLM."]),
        ("I shop at Trader Joe's.", ["ana prefers shopping at Trader Joe's."]),
        ("I fly with my kids.", []),  # no airline
        ("I fly from Boston.", []),  # a place, no choice of company
        ("I stay in Brooklyn.", []),
        ("I get motion sick on boats.", ["ana has motion sickness (on boats)."]),
        ("I get seasick.", ["ana has seasickness."]),
        ("I'm left-handed.", ["ana is left-handed."]),
        ("I speak French and German.", ["ana speaks French.", "ana speaks German."]),
        ("I'm a night owl.", ["ana is a night owl."]),
        ("I'm an introvert.", ["ana is an introvert."]),
        ("I got a job offer from Stripe!", ["ana has a job offer from Stripe."]),
        ("I got an offer from Stripe as a staff engineer.",
         ["ana has a job offer from Stripe as staff engineer."]),
        ("I'm on a budget of about $1,500 for the trip.",
         ["ana's budget is $1,500 for the trip."]),
        ("I'm on a budget of 2000 euros a month.", ["ana's budget is 2000 euros per month."]),
    ],
)  # fmt: skip
def test_the_facts_of_ones_days(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("I'm on the data team.", ["ana is on the data team."]),
        ("I'm on the team.", []),
        ("I'm in the Eastern time zone.", ["ana is in the Eastern time zone."]),
        ("I'm in the same time zone.", []),
        ("I pay $2,100 in rent.", ["ana's rent is $2,100 a month."]),
        ("I make around 85k a year.", ["ana's income is 85k a year."]),
        ("I make 20 dollars an hour.", ["ana's income is 20 dollars a hour."]),
        ("I'm doing a master's in computer science part-time.",
         ["ana is studying for a master's in computer science."]),
        ("My husband works in construction.", ["ana's spouse works in construction."]),
        ("I work in a bank.", ["ana works at a bank."]),  # a place, not a trade
        ("My go-to editor is Neovim.", ["ana's favorite editor is Neovim."]),
        ("I don't eat pork for religious reasons.", ["ana does not eat pork."]),
        ("I'm trying to lose 10 pounds before my wedding.",
         ["ana aims to lose 10 pounds before ana's wedding."]),
        ("I'm trying to quit smoking.", ["ana aims to quit smoking."]),
        ("I'm trying to book a flight.", []),  # a task, no goal
        ("I'm trying to eat healthier this month.", []),  # dated: for now
    ],
)  # fmt: skip
def test_work_money_study_and_goals(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("I'd rather take the train than fly.",
         ["ana prefers to take the train rather than fly."]),
        ("I would much rather drive than fly.", ["ana prefers to drive rather than fly."]),
        ("I'd rather not fly.", ["ana prefers not to fly."]),
        ("I'd rather not talk about it.", []),
        ("I'd rather stay in tonight.", []),  # tonight: no standing preference
        ("I'd rather you kept it short.", []),
        ("I'd rather take my car than fly.", ["ana prefers to take ana's car rather than fly."]),
    ],
)  # fmt: skip
def test_what_one_would_rather_do(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("I've worked at Google for 5 years.", ["ana works at Google."]),
        ("I've been working for Acme Corp as a data analyst for three years.",
         ["ana works as a data analyst.", "ana works at Acme Corp."]),
        ("I've been a teacher for 12 years.", ["ana works as a teacher."]),  # 12 years: no employer
        ("I've been working in the field for over 12 years.", []),
        ("I have worked at Google before.", []),  # once, maybe no longer
        ("I'm married with three kids.", ["ana is married.", "ana has 3 children."]),
        ("I'm divorced with a daughter.", ["ana is divorced.", "ana has one daughter."]),
        ("I was born in 1990.", ["ana was born in 1990."]),
        ("I was born on March 3, 1990.", ["ana was born in 1990.", "ana's birthday is March 3."]),
        ("I've lived in Chicago since 2015.", ["ana lives in Chicago."]),
        ("I've lived in Chicago for five years.", ["ana lives in Chicago."]),
    ],
)  # fmt: skip
def test_work_family_and_home_told_with_how_long(text: str, statements: list[str]) -> None:
    assert said(text) == statements


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("I'm up to 15 books now.", ["ana's count of books is 15."]),
        ("I'm up to the task.", []),
        ("We adopted a third cat, Soba!",
         ["ana has 3 cats.", "ana has a cat named Soba.", "ana adopted a cat named Soba."]),
        ("I adopted a second puppy.",
         ["ana has 2 puppies.", "ana has a puppy.", "ana adopted a puppy."]),
        ("Change of plans, we're going to Spain in June instead of Italy.",
         ["ana is going to Spain."]),
        ("I'm going to Paris next week.", ["ana is going to Paris."]),
        ("I'm going to learn Spanish.", []),  # "going to" a deed: a wish, skipped
        ("I'm going to Paris.", []),  # no date: no plan
        ("I no longer work at Google; I'm at Meta now.",
         ["ana no longer works at Google.", "ana works at Meta."]),
        ("I'm at the gym now.", []),  # where one is, no employer
        ("I stopped taking metformin.",
         ["ana no longer takes metformin.", "ana no longer takes metformin."]),  # and the habit
    ],
)  # fmt: skip
def test_counts_pets_and_plans_that_change(text: str, statements: list[str]) -> None:
    assert said(text) == statements


async def test_the_newer_count_and_plan_answer(tmp_path: Path) -> None:
    user = Scope(tenant="t", user="kim")
    sessions = [
        (datetime(2026, 1, 10, tzinfo=UTC), "I've read 12 books so far this year."),
        (datetime(2026, 2, 14, tzinfo=UTC), "We have 2 cats, Miso and Tofu."),
        (datetime(2026, 4, 2, tzinfo=UTC), "I'm up to 15 books now."),
        (datetime(2026, 4, 20, tzinfo=UTC), "We adopted a third cat, Soba!"),
    ]
    async with await Memory.open(f"sqlite:///{tmp_path}/kim.db") as memory:
        for n, (day, content) in enumerate(sessions):
            await memory.ingest([user_turn(content, day)], user.with_session(f"s{n}"))
        for question, answer, older in [
            ("How many books have I read this year?", "kim's count of books is 15.", "12"),
            ("How many cats do I have?", "kim has 3 cats.", "2 cats"),
        ]:  # fmt: skip
            context = await memory.assemble(question, user.with_session("now"), 200)
            facts = [i.text for i in context.report.included if i.tier == "facts"]
            assert facts[0] == answer, facts
            assert not [f for f in facts if older in f], facts


async def test_a_medicine_stopped_is_no_longer_taken(tmp_path: Path) -> None:
    user = Scope(tenant="t", user="ana")
    async with await Memory.open(f"sqlite:///{tmp_path}/ana.db") as memory:
        await memory.ingest([user_turn("I take metformin for my diabetes.", AT)], user)
        later = datetime(2026, 6, 1, tzinfo=UTC)
        await memory.ingest([user_turn("I stopped taking metformin.", later)], user)
        assert await memory.facts.current("ana", "takes", scope=user) == []
        assert [f.object for f in await memory.facts.current("ana", "has_condition", scope=user)]


def test_a_home_since_a_year_holds_from_that_year() -> None:
    (found,) = extract_statements("I've lived in Chicago since 2015.", "ana", AT)
    assert found.fact.valid_from == datetime(2015, 1, 1, tzinfo=UTC)
    (born,) = extract_statements("I was born in 1990.", "ana", AT)
    assert born.fact.valid_from == AT  # the year is the fact's value, not when it began


async def test_an_assistant_answers_from_the_days_told_weeks_before(tmp_path: Path) -> None:
    user = Scope(tenant="t", user="ana")
    told = [
        user_turn(said, AT)
        for said in [
            "I take metformin for my diabetes, by the way.",
            "I usually wake up at 6am and I bike to work.",
            "I'd rather take the train than fly.",
            # the rest of what she told: the answers must stand out among them
            "I'm a nurse at St. Mary's.", "I have a dog named Rex.", "I'm learning Spanish.",
            "I play guitar.", "I hate cilantro.", "I'm afraid of heights.", "I'm 34.",
            "I drive a Tesla Model 3.", "I'm married with three kids.", "I use VS Code.",
            "I have two sisters.", "I'm training for a marathon in October.",
            "I work from home on Fridays.", "I grew up in Texas.", "I prefer aisle seats.",
            "Our API is written in Go.", "Our CI runs on GitHub Actions.",
        ]
    ]  # fmt: skip
    async with await Memory.open(f"sqlite:///{tmp_path}/ana.db") as memory:
        await memory.ingest(told, user.with_session("march"))
    async with await Memory.open(f"sqlite:///{tmp_path}/ana.db") as memory:  # a restart
        taken = await memory.facts.current("ana", "takes", scope=user)
        assert [f.object for f in taken] == ["metformin"]
        for question, answer in [
            ("What medication do I take?", "ana takes metformin."),
            ("How do I get to work?", "ana bikes to work."),
            ("Do I have any health issues?", "ana has diabetes."),
            ("When do I wake up?", "ana wakes up at 6am."),
            ("What language is our API in?", "ana's API is written in Go."),
            ("Should I book a flight or a train to Paris?",
             "ana prefers to take the train rather than fly."),
        ]:  # fmt: skip
            context = await memory.assemble(question, user.with_session("may"), 150)
            known = [i.text for i in context.report.included if i.tier == "facts"]
            assert answer in known, (question, known)


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("hey! so i just got back from lisbon lol, it was amazing. anyway i need help planning "
         "my sister's bday party, she's turning 30 next saturday",
         ["ana returned from lisbon.", "ana's sister is 30 years old."]),
        ("Looking for a gift for my husband, he's really into golf and whiskey.",
         ["ana's spouse likes golf.", "ana's spouse likes whiskey."]),
        ("My son is 14 and he's obsessed with Minecraft.",
         ["ana's son is 14 years old.", "ana's son likes Minecraft."]),
        ("My husband Arjun is a chef, he's vegetarian.",
         ["ana's spouse is Arjun.", "Arjun works as a chef.", "Arjun is vegetarian."]),
        ("My wife loves Paris, he is great.", ["ana's spouse likes Paris."]),  # he: not her
        ("My sister and my brother visited, she's a nurse.", []),  # which of them: nobody
        ("my daughter has a peanut allergy so nothing with nuts please",
         ["ana's daughter is allergic to peanuts."]),
        ("We're a family of four and our budget for groceries is about $150 a week.",
         ["ana's budget is $150 a week for groceries."]),
        ("I need a workout plan. I'm 45, I have a bad knee, and I can only train three days a "
         "week.", ["ana is 45 years old.", "ana has a bad knee."]),
        ("I just moved to Austin from Seattle and I don't know anyone here.",
         ["ana lives in Austin.", "ana moved from Seattle."]),
        ("I moved here from Texas two years ago, so the winters are new to me.",
         ["ana moved from Texas."]),
        ("We moved here from New York in 2019.", ["ana moved from New York."]),
        ("I moved from a small town.", []),  # no name: nothing to answer "where" with
        ("My flight to Tokyo is on March 12th, can you help me pack?",
         ["ana has a booking: a flight to Tokyo."]),
        ("I have a job interview at Google on Friday!", ["ana has a job interview at Google."]),
        ("I live alone with my two cats.", ["ana has 2 cats."]),
        ("I've been sober for 2 years now.", ["ana does not drink alcohol."]),
        ("I work 9 to 5 Monday to Friday.", ["ana works 9 to 5 Monday to Friday."]),
        ("ok so my dog Max has been limping since Tuesday, he's a 7 year old lab",
         ["ana has a dog named Max.", "Max is 7 years old."]),
        ("I'm 6 months pregnant and craving pickles lol", ["ana has a pregnancy."]),
        ("I'm a night shift nurse in the ICU.", ["ana works as a night shift nurse."]),
        # a field of study, no place ("lives in biology at Stanford"); the school employs
        ("I'm a PhD student in biology at Stanford.",
         ["ana works as a PhD student.", "ana works at Stanford."]),
        ("I'm a PhD student in biology at Stanford so my days are long.",  # a consequence
         ["ana works as a PhD student.", "ana works at Stanford."]),
        ("I'm a researcher in machine learning.", ["ana works as a researcher."]),
        ("I'm seeing a therapist for my depression.", []),  # a doing, not a job
        ("I'm working with a recruiter.", []),
        ("I'm working at a coffee shop while I finish school.",
         ["ana works at a coffee shop."]),
        ("I'm a dog mom.", ["ana is a dog mom."]),  # who one is, no job
        ("I'm a nursing assistant.", ["ana works as a nursing assistant."]),
        ("I'm a bit of an eccentric hair stylist for dogs.",
         ["ana works as an eccentric hair stylist."]),
        ("I have a 2 year old golden retriever named Max.", ["ana has a retriever named Max."]),
        ("I'm a professor in Chicago.", ["ana works as a professor.", "ana lives in Chicago."]),
        # a statement opening a question, after a preamble or "since"
        ("hi! quick one - I take metformin for my diabetes, anything I should avoid eating?",
         ["ana takes metformin.", "ana has diabetes."]),
        ("Since I'm allergic to nuts, which snacks are safe?", ["ana is allergic to nuts."]),
        ("As I said - what time is it?", []),
        # children told by age, a relative who lives with the speaker, a new rent
        ("We have a 3 year old and a newborn, so sleep is rare.",
         ["ana has a child aged 3.", "ana has a newborn."]),
        ("We've got a two-month-old daughter and a 4 year old.",
         ["ana has a daughter aged 2 months.", "ana has a child aged 4."]),
        ("I have a baby boy.", ["ana has a baby boy."]),
        ("We have a 10 year old car.", []),
        ("I have a 3 year old laptop and a newborn.", []),  # not every item is a child
        ("My mom lives with us now.", ["ana lives with ana's mother."]),
        ("My in-laws moved in with us in March.", ["ana lives with ana's in-laws."]),
        ("My mom lives with her sister.", []),  # not with the speaker
        ("My landlord raised the rent to $2,000.", ["ana's rent is $2,000."]),
        ("My boss raised my salary to $90k!", ["ana's salary is $90k."]),
        ("Somebody raised the rent to $2,000.", []),
        ("I'm going back to school for nursing.", ["ana is learning nursing."]),
        ("I'm going back to school.", []),  # for what: not said
        ("I got my driver's license last week!", ["ana holds a driver's license."]),
        ("Finally got my green card!", ["ana holds a green card."]),
        ("I got my MBA.", ["ana holds an MBA."]),
        ("I have a PhD in chemistry.", ["ana holds a PhD in chemistry."]),
        ("I have a degree of freedom.", []),
        ("I got my hair cut.", []),
        ("Did you get my license?", []),
        # how one works and gets there, a single parent, grandchildren
        ("I work from home.", ["ana works from home."]),
        ("I work remotely full-time.", ["ana works remotely."]),
        ("I work from home sometimes.", ["ana works from home sometimes."]),
        ("I'm gluten-free and dairy-free.",
         ["ana does not eat gluten.", "ana does not eat dairy."]),
        ("My husband works from home.", ["ana's spouse works from home."]),
        ("I commute by train.", ["ana commutes by train."]),
        ("I fly to Boston every other week for work.",
         ["ana flies to Boston every other week for work."]),
        ("I fly tomorrow.", []),
        ("I'm a single dad.", ["ana is a single dad."]),  # no job ("works as a single dad")
        ("I have three grandchildren.", ["ana has 3 grandchildren."]),
        ("I was fired up about the game.", []),
        # where one was born, a surgery, a relative and what is said of them
        ("I was born in Brazil.", ["ana comes from Brazil."]),
        ("I was born and raised in Ohio.", ["ana grew up in Ohio."]),
        ("I was born in the 80s.", []),  # when, not where
        ("I just had surgery on my knee.", ["ana is recovering from knee surgery."]),
        ("I had a great time.", []),
        ("I have a sister who lives in London.",
         ["ana has one sister.", "ana's sister lives in London."]),
        ("I have an older brother who works at Google.",
         ["ana has one brother.", "ana's brother works at Google."]),
        ("I have a sister who I adore.", []),
        # a diagnosis (a relative's too), a school that admitted one, what one got into
        ("My mom was diagnosed with Alzheimer's last month and I'm her main caregiver now.",
         ["ana's mother has Alzheimer's."]),  # "her main caregiver" is no job title
        ("I got diagnosed with ADHD last year.", ["ana has ADHD."]),
        ("My son just got into MIT! He starts in September.", ["ana's son got into MIT."]),
        ("My daughter got into the University of Michigan.",
         ["ana's daughter got into the University of Michigan."]),
        ("I got into knitting during the pandemic.", ["ana likes knitting."]),
        ("I got into trouble at work.", []),
        ("I got into a fight with my brother.", []),
        # a day's plan is no habit; a start or a schedule is
        ("I bike to work today.", []),
        # "he" or "she" opening a sentence: the one person the sentence before spoke of
        ("My wife is a teacher. She loves gardening.",
         ["ana's spouse works as a teacher.", "ana's spouse likes gardening."]),
        ("What should I get my wife for our anniversary? She loves gardening.",
         ["ana's spouse likes gardening."]),
        ("My husband Arjun is a chef. He is vegetarian.",
         ["ana's spouse is Arjun.", "Arjun works as a chef.", "Arjun is vegetarian."]),
        ("What should I get my wife and my mom? She loves gardening.", []),  # which: nobody
        ("My sister lives in Paris. He loves jazz.", ["ana's sister lives in Paris."]),
        # "and the ... is": a statement of its own, not more of the object
        ("I love hiking and the view is amazing.", ["ana likes hiking."]),
        ("We use Postgres and the frontend is React.", ["ana uses Postgres."]),
        ("I play guitar and the band is called Echo.", ["ana plays guitar."]),
        ("I like the Lord of the Rings and the Hobbit.",
         ["ana likes the Lord of the Rings and the Hobbit."]),
        # a sentence said twice: "she" is whom the sentence right before it spoke of
        ("My mom is retired. She loves gardening. My wife is a teacher. She loves gardening.",
         ["ana's mother is retired.", "ana's mother likes gardening.",
          "ana's spouse works as a teacher.",
          "ana's spouse likes gardening."]),
        ("My sister's name is Clara and she's 29.",  # the sister and Clara are one person
         ["ana's sister is Clara.", "Clara is 29 years old."]),
        ("My sister Clara and my brother Tom came, she's 29.",  # she: sister or brother?
         ["ana's sister is Clara.", "ana's brother is Tom."]),
        # a child told of by age, a marriage of some years
        ("My 8 year old refuses to do homework, any tips?", ["ana has a child aged 8."]),
        ("Our 6-month-old daughter isn't sleeping.", ["ana has a daughter aged 6 months."]),
        ("My 10 year old car broke down.", []),
        ("We've been married 10 years.", ["ana is married."]),
        # after "but", the speaker's clause goes on without its subject
        ("I was born in Brazil but grew up in Texas.",
         ["ana comes from Brazil.", "ana grew up in Texas."]),
        ("I love pizza but hate olives.", ["ana likes pizza.", "ana dislikes olives."]),
        # the "but" is read where this clause is, not where its words first appear
        ("I hate olives on pizza, I love pizza but hate olives.",
         ["ana dislikes olives on pizza.", "ana likes pizza.", "ana dislikes olives."]),
        ("My mom lives in Ohio but grew up in Texas.", ["ana's mother lives in Ohio."]),
        ("I like a lot of music, but my favorite band is Rush.", ["ana's favorite band is Rush."]),
        # a faith or an origin is no name ("ana's name is Jewish")
        ("I'm Jewish so I don't eat pork.", ["ana does not eat pork."]),
        ("I'm Canadian.", ["ana is Canadian."]),  # a nationality, not a name
        ("I'm Brian.", ["ana's name is Brian."]),
        ("I'm Trish.", ["ana's name is Trish."]),
        ("I work from home tomorrow.", []),
        ("I play tennis every Sunday since 2019.", ["ana plays tennis every Sunday."]),
    ],
)  # fmt: skip
def test_facts_told_in_passing_in_a_chatty_turn(text: str, statements: list[str]) -> None:
    assert said(text) == statements


def test_a_journey_booked_is_dated_on_its_day() -> None:
    (found,) = extract_statements("My flight to Tokyo is on March 12th.", "ana", AT)
    assert found.fact.valid_from == datetime(2026, 3, 12, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("I ended up booking the hotel near the station.",
         ["ana booked the hotel near the station."]),
        ("We decided to go with the blue sofa in the end.", ["ana chose the blue sofa."]),
        ("I bought the Sony headphones you recommended.", ["ana bought the Sony headphones."]),
        ("I canceled my Netflix subscription.", ["ana canceled ana's Netflix subscription."]),
        ("We chose Lisbon for our honeymoon.", ["ana chose Lisbon for ana's honeymoon."]),
        ("I went with my sister.", []),  # company, no choice
        ("I picked up my kids.", []),
        ("Did you recommend the Sony headphones?", []),
    ],
)  # fmt: skip
def test_what_one_settled_on(text: str, statements: list[str]) -> None:
    assert said(text) == statements


async def test_what_a_household_told_in_passing_answers_later(tmp_path: Path) -> None:
    """Children by age, who lives in, a licence got and a rent raised, told in one chat:
    after a restart, the questions about them get the facts (the newest rent first)."""
    user = Scope(tenant="t", user="ana")
    told = [
        user_turn("Our rent is $1,800 a month.", AT),
        user_turn("We have a 3 year old and a newborn, so sleep is rare.", AT),
        user_turn("My mom lives with us now, which helps.", AT),
        user_turn("I got my driver's license last week!", AT),
        user_turn("I'm going back to school for nursing.", AT),
        user_turn("What should I get my wife for our anniversary? She loves gardening.", AT),
        user_turn("I was born in Brazil.", AT),
        user_turn("My landlord raised the rent to $2,000.", datetime(2026, 5, 1, tzinfo=UTC)),
    ]
    async with await Memory.open(f"sqlite:///{tmp_path}/ana.db") as memory:
        await memory.ingest(told, user.with_session("spring"))
    async with await Memory.open(f"sqlite:///{tmp_path}/ana.db") as memory:  # a restart
        rent = await memory.facts.current("ana", "rent", scope=user)
        assert [f.object for f in rent] == ["$2,000"]  # the raise replaced the old rent
        for question, answer in [
            ("How many kids do I have?", "ana has a newborn."),
            ("Who do I live with?", "ana lives with ana's mother."),
            ("Do I have a driver's license?", "ana holds a driver's license."),
            ("What am I studying?", "ana is learning nursing."),
            ("How much is my rent?", "ana's rent is $2,000."),
            ("What should I get my wife for her birthday?", "ana's spouse likes gardening."),
            ("Where am I from?", "ana comes from Brazil."),  # a question of stop words only
        ]:
            context = await memory.assemble(question, user.with_session("june"), 150)
            known = [i.text for i in context.report.included if i.tier == "facts"]
            assert answer in known, (question, known)
            assert not [k for k in known if "$1,800" in k], known


async def test_a_lay_off_ends_the_job_told_before(tmp_path: Path) -> None:
    """ "I got laid off" ends the employer and the job told in an earlier session (whichever
    they were), "let go from Acme" ends Acme's; after a restart nothing says the user still
    works there, nor as what."""
    user = Scope(tenant="t", user="ana")
    later = datetime(2026, 5, 1, tzinfo=UTC)
    async with await Memory.open(f"sqlite:///{tmp_path}/ana.db") as memory:
        await memory.ingest(
            [user_turn("I work at Google as a designer.", AT)], user.with_session("a")
        )
        assert [f.object for f in await memory.facts.current("ana", "works_at", scope=user)] == [
            "Google"
        ]
        await memory.ingest(
            [user_turn("Rough week. I got laid off on Monday.", later)], user.with_session("b")
        )
    async with await Memory.open(f"sqlite:///{tmp_path}/ana.db") as memory:  # a restart
        assert await memory.facts.current("ana", "works_at", scope=user) == []
        assert await memory.facts.current("ana", "works_as", scope=user) == []  # the job too
    for text, ended in [
        ("I got laid off from my job.", [("works_at", None), ("works_as", None)]),
        ("I was let go from Acme in March.", [("works_at", "Acme")]),
        ("I got fired.", [("works_at", None), ("works_as", None)]),
        ("I lost my job as a nurse.", [("works_as", "nurse")]),
    ]:
        found = extract_statements(text, "ana", AT)
        assert all(s.ends for s in found), text
        assert [(s.fact.predicate, s.fact.object) for s in found] == ended
