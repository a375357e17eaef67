"""The speaker's family and pets, counted and named: "I have two kids, Maya (7) and Dev
(4)", "our two kids, Maya who is 7 and Dev who is 4", "I have three dogs named Rex, Bo and
Max". A named child's age is a fact of theirs ("Maya is 7 years old"). Young children told
by age alone are the speaker's children of that age: "We have a 3 year old and a newborn"."""

from __future__ import annotations

import re

from sedimem.extraction.clauses import Match, split_list
from sedimem.extraction.subjects import NOT_NAMES
from sedimem.extraction.vocabulary import (
    FAMILY,
    FAMILY_WORDS,
    OCCUPATIONS,
    PET_WORDS,
    PETS,
    third_person,
)

__all__ = [
    "MY",
    "child_ages",
    "children_named",
    "each_of_two",
    "family",
    "pet_named",
    "relations",
    "young_children",
]

#: "my", or a parent's "our" ("our son" is the speaker's son)
MY = r"(?:[Mm]y|[Oo]ur)"

_NAMEWORD = r"[A-Z][a-z]+"
# a child named with an age: "Maya (7)", "Maya who is 7", "Maya, aged 7"
_AGED = r"(?: \(\d{1,2}\)| who(?: is|'s) \d{1,2}|,? aged \d{1,2})"
_AGED_NAMES = rf"(?P<names>{_NAMEWORD}{_AGED}?(?:(?:,| and|, and) {_NAMEWORD}{_AGED}?){{0,5}})"
_NAME_AGE = re.compile(r"(?P<name>[A-Z][a-z]+)(?:\D+(?P<age>\d{1,2}))?")
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_COUNT = r"(?P<n>\d{1,2}|" + "|".join(_COUNTS) + ")"


_SEVERAL = re.compile(r"^(?:have|has) (?P<items>.+,.+)$")
_COUNTED_ITEM = re.compile(rf"^{_COUNT} (?:[\w-]+ )?(?:{PET_WORDS}|{FAMILY_WORDS})s?$")
# the relatives whose number is worth noting ("I have a boyfriend" is no count of them)
_COUNTED = frozenset({"sister", "brother", "son", "daughter", "child"})


_NOT_COUNTED = re.compile(r"\b(?:full|of|with|for|to|in|on|at)\b", re.I)


#: "our two kids, Maya who is 7 and Dev who is 4", "my kids are Maya and Dev": named
#: children anywhere in a clause, as "have two kids, Maya and Dev" says them
_CHILDREN_NAMED = re.compile(
    rf"\b(?:[Mm]y|[Oo]ur) (?:{_COUNT} )?(?P<thing>kids|children|sons|daughters|boys|girls)"
    rf"(?:,|:| are| named| called) {_AGED_NAMES}"
)


def children_named(clause: str, subject: str) -> list[Match]:
    """The children a clause names ("my two kids are Maya and Dev"), with their ages."""
    m = _CHILDREN_NAMED.search(clause)
    if m is None:
        return []
    count = m["n"] or str(len(re.split(r",? and |, (?!aged)", m["names"])))
    return family(f"have {count} {m['thing']}, {m['names']}", subject)


# "I have no kids", "I don't have any siblings": a count of none (it replaces an earlier one)
_NONE_OF = re.compile(
    r"^(?:(?:have|has) no|(?:do not|don't|does not|doesn't) have any) (?P<thing>kids|children|"
    r"siblings|brothers|sisters|grandkids|grandchildren|pets)$"
)
_NONE_NAMES = {"kids": "children", "grandkids": "grandchildren"}


