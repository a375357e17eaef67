"""What people tell an assistant about their days in passing: the medicine they take, when
they get up, how they get to work, their shifts and hours, what they save for, what they
always book, what makes them ill ("motion sick", "a bad knee"), a trait ("I'm
left-handed"), one more pet, the pets they live with, a job offer, a trip's budget, how
long they have worked somewhere, their team, time zone, rent, income, degree and trade,
what they study again ("going back to school for nursing"), who lives with them ("my mom
lives with us now"), and what they would rather do, aim at ("trying to lose 10 pounds") or
always go to ("my go-to editor").

:func:`everyday` reads the part of a clause after its subject ("take metformin for my
diabetes"), as the other profile readers do; :func:`rather`, :func:`trying` and
:func:`go_to` read a whole clause, because "I'd rather ...", "I'm trying to ..." are
wishes the statement reader otherwise skips (and a dated one, "I'd rather stay in
tonight", is no standing preference: the caller passes only undated clauses).
"""

from __future__ import annotations

import re

from sedimem.extraction.clauses import Match, bad_object
from sedimem.extraction.family import family
from sedimem.extraction.subjects import possessive
from sedimem.extraction.vocabulary import FAMILY, PET_WORDS, alternation

__all__ = ["MEDICINES", "disagrees", "everyday", "go_to", "housemate", "rather", "trying"]

#: Medicines named by themselves ("I take metformin"): a word list, because "I take notes"
#: or "I take the bus" must not read as one.
MEDICINES = frozenset(
    """metformin insulin ibuprofen aspirin paracetamol acetaminophen lisinopril atorvastatin
    simvastatin statins levothyroxine thyroxine sertraline zoloft prozac fluoxetine lexapro
    escitalopram citalopram wellbutrin bupropion adderall ritalin vyvanse concerta
    methylphenidate melatonin warfarin eliquis antihistamines antidepressants antibiotics
    amoxicillin prednisone inhalers ozempic wegovy semaglutide omeprazole gabapentin
    lithium propranolol amlodipine losartan""".split()
)  # fmt: skip
_MEDICINE = alternation(MEDICINES)