def family(rest: str, subject: str) -> list[Match]:
    several = _SEVERAL.match(rest)  # "have a dog, a cat and two fish": each counted
    items = split_list(several["items"]) if several else []
    if len(items) > 1 and all(_COUNTED_ITEM.match(item) for item in items):
        return [m for item in items for m in family(f"have {item}", subject)]
    none = _NONE_OF.match(rest)
    if none:
        things = _NONE_NAMES.get(none["thing"], none["thing"])
        return [Match.of(subject, f"number_of_{things}", "0")]
    m = re.match(
        rf"^(?:have got|has got|have|has|got) {_COUNT} (?:[\w-]+ ){{0,4}}?"
        rf"(?P<thing>{PET_WORDS}|{FAMILY_WORDS}|grandkids|grandchildren|siblings|kids|children|"
        rf"boys|girls)s?"
        rf"(?: of (?:my|our) own)?(?:,|:| named| called)?(?: {_AGED_NAMES})?(?:(?:,| and) .*)?$",
        rest,
    )
    if m is None or _NOT_COUNTED.search(rest[m.end("n") : m.start("thing")]):
        return []  # "a house full of kids": no count of children
    raw = m["n"].lower()
    count = int(raw) if raw.isdigit() else _COUNTS[raw]
    thing = m["thing"].lower()
    named = [_NAME_AGE.match(part) for part in re.split(r",? and |, (?!aged)", m["names"] or "")]
    names = [n["name"] for n in named if n is not None]
    ages = [(n["name"], n["age"]) for n in named if n is not None and n["age"]]
    singular = thing[:-1] if thing.endswith("s") and thing[:-1] in PETS else thing
    if thing.endswith("ies") and f"{thing[:-3]}y" in PETS:  # "puppies"
        singular = f"{thing[:-3]}y"
    out: list[Match] = []
    if thing in ("grandkids", "grandchildren"):  # "I have two grandchildren, Emma and Jack"
        grandchildren = [Match.of(subject, "grandchild", name) for name in names]
        return [Match.of(subject, "number_of_grandchildren", str(count)), *grandchildren]
    if thing == "siblings":  # "I have four siblings"
        return [Match.of(subject, "number_of_siblings", str(count))]
    children = thing in ("kids", "children", "boys", "girls")
    if children or thing.rstrip("s") in FAMILY or thing in FAMILY:
        relation = FAMILY.get(thing.rstrip("s"), FAMILY.get(thing, "child"))
        plural = "children" if relation == "child" else thing.removesuffix("s") + "s"
        if count > 1:
            out.append(Match.of(subject, f"number_of_{plural}", str(count)))
        elif not names and relation in _COUNTED:  # "I have a brother": one, though unnamed
            out.append(Match.of(subject, f"number_of_{plural}", "1"))
        out.extend(Match.of(subject, relation, name) for name in names)
        out.extend(Match.of(name, "age", age, 0.7) for name, age in ages)  # "Maya (7)"
        return out
    if count > 1:  # "two fish", "three puppies"
        out.append(Match.of(subject, f"number_of_{plural_of(singular)}", str(count)))
    if names:
        out.extend(Match.of(subject, "has_pet", f"{singular} named {name}") for name in names)
    elif count == 1:
        out.append(Match.of(subject, "has_pet", singular))
    return out


_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}  # fmt: skip
# "a 3 year old", "a two-month-old daughter", "a newborn", "a baby boy", "a toddler"
_YOUNG = (
    r"(?:a|an|one) (?:(?P<age>\d{1,2}|" + "|".join(_NUMBER_WORDS) + r")[- ](?P<unit>year|month|"
    r"week)s?[- ]old|(?P<stage>newborn|baby|toddler))(?: (?P<who>son|daughter|boy|girl|baby))?"
)
_YOUNG_ONE = re.compile(_YOUNG)
_ITEM = re.sub(r"\?P<\w+>", "?:", _YOUNG)  # the whole list: items are read by _YOUNG_ONE
_YOUNG_CHILDREN = re.compile(
    rf"^(?:I|[Ww]e)(?:'ve got| have got| now have| also have| have)"
    rf" {_ITEM}(?:(?:,| and|, and) {_ITEM}){{0,3}}$"
)
_CHILD_OF = {"boy": "son", "girl": "daughter", "baby": "child"}
# "My 8 year old refuses to do homework": a child of that age, whatever the rest says; a
# verb follows ("My 10 year old car broke down" is a car)
_MY_YOUNG = re.compile(
    r"^(?:[Mm]y|[Oo]ur) (?P<age>\d{1,2}|" + "|".join(_NUMBER_WORDS) + r")[- ](?P<unit>year|"
    r"month|week)s?[- ]old(?: (?P<who>son|daughter|boy|girl)\b|(?:'s)? (?:[a-z]+s|just|still|"
    r"can't|won't|didn't|doesn't|got|started|loved?|hated?|wanted|had|was|keeps?|refused)\b)"
)


def young_children(clause: str, subject: str) -> list[Match]:
    """ "We have a 3 year old and a newborn": each a child of the speaker (``has_child``),
    by age ("son aged 3", "child aged 2 months") or stage ("newborn", "baby daughter")."""
    mine = _MY_YOUNG.match(clause)
    if mine is not None:
        return [Match.of(subject, "has_child", _aged(mine), 0.7)]
    if _YOUNG_CHILDREN.match(clause) is None:
        return []
    out = []
    for m in _YOUNG_ONE.finditer(clause):
        if m["stage"]:  # "a newborn", "a baby girl": as said
            stage = m["stage"].lower()
            what = f"{stage} {m['who'].lower()}" if m["who"] and m["who"] != stage else stage
        else:
            what = _aged(m)
        out.append(Match.of(subject, "has_child", what, 0.7))
    return out


def _aged(m: re.Match[str]) -> str:
    """ "son aged 3", "child aged 2 months", "daughter aged 1 week"."""
    who = _CHILD_OF.get(m["who"] or "baby", m["who"])
    age = m["age"].lower()
    number = int(age) if age.isdigit() else _NUMBER_WORDS[age]
    unit = m["unit"].lower()
    if unit == "year":
        return f"{who} aged {number}"
    return f"{who} aged {number} {unit}" + ("s" if number != 1 else "")


# "my kids are 5 and 8", "my two daughters are 3 and 6 years old": how many, how old
_CHILD_AGES = re.compile(
    r"^[Mm]y (?:(?P<n>two|three|four|five|\d) )?(?P<who>kids|children|sons|daughters|boys|girls)"
    r" are (?:aged |ages )?(?P<ages>\d{1,2}(?:(?:,| and|, and) \d{1,2}){1,5})"
    r"(?: (?:years old|years|yo))?$"
)
_CHILD_WORDS = {"kids": "child", "children": "child", "sons": "son", "daughters": "daughter",
                "boys": "son", "girls": "daughter"}  # fmt: skip
_WORD_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5}


def child_ages(clause: str, speaker: str) -> list[Match]:
    """ "my kids are 5 and 8": how many children, and each one's age."""
    m = _CHILD_AGES.match(clause)
    if m is None:
        return []
    ages = re.findall(r"\d+", m["ages"])
    said = m["n"] and (int(m["n"]) if m["n"].isdigit() else _WORD_COUNTS[m["n"]])
    if said and said != len(ages):
        return []  # "my three kids are 5 and 8": which is which is unclear
    child = _CHILD_WORDS[m["who"].lower()]
    plural = "children" if child == "child" else f"{child}s"
    return [
        Match(speaker, f"number_of_{plural}", str(len(ages)), "has", confidence=0.7),
        *(Match(speaker, "has_child", f"{child} aged {a}", "has a", confidence=0.7) for a in ages),
    ]


_RELATIVE = re.compile(rf"\b{MY} (?P<rel>{FAMILY_WORDS})s?(?:,? (?P<name>[A-Z][a-z]+))?\b")
_RELATIVE_NAMED = re.compile(
    rf"\b{MY} (?P<rel>{FAMILY_WORDS})(?:'s name is| is called| is named| goes by) "
    r"(?P<name>[A-Z][a-z]+)\b"
)
_PET_NAMED = re.compile(
    rf"\b(?:a|an|my|our|new|another)\s+(?:\w+\s+)?(?P<pet>{PET_WORDS})\s+(?:named|called)\s+"
    r"(?P<name>[A-Z][a-z]+)"
)
_PET_MINE = re.compile(rf"\b{MY} (?:\w+ )?(?P<pet>{PET_WORDS}),? (?P<name>[A-Z][a-z]+)\b")


_SOMEONE_ELSE = re.compile(
    rf"^(?:{MY} (?:{FAMILY_WORDS})(?: [A-Z][a-z]+)?|(?!I\b|We\b)[A-Z][a-z]+) (?:has|had|got|gets|"
    r"adopted|bought|owns|rescued|took in)\b"
)