_MEDICATION = re.compile(
    rf"^(?:take|takes|am taking|am on|is on|is taking) (?:daily |some )?(?P<med>{_MEDICINE})"
    rf"(?:(?:,| and|, and) (?P<med2>{_MEDICINE}))?"  # "lisinopril and metformin"
    r"(?: (?:every|each|twice|once|daily)\b[\w ]*?)?"
    r"(?: for (?:my |his |her |the )?(?P<cond>[a-z][\w' -]{1,30}?))?$",
    re.IGNORECASE,
)
_WHEN = (
    r"(?:at|around|by|before) (?:about |around )?"
    r"(?P<t>\d{1,2}(?:[:.]\d{2})? ?(?:am|pm|a\.m\.|p\.m\.)?|dawn|sunrise|noon|midnight)"
)
_WAKE = re.compile(
    rf"^(?:usually |always |normally |often )?(?:wake|wakes|get|gets) up {_WHEN}"
    r"(?: (?:every day|on weekdays|most days|each day))?$",
    re.IGNORECASE,
)
_BED = re.compile(
    rf"^(?:usually |always |normally |often )?(?:go|goes) to (?:bed|sleep) {_WHEN}"
    r"(?: (?:every night|on weeknights|most nights|each night))?$",
    re.IGNORECASE,
)
_COMMUTE = re.compile(
    r"^(?:usually |always |mostly |often )?(?P<how>bike|cycle|walk|drive|run|commute|"
    r"take the (?:bus|train|subway|tube|metro|tram|ferry))"
    r"(?: by (?P<by>bike|car|train|bus|ferry))? to (?P<to>work|school|the office|campus)$",
    re.IGNORECASE,
)
#: "I commute by train" (where to unsaid), "I work from home", "I work remotely"
_COMMUTE_BY = re.compile(
    r"^(?:usually |always |mostly |often )?commute (?:to work )?by "
    r"(?P<by>bike|car|train|bus|ferry|subway|tube|metro|tram|boat)$",
    re.IGNORECASE,
)
_REMOTE = re.compile(
    r"^(?:mostly |fully |usually |now |currently |still )?(?:work|works|am working|is working) "
    r"(?P<o>from home|remotely|remote)(?: full-time| part-time| now| these days| mostly|"
    r"(?P<often> sometimes| most days| a lot))?$",
    re.IGNORECASE,
)
_SHIFTS = re.compile(
    r"^(?:usually |mostly |now |often )?(?:work|works|am working|is working) "
    r"(?:the |a lot of |mostly )?(?P<o>(?:night|early|late|day|evening|weekend|double|12-hour|"
    r"rotating) shifts?)$",
    re.IGNORECASE,
)
_SAVING = re.compile(
    r"^(?:am|is|are) (?:currently |still |now )?saving (?:up )?(?:for|to buy|to afford) "
    r"(?P<o>(?:a|an|my|our|the|his|her) [\w' -]{2,40})$",
    re.IGNORECASE,
)
_ALWAYS = re.compile(
    r"^(?:(?:always|only|usually) )?(?P<v>fly|travel|book|stay|shop|bank|order) "
    r"(?P<prep>with|at|on|in|through|from) (?P<o>[A-Z][\w&'.-]*(?: [A-Z][\w&'.-]*){0,2})$"
)
_GERUND = {
    "fly": "flying", "travel": "traveling", "book": "booking", "stay": "staying",
    "shop": "shopping", "bank": "banking", "order": "ordering",
}  # fmt: skip
#: the words that make each a choice of company ("fly with KLM"), not of place ("fly from
#: Boston", "stay in Brooklyn")
_CHOSEN_WITH = {
    "fly": ("with", "on"), "travel": ("with",), "book": ("through", "on", "with"),
    "stay": ("at",), "shop": ("at",), "bank": ("with",), "order": ("from",),
}  # fmt: skip
_SICK = re.compile(
    r"^(?:get|gets|am|is) (?:really |very |easily |quite |so )?"
    r"(?P<o>motion sick|motion sickness|carsick|car sick|seasick|sea sick|airsick|travel sick|"
    r"migraines|cluster headaches|panic attacks|hay fever|nosebleeds)"
    r"(?: (?P<where>on|in) (?P<what>boats?|planes?|cars?|buses|trains|flights?|ships?))?$",
    re.IGNORECASE,
)
_SICKNESS = {
    "motion sick": "motion sickness", "carsick": "motion sickness", "car sick": "motion sickness",
    "seasick": "seasickness", "sea sick": "seasickness", "airsick": "motion sickness",
    "travel sick": "motion sickness",
}  # fmt: skip
# "I have a bad knee": a body part that troubles one (a condition)
_BAD_PART = re.compile(
    r"^(?:have|has) (?P<a>a |two )?(?P<how>bad|weak|dodgy|injured|sore|stiff|broken) "
    r"(?P<part>knees?|back|hips?|shoulders?|ankles?|wrists?|elbows?|neck|feet|foot|hands?)"
    r"(?: (?:from|since|after) .+)?$"  # "from an old football injury": why, no part of it
)
_PREGNANT = re.compile(
    r"^(?:am|is) (?:about |almost |now )?\w+ (?:months?|weeks?) pregnant(?: and .*)?$"
)
#: "I was diagnosed with diabetes", "my mom was diagnosed with Alzheimer's last month"
_DIAGNOSED = re.compile(
    r"^(?:was|got|am|is|have been|has been) (?:recently |just |finally |officially )?"
    r"diagnosed with (?:an? )?(?P<o>[\w' -]{2,40})$"
)
_SOBER = re.compile(r"^(?:am|is|have been|has been) (?:now )?sober(?: for [\w ]{1,20})?$")
_HOURS = re.compile(
    r"^(?:usually |mostly |normally )?(?:work|works) (?P<o>(?:\d{1,2}(?::\d{2})? ?(?:am|pm)? "
    r"(?:to|-) \d{1,2}(?::\d{2})? ?(?:am|pm)?|nights|weekends|part-time|full-time)"
    r"(?:,? (?:Monday|Mon|weekdays)[\w -]*)?)$"
)
# "I live alone with my two cats": the count of the pets one lives with
_LIVES_WITH_PETS = re.compile(
    rf"^live (?:alone )?with (?:my|our) (?P<n>two|three|four|five|\d) (?P<pet>{PET_WORDS})$"
)
_TRAIT = re.compile(
    r"^(?:am|is) (?:an? )?(?:(?:real|big|total|complete|true) )?"
    r"(?P<o>left-handed|right-handed|ambidextrous|night owl|early bird|morning person|"
    r"introvert|extrovert|introverted|extroverted|light sleeper|heavy sleeper|picky eater|"
    r"early riser|homebody|neat freak)$",
    re.IGNORECASE,
)
#: whom one lives with ("I live with my mom", "I still live with my parents"): a place
#: after them ("with my parents in Boston") is where one lives, read elsewhere
_LIVES_WITH = re.compile(
    r"^(?:still |now |currently )?(?:live|am living) with (?:my |our )?"
    r"(?P<o>(?:(?:two|three|four|\d) )?(?:mom|mother|dad|father|parents|partner|boyfriend|"
    r"girlfriend|fianc[e\u00e9]e?|husband|wife|roommates?|flatmates?|housemates?|grandma|"
    r"grandmother|grandpa|grandfather|grandparents|sisters?|brothers?|kids|children|son|"
    r"daughter|family|in-laws|best friend))(?: (?:now|these days|again))?$",
    re.IGNORECASE,
)
#: a relative who lives with the speaker, told of them ("My mom lives with us now", "my
#: in-laws moved in with us")
_MOVED_IN = re.compile(
    r"^[Mm]y (?P<o>mom|mother|dad|father|parents|grandma|grandmother|grandpa|grandfather|"
    r"grandparents|sister|brother|son|daughter|in-laws|mother-in-law|father-in-law|"
    r"boyfriend|girlfriend)(?:,? [A-Z][a-z]+,?)? (?:now |still |also )?(?:lives?|is living|"
    r"are living|(?:has |have )?moved in) with (?:us|me)(?: now| again| these days| for now)?"
    r"(?: (?:since|after|because of|while) (?:her|his|their) (?P<why>[\w -]+))?$"  # "her surgery"
)
_RECOVERY = re.compile(r"\b(?:surgery|operation|fall|stroke|accident|injury|heart attack)$")
_ALONE = re.compile(r"^(?:still |now |currently )?(?:live|am living) (?:all )?(?:by myself|alone)$")
#: what one drinks, by name ("I drink way too much coffee, like 4 cups a day"): a word
#: list, so "I drink to forget" and "I drink occasionally" are none
_DRINKS = re.compile(
    r"^(?:mostly |only |mainly |usually )?drinks? (?:a lot of |lots of |(?:way )?too much |"
    r"(?:only |mostly )?)?(?P<o>(?:green |black |herbal |iced |decaf |oat milk |cold brew )?"
    r"(?:coffee|tea|matcha|espresso|lattes?|beer|wine|whiskey|kombucha|soda|diet coke|coke|"
    r"sparkling water|smoothies|energy drinks))\b(?!-)(?P<more>.*)$",
    re.IGNORECASE,
)
_OFFER = re.compile(
    r"^(?:just |finally )?(?:got|received|have|has) (?:an? )?(?:job )?offer "
    r"(?:from|at) (?P<org>[A-Z][\w&'.-]*(?: [A-Z][\w&'.-]*){0,2})"
    r"(?: (?:as|for) (?:an? |the )?(?P<role>[a-z][\w -]{2,30}?)(?: role| position)?)?$"
)
_BUDGET = re.compile(
    r"^(?:am|is|are) on a (?:tight |strict )?budget of (?:about |around |roughly |maybe )?"
    r"(?P<v>[$€£]\s?\d[\d,.]*k?|\d[\d,.]*k? ?(?:dollars|euros|pounds|usd|eur|gbp))"
    r"(?: (?P<per>a|per) (?P<unit>month|week|day|night|year|person))?"
    r"(?: for (?P<what>(?:the|this|my|our) [\w -]{2,25}))?$",
    re.IGNORECASE,
)


#: "I've worked at Google for 5 years": there still (the tense says so only with how long)
_TENURE = re.compile(
    r"^(?:have|has) (?:worked|been working) (?:at|for) "
    r"(?P<org>[A-Z][\w&'.-]*(?: [A-Z][\w&'.-]*){0,3})"
    r"(?: as (?:an? )?(?P<occ>[a-z][\w -]{2,30}?))? (?:for|over) (?:about |almost |nearly |"
    r"over |more than )?(?:\d+|[a-z]+|a few) (?:years?|months?|decades?)$"
)


_TEAM = re.compile(r"^(?:am|is) (?:on|in|part of) (?:the|our|my) (?P<o>[\w-]+(?: [\w-]+)?) team$")
_ZONE = re.compile(
    r"^(?:am|is) (?:in|on) (?:the )?(?P<o>(?:Eastern|Central|Mountain|Pacific|Atlantic)|"
    r"[A-Z]{2,4}|(?:GMT|UTC) ?[+-] ?\d{1,2}(?::\d{2})?) (?:time(?: zone)?|timezone)$"
)
#: "I'm going back to school for nursing": what one studies (again)
_BACK_TO_SCHOOL = re.compile(
    r"^(?:am (?:going|heading)|went|have gone|am) back (?:to|in) (?:school|college|university|"
    r"uni) (?:for|to study) (?P<o>[a-z][a-z -]{2,30}?)(?: (?:part-time|full-time|online|"
    r"at night))?$"
)
#: "I just had surgery on my knee", "I had knee surgery last week": recovering from it
_SURGERY = re.compile(
    r"^(?:just |recently )?(?:had|got) (?:a |an |my )?(?:(?P<what>[a-z]+(?: [a-z]+)?) )?"
    r"(?:surgery|operation)(?: on (?:my|his|her) (?P<part>[a-z]+(?: [a-z]+)?))?$"
)
_RENT = re.compile(
    r"^pay (?:about |around |roughly )?(?P<v>[$€£]\s?\d[\d,.]*k?)(?: a month| per month)? "
    r"(?:in|for) rent(?: a month| per month)?$"
)
_PAID = re.compile(
    r"^(?:make|earn) (?:about |around |roughly |over |almost )?"
    r"(?P<v>[$€£]?\s?\d[\d,.]*k?(?: dollars| euros| pounds)?) (?:a|an|per) (?P<u>year|month|hour)$"
)
_DEGREE = re.compile(
    r"^am (?:doing|pursuing|working on|studying for|taking) (?:a|an|my) "
    r"(?P<o>(?:master's|masters|bachelor's|PhD|doctorate|MBA|degree|diploma)(?: degree)?"
    r"(?: in [\w ]{3,40}?)?)(?: (?:part-time|full-time|online|remotely|at night))?$"
)
_INDUSTRY = re.compile(
    r"^(?:work|works|am working|is working) in (?P<o>(?!the\b|a\b|an\b)[a-z][a-z -]{2,30})$"
)
# "my go-to editor is Neovim": a favourite ("go-to" a noun's mark, never a place to go)
_GO_TO = re.compile(r"^[Mm]y go-to (?P<c>[a-z]+(?: [a-z]+)?) (?:is|are) (?P<o>[\w'.+ -]{2,40})$")