def relations(clause: str, speaker: str) -> list[Match]:
    """ "my daughter Maya", "a dog named Rex", "my cat Tom": who belongs to the speaker."""
    found: list[Match] = []
    for m in [*_RELATIVE.finditer(clause), *_RELATIVE_NAMED.finditer(clause)]:
        if m["name"] and m["name"] not in NOT_NAMES:
            predicate = FAMILY[m["rel"].lower()]
            found.append(
                Match(
                    speaker, predicate, m["name"], f"has a {m['rel']},", confidence=0.7, dated=False
                )
            )
    # "my sister has a dog named Sue", "Tom got a cat named Rex": a pet said with "a" is
    # its owner's, the clause's subject (only "my dog Rex" is the speaker's whatever the subject)
    someone_else = _SOMEONE_ELSE.match(clause) is not None
    for m in [*_PET_NAMED.finditer(clause), *_PET_MINE.finditer(clause)]:
        if someone_else and not re.match(r"(?i:my|our)\b", m[0]):
            continue
        if m["name"] not in NOT_NAMES:
            obj = f"{m['pet'].lower()} named {m['name']}"
            found.append(Match(speaker, "has_pet", obj, "has a", confidence=0.7, dated=False))
    return found


# "I have a sister who lives in London"
_HAVE_WHO = re.compile(
    rf"^(?P<have>(?:I|[Ww]e) (?:have|'ve got|have got) (?:a|an|one) (?:(?:older|younger|"
    rf"little|big|twin|step) )?(?P<rel>{FAMILY_WORDS})) who (?P<rest>[a-z].+)$"
)
# "My husband and I are both vegetarian", "my wife Mia and I both work at Google"
_AND_I = re.compile(
    rf"^(?P<who>{MY} (?:{FAMILY_WORDS})(?: [A-Z][a-z]+)?) and I (?P<be>are |'re )?"
    r"(?:both |each )?(?P<rest>[a-z].+)$"
)


_TOGETHER = re.compile(r"^(?:just |finally )?(?:broke up|split up|separated|got divorced)$")


def each_of_two(clause: str) -> list[str] | None:
    """A clause that says something of two people, as a clause of each: "I have a sister
    who lives in London" is "I have a sister" and "my sister lives in London"; "My wife
    and I both work at Google" is "I work at Google" and "my wife works at Google" ("are
    both teachers": "am a teacher", "is a teacher"). ``None`` for any other clause."""
    if who := _HAVE_WHO.match(clause):
        return [who["have"], f"my {who['rel']} {who['rest']}"]
    both = _AND_I.match(clause)
    if both is None:
        return None
    rest = both["rest"]
    if _TOGETHER.match(rest):  # "my girlfriend and I broke up": what they did together
        return [f"I {rest} with {both['who'].lower()}"]
    if both["be"] and (one := re.fullmatch(r"(?P<w>(?:[\w-]+ )?[a-z]+)s", rest)):
        rest = f"a {one['w']}" if one["w"].split()[-1] in OCCUPATIONS else rest
    if both["be"]:
        return [f"I am {rest}", f"{both['who']} is {rest}"]
    verb, _, tail = rest.partition(" ")  # "love hiking": "my husband loves hiking"
    return [f"I {rest}", f"{both['who']} {third_person(verb)} {tail}".strip()]


# "I adopted a cat last weekend, her name is Pixel", "We got a dog. His name is Max."
_NAME_AFTER_PET = re.compile(
    rf"(?P<pet>\b(?:a|an|my|our|new)\s+(?:\w+\s+)?(?:{PET_WORDS}))(?P<mid>[^.!?,]{{0,40}}?)"
    r"(?:,\s*(?:and\s+)?|[.!]\s+)(?:[Hh]er|[Hh]is|[Ii]ts)\s+name(?:'s|\s+is)\s+"
    r"(?P<name>[A-Z][a-z]+)\b"
)


def pet_named(text: str) -> str:
    """``text`` with a pet's name said after it moved beside it, as "a cat named Pixel" is
    read ("I adopted a cat last weekend, her name is Pixel": "I adopted a cat named Pixel
    last weekend")."""
    return _NAME_AFTER_PET.sub(r"\g<pet> named \g<name>\g<mid>", text)


def plural_of(pet: str) -> str:
    """ "cat" -> "cats", "puppy" -> "puppies", "fish" -> "fish"."""
    if pet in ("fish", "sheep", "goldfish"):
        return pet
    return f"{pet[:-1]}ies" if pet.endswith("y") and pet[-2:-1] not in "aeiou" else f"{pet}s"