_NTH = {"second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6}
#: "We adopted a third cat, Soba!": one more pet, so the count is that ordinal
_NTH_PET = re.compile(
    rf"^(?:just |finally )?(?P<v>adopted|got|rescued|brought home) (?:a|our|my) "
    rf"(?P<nth>{'|'.join(_NTH)}) (?P<pet>{PET_WORDS})(?:,? (?:named |called )?"
    r"(?P<name>[A-Z][a-z]+))?$"
)


def _health(rest: str, subject: str) -> list[Match]:
    """Medicines, what makes one ill, a bad knee, a pregnancy, sobriety, a diagnosis, a
    surgery."""
    medication = _MEDICATION.match(rest)
    if medication:
        meds = [m for m in (medication["med"], medication["med2"]) if m]
        out = [Match.of(subject, "takes", med.lower(), 0.7) for med in meds]
        condition = (medication["cond"] or "").lower()
        if condition and not bad_object(condition):
            out.append(Match.of(subject, "has_condition", condition, 0.6))
        return out
    sick = _SICK.match(rest)
    if sick:
        said = sick["o"].lower()
        condition = _SICKNESS.get(said, said)
        if sick["what"]:
            condition = f"{condition} ({sick['where'].lower()} {sick['what'].lower()})"
        return [Match.of(subject, "has_condition", condition, 0.7)]
    bad = _BAD_PART.match(rest)
    if bad:
        article = bad["a"] or "a "
        return [Match.of(subject, "has_condition", f"{article}{bad['how']} {bad['part']}", 0.7)]
    if _PREGNANT.match(rest):  # "I'm 6 months pregnant"
        return [Match.of(subject, "has_condition", "a pregnancy", 0.7)]
    if _SOBER.match(rest):
        return [Match.of(subject, "does_not_drink", "alcohol", 0.7)]
    diagnosed = _DIAGNOSED.match(rest)
    if diagnosed and not bad_object(diagnosed["o"]):
        return [Match.of(subject, "has_condition", diagnosed["o"].strip(), 0.7)]
    surgery = _SURGERY.match(rest)
    if surgery and not (surgery["what"] and surgery["part"]):
        what = surgery["part"] or surgery["what"]
        return [Match.of(subject, "recovering_from", f"{what} surgery" if what else "surgery", 0.6)]
    return []


def _routine(rest: str, subject: str) -> list[Match]:
    """When one gets up and goes to bed, how one gets to work, shifts and hours, what one
    saves for or always books, a trait, whom one lives with, and the pets one has."""
    wake = _WAKE.match(rest)
    if wake:
        return [Match.of(subject, "habit", f"wakes up at {wake['t'].replace(' ', '')}", 0.7)]
    bed = _BED.match(rest)
    if bed:
        return [Match.of(subject, "habit", f"goes to bed at {bed['t'].replace(' ', '')}", 0.7)]
    commute = _COMMUTE.match(rest)
    if commute:
        how = commute["how"].lower()
        if how.startswith("take the"):
            verb = f"takes{how[4:]}"
        elif how == "commute":
            verb = f"commutes by {commute['by']}" if commute["by"] else "commutes"
        else:
            verb = f"{how}s"
        return [Match.of(subject, "habit", f"{verb} to {commute['to'].lower()}", 0.7)]
    commute_by = _COMMUTE_BY.match(rest)
    if commute_by:
        return [Match.of(subject, "habit", f"commutes by {commute_by['by'].lower()}", 0.7)]
    remote = _REMOTE.match(rest)
    if remote:
        where = "from home" if remote["o"].lower() == "from home" else "remotely"
        return [Match.of(subject, "habit", f"works {where}{remote['often'] or ''}", 0.7)]
    worked = _SHIFTS.match(rest) or _HOURS.match(rest)
    if worked:
        return [Match.of(subject, "habit", f"works {worked['o']}", 0.7)]
    saving = _SAVING.match(rest)
    if saving and not bad_object(saving["o"]):
        return [Match.of(subject, "goal", f"save for {saving['o']}", 0.6)]
    always = _ALWAYS.match(rest)
    if always and always["prep"] in _CHOSEN_WITH[always["v"]]:
        doing = _GERUND[always["v"]]
        return [Match.of(subject, "prefers", f"{doing} {always['prep']} {always['o']}", 0.6)]
    trait = _TRAIT.match(rest)
    if trait:
        word = trait["o"].lower()
        article = "an " if word[0] in "aeiou" else "a "
        if word.endswith(("ed", "ous")) or "-" in word:
            article = ""  # "left-handed", "introverted": no noun to count
        return [Match.of(subject, "status", f"{article}{word}", 0.6)]
    drinks = _DRINKS.match(rest)
    # "every morning" right after it: a habit, read as one elsewhere; "right now": no fact
    if drinks and not re.search(
        r"^ (?:every|each|daily|on )|\b(?:today|tonight|yesterday|now)\b", drinks["more"]
    ):
        return [Match.of(subject, "drinks", drinks["o"].lower(), 0.6)]
    housemates = _LIVES_WITH.match(rest)
    if housemates:
        return [Match.of(subject, "lives_with", f"{subject}'s {housemates['o'].lower()}", 0.6)]
    if _ALONE.match(rest):
        return [Match.of(subject, "status", "living alone", 0.6)]
    return _pets(rest, subject)


def _pets(rest: str, subject: str) -> list[Match]:
    """ "We adopted a third cat, Soba!", "I live alone with my two cats"."""
    nth = _NTH_PET.match(rest)
    if nth:
        pet = nth["pet"].lower()
        many = f"{pet[:-1]}ies" if pet.endswith("y") else f"{pet}s"  # "puppies"
        out = [Match.of(subject, f"number_of_{many}", str(_NTH[nth["nth"]]), 0.7)]
        named = f"{pet} named {nth['name']}" if nth["name"] else pet
        out.append(Match.of(subject, "has_pet", named, 0.7))
        if nth["v"] == "adopted":
            out.append(Match.of(subject, "adopted", f"a {named}", 0.7))
        return out
    pets = _LIVES_WITH_PETS.match(rest)
    return [] if pets is None else family(f"have {pets['n']} {pets['pet']}", subject)


def _work_and_money(rest: str, subject: str) -> list[Match]:
    """How long one has worked somewhere, a job offer, a team, a time zone, rent, income,
    a degree, a trade, a budget."""
    tenure = _TENURE.match(rest)
    if tenure and not bad_object(tenure["org"]):
        out = [Match.of(subject, "works_at", tenure["org"], 0.7)]
        if tenure["occ"] and not bad_object(tenure["occ"]):
            out.append(Match.of(subject, "works_as", tenure["occ"], 0.7))
        return out
    offer = _OFFER.match(rest)
    if offer:
        what = f"from {offer['org']}"
        if offer["role"]:
            what = f"{what} as {offer['role']}"
        return [Match.of(subject, "job_offer", what, 0.6)]
    team = _TEAM.match(rest)
    if team and not bad_object(team["o"]):
        return [Match.of(subject, "team", team["o"], 0.7)]
    zone = _ZONE.match(rest)
    if zone:
        return [Match.of(subject, "time_zone", zone["o"], 0.8)]
    rent = _RENT.match(rest)
    if rent:
        return [Match.of(subject, "rent", f"{rent['v']} a month", 0.7)]
    paid = _PAID.match(rest)
    if paid:
        return [Match.of(subject, "income", f"{paid['v']} a {paid['u']}", 0.7)]
    school = _BACK_TO_SCHOOL.match(rest)
    if school and not bad_object(school["o"]):
        return [Match.of(subject, "learning", school["o"], 0.6)]
    degree = _DEGREE.match(rest)
    if degree:
        return [Match.of(subject, "studying_for", f"a {degree['o']}", 0.7)]
    industry = _INDUSTRY.match(rest)
    if industry and not bad_object(industry["o"]):
        return [Match.of(subject, "works_in", industry["o"], 0.6)]
    budget = _BUDGET.match(rest)
    if budget:
        value = budget["v"]
        if budget["unit"]:
            value = f"{value} per {budget['unit'].lower()}"
        if budget["what"]:
            value = f"{value} for {budget['what']}"
        return [Match.of(subject, "budget", value, 0.7)]
    return []


def everyday(rest: str, subject: str) -> list[Match]:
    """The facts of one's days that ``rest`` states about ``subject`` (none when it states
    none of them)."""
    return _health(rest, subject) or _routine(rest, subject) or _work_and_money(rest, subject)


_RATHER = re.compile(
    r"^I(?:'d| would) (?:much |really |definitely )?rather (?P<a>(?:not )?[a-z][\w' -]+?)"
    r"(?: than (?P<b>[a-z][\w' -]+?))?\s*[.!]*$"
)
#: what one would rather do now is no standing preference ("I'd rather stay in tonight");
#: nor is what one would rather not discuss
_TRANSIENT = re.compile(
    r"\b(?:tonight|today|tomorrow|now|this|that|it|you|your|him|her|them|talk|discuss|"
    r"say|answer|think about)\b"
)


def housemate(clause: str, speaker: str) -> list[Match]:
    """ "My mom lives with us now": whom the speaker lives with, told of them."""
    moved = _MOVED_IN.match(clause)
    if moved is None:
        return []
    who = moved["o"].lower()
    who = FAMILY.get(who, who)  # "my mom": "ana's mother", as the relative's own facts say
    found = [Match.of(speaker, "lives_with", f"{speaker}'s {who}", 0.6)]
    if moved["why"] and _RECOVERY.search(moved["why"]):  # "since her hip surgery"
        why = moved["why"]
        why = f"a {why}" if why in ("stroke", "fall", "accident", "heart attack") else why
        found.append(Match.of(f"{speaker}'s {who}", "recovering_from", why, 0.6))
    return found


# "Spicy food doesn't agree with me", "dairy doesn't really agree with my stomach"
_DISAGREES = re.compile(
    r"^(?P<o>[A-Za-z][\w -]{1,30}?) (?:doesn't|does not|don't|do not|never) (?:really |always )?"
    r"agrees? with (?:me|my stomach)$"
)


def disagrees(clause: str, speaker: str) -> list[Match]:
    """ "Spicy food doesn't agree with me": what the speaker does not eat (or drink)."""
    m = _DISAGREES.match(clause)
    if m is None or m["o"].lower().split()[-1] not in _FOODS:
        return []  # "My boss doesn't agree with me": no food
    what = m["o"].lower()
    drink = what.split()[-1] in ("coffee", "caffeine", "alcohol", "beer", "wine", "milk")
    return [Match.of(speaker, "does_not_drink" if drink else "does_not_eat", what, 0.6)]


_FOODS = frozenset(
    """food foods dairy milk cheese gluten wheat bread spicy coffee caffeine alcohol beer wine
    meat pork beef fish seafood shellfish sugar eggs onions garlic beans lactose soy nuts
    peanuts chocolate""".split()
)


def rather(clause: str, speaker: str) -> list[Match]:
    """ "I'd rather take the train than fly": the speaker prefers the one to the other."""
    m = _RATHER.match(clause)
    if m is None or _TRANSIENT.search(clause.lower().replace("'d rather", "")):
        return []
    first = m["a"]
    verb = "not to " + first[4:] if first.startswith("not ") else f"to {first}"
    what = f"{verb} rather than {m['b']}" if m["b"] else verb
    if len(what.split()) > 12:
        return []
    return [Match(speaker, "prefers", possessive(what, speaker), "prefers", confidence=0.6)]


def go_to(clause: str, speaker: str) -> list[Match]:
    """ "My go-to editor is Neovim": the speaker's favourite of that kind."""
    m = _GO_TO.match(clause)
    if m is None or bad_object(m["o"]):
        return []
    category = m["c"].replace(" ", "_")
    return [Match(speaker, f"favorite_{category}", m["o"].strip(), "favorite", confidence=0.7)]


_TRYING = re.compile(
    r"^I(?:'m| am) (?:really |still |now )?trying (?:hard )?to (?P<o>(?:lose|gain|save|quit|"
    r"cut down on|cut back on|eat|drink|sleep|run|walk|read|learn|pay off|stop|exercise|"
    r"meditate|spend less|get fit|get (?:back )?in(?:to)? shape|get better at)\b[\w'$,. -]{0,60})$"
    # "I want to lose 10 kg", "I'd like to get back in shape": a wish to work towards, a
    # goal (not "I want to eat something": only what takes a while)
    r"|^I(?: really| still)?(?: (?:want|need|hope|plan|would like|(?:'m| am) "
    r"(?:hoping|planning|aiming))|'d like) to (?P<aim>(?:lose|gain|save|quit|cut down on|"
    r"cut back on|run (?:a|my first) (?:marathon|half marathon|\d+k)|learn|pay off|"
    r"stop smoking|stop drinking|get fit|get (?:back )?in(?:to)? shape|get healthier|"
    r"build muscle|tone up)\b[\w'$,. -]{0,60})$"
)


def trying(clause: str, speaker: str) -> list[Match]:
    """ "I'm trying to lose 10 pounds": what the speaker works towards (a goal)."""
    m = _TRYING.match(clause)
    if m is None or _TRANSIENT.search((aim := m["o"] or m["aim"]).lower()):
        return []
    goal = possessive(aim.strip(" ,."), speaker)
    return [Match(speaker, "goal", goal, "aims to", confidence=0.6)]
