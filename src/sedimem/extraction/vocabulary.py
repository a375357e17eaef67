"""The predicates the offline extractor emits: their cardinality, how a statement says them,
and the words that lead to them.

Cardinality follows meaning. Single-valued predicates (:data:`SINGLE_VALUED`, plus every
``favorite_*`` and ``number_of_*``) hold one value at a time: a new value supersedes the old
one (``lives_in``, ``works_at``, ``name``, ``age``, ``diet``, a measure such as ``budget``).
Every other predicate accumulates (``likes``, ``prefers``, ``dislikes``, ``has_pet``,
``allergic_to``, ``has_condition``, ``habit``, events such as ``visited``). The extractor
states the cardinality on every fact it emits, so a tenant's declarations (which may make
``prefers`` single-valued) do not turn "prefers quiet cafés" into the end of "prefers tea".

A statement is phrased from its parts by :func:`phrase`, never kept from the source text, so
an edit of the object re-phrases it and parts and text cannot disagree.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

__all__ = [
    "CARS",
    "NATIONALITIES",
    "third_person",
    "EVENT_VERBS",
    "FAMILY",
    "FAMILY_WORDS",
    "GERUNDS",
    "LANGUAGES",
    "OWNED",
    "PLAYED",
    "RIDDEN",
    "ACRONYMS",
    "CONDITIONS",
    "MEASURES",
    "OCCUPATIONS",
    "PETS",
    "PET_WORDS",
    "SINGLE_VALUED",
    "Cardinality",
    "alternation",
    "cardinality_of",
    "phrase",
]

Cardinality = Literal["one", "many"]

#: One current value per subject: a new value supersedes the old one.
SINGLE_VALUED = frozenset(
    {
        "name", "lives_in", "works_at", "works_as", "diet", "spouse", "comes_from", "age",
        "height", "weight", "budget", "rent", "salary", "income", "savings", "marital_status",
        "birthday", "anniversary", "team", "time_zone",
    }
)  # fmt: skip

#: Predicate families of one value at a time: ``favorite_color``, ``number_of_cats`` (what
#: one has), ``tally_bird_species`` (a running count: "I've counted 32 bird species").
SINGLE_PREFIXES = ("favorite_", "number_of_", "tally_")

#: "my <measure> is <value>": measures that change, one value at a time.
MEASURES = frozenset(SINGLE_VALUED - {"name", "lives_in", "works_at", "works_as", "diet",
                                      "spouse", "comes_from"})  # fmt: skip

#: How a statement says a predicate: ``{s}`` the subject, ``{o}`` the object. A predicate
#: not listed reads as its words ("went_to" -> "{s} went to {o}").
_PHRASES: dict[str, str] = {
    "name": "{s}'s name is {o}",
    "lives_in": "{s} lives in {o}",
    "works_at": "{s} works at {o}",
    "works_as": "{s} works as {o}",
    "comes_from": "{s} comes from {o}",
    "moved_from": "{s} moved from {o}",
    "lives_with": "{s} lives with {o}",
    "drinks": "{s} drinks {o}",
    "holds": "{s} holds {o}",
    "admitted_to": "{s} got into {o}",
    "diet": "{s} is {o}",
    "age": "{s} is {o} years old",
    "height": "{s} is {o} tall",
    "weight": "{s} weighs {o}",
    "has_pet": "{s} has a {o}",
    "has_child": "{s} has a {o}",
    "expecting": "{s} is expecting {o}",
    "allergic_to": "{s} is allergic to {o}",
    "has_condition": "{s} has {o}",
    "recovering_from": "{s} is recovering from {o}",
    "birthday": "{s}'s birthday is {o}",
    "anniversary": "{s}'s anniversary is {o}",
    "habit": "{s} {o}",
    "plans": "{s} is {o}",
    "learning": "{s} is learning {o}",
    "training_for": "{s} is training for {o}",
    "reading": "{s} is reading {o}",
    "building": "{s} is building {o}",
    "writing": "{s} is writing {o}",
    "renovating": "{s} is renovating {o}",
    "working_on": "{s} is working on {o}",
    "preparing_for": "{s} is preparing for {o}",
    "has_booking": "{s} has a booking: {o}",
    "has_appointment": "{s} has {o}",
    "due": "{s}'s {o} is due",
    "expires": "{s}'s {o} expires",
    "does_not_eat": "{s} does not eat {o}",
    "does_not_drink": "{s} does not drink {o}",
    "does_not_want": "{s} does not want {o}",
    "does_not_own": "{s} does not own {o}",
    "looking_for": "{s} is looking for {o}",
    "does_not_do": "{s} does not {o}",
    "goal": "{s} aims to {o}",
    "status": "{s} is {o}",
    "marital_status": "{s} is {o}",
    "afraid_of": "{s} is afraid of {o}",
    "grew_up_in": "{s} grew up in {o}",
    "born_in": "{s} was born in {o}",
    "job_offer": "{s} has a job offer {o}",
    "team": "{s} is on the {o} team",
    "time_zone": "{s} is in the {o} time zone",
    "studying_for": "{s} is studying for {o}",
    "written_in": "{s} is written in {o}",
    "built_with": "{s} is built with {o}",
    "hosted_on": "{s} is hosted on {o}",
    "deploys_to": "{s} deploys to {o}",
    "nationality": "{s} is {o}",
    "died": "{s} passed away",
}


#: Past-tense event verbs -> predicate (the object is what follows, dates cut out).
EVENT_VERBS: dict[str, str] = {
    "went to": "went_to",
    "visited": "visited",
    "attended": "attended",
    "started": "started",
    "began": "started",
    "finished": "finished",
    "completed": "finished",
    "won": "won",
    "adopted": "adopted",
    "bought": "bought",
    "got back from": "returned_from",
    "back from": "returned_from",  # "Back from Lisbon!"
    "came back from": "returned_from",
    "joined": "joined",
    "graduated from": "graduated_from",
    "dropped out of": "dropped_out_of",
    "ran": "ran",
    "painted": "painted",
    "signed with": "signed_with",
    "signed up for": "signed_up_for",
    "took up": "took_up",
    "learned": "learned",
    "published": "published",
    "launched": "launched",
    "opened": "opened",
    "built": "built",
    "created": "created",
    "wrote": "wrote",
    "volunteered at": "volunteered_at",
    "traveled to": "traveled_to",
    "travelled to": "traveled_to",
    "flew to": "traveled_to",
    "hiked": "hiked",
    "climbed": "climbed",
    "passed": "passed",
    "received": "received",
    "met": "met",
    # what one settled on, often after an assistant's advice ("We decided to go with the blue
    # sofa"; not "went with", "picked": "I went with my sister", "I picked up my kids")
    "booked": "booked",
    "ended up booking": "booked",
    "ordered": "ordered",
    "canceled": "canceled",
    "cancelled": "canceled",
    "chose": "chose",
    "opted for": "chose",
    "settled on": "chose",
    "decided on": "chose",
    "decided to go with": "chose",
    "ended up going with": "chose",
    "ended up with": "chose",
    "ended up buying": "bought",
}

#: Gerunds after "stopped"/"quit"/"no longer" -> the predicate they end.
GERUNDS: dict[str, str] = {
    "eating": "eats",
    "eat": "eats",
    "drinking": "drinks",
    "drink": "drinks",
    "smoking": "smokes",
    "smoke": "smokes",
    "playing": "plays",
    "play": "plays",
    "taking": "takes",  # "I stopped taking metformin"
    "doing": "does",  # "I no longer do yoga": the habit "does yoga ..." ends
    "do": "does",
    "working at": "works_at",
    "working for": "works_at",
    "work at": "works_at",
    "work for": "works_at",
    "working as": "works_as",
    "work as": "works_as",
    "living in": "lives_in",
    "live in": "lives_in",
    "liking": "likes",
    "like": "likes",
    "love": "likes",
    "enjoy": "likes",
}

#: What one learns that has no verb of its own: "I gave up on Spanish" ends learning it.
LANGUAGES = frozenset(
    """spanish french german italian portuguese japanese chinese mandarin cantonese korean
    russian arabic hindi urdu bengali dutch swedish norwegian danish finnish polish greek
    turkish hebrew latin vietnamese thai indonesian swahili czech hungarian ukrainian irish
    welsh icelandic persian farsi tagalog asl""".split()
) | {"sign language"}  # fmt: skip

#: Sports, games and instruments one plays: "I quit tennis" ends playing it (and the habit).
PLAYED = frozenset(
    """tennis golf football soccer basketball baseball volleyball hockey rugby cricket
    badminton squash handball lacrosse softball polo pickleball padel darts pool billiards
    bowling chess poker bridge guitar piano violin cello drums bass flute saxophone sax
    trumpet clarinet ukulele harp viola trombone banjo keyboard""".split()
) | {"table tennis", "ping pong", "ice hockey", "video games"}  # fmt: skip

#: Words that make a thing one drives: a car, a make or a model ("my Civic", "a Tesla").
CARS = frozenset(
    """car cars truck van suv minivan pickup jeep toyota honda ford tesla bmw audi mercedes
    volkswagen vw subaru mazda nissan hyundai kia chevy chevrolet volvo porsche lexus fiat
    peugeot renault skoda dodge gmc cadillac buick acura infiniti jaguar civic accord
    corolla camry prius rav4 cr-v mustang f-150 jetta passat fiesta
    outback forester impreza miata altima sentra wrangler cherokee cybertruck elantra
    sonata tacoma tundra highlander odyssey rover defender rivian polestar bronco""".split()
)  # fmt: skip

#: Words that make a thing one rides: "I sold my Vespa" ends riding it (and the habit).
RIDDEN = frozenset(
    """bike bikes bicycle e-bike ebike motorbike motorcycle scooter moped vespa harley
    ducati""".split()
)  # fmt: skip

#: Things one has that are worth noting ("I have a large garden", "I've got a boat"):
#: "have" says so of a question, a meeting or a cold too, so only these heads are read.
OWNED = (
    CARS
    | RIDDEN
    | frozenset(
        """boat boats yacht sailboat kayak canoe rv camper motorhome tractor convertible
        house houses cabin cottage farm ranch garden vineyard orchard yard backyard pool
        apartment condo mansion farmhouse greenhouse treehouse barn chalet
        business company bakery restaurant shop store cafe salon website blog podcast
        channel collection wheelchair piano telescope tattoo tattoos""".split()
    )
    | {"hot tub", "beach house", "lake house", "vacation home", "food truck", "youtube channel"}
)  # fmt: skip

PETS = frozenset(
    {
        "dog", "dogs", "cat", "cats", "puppy", "puppies", "kitten", "kittens", "pup", "pups",
        "hamster", "hamsters", "rabbit", "rabbits", "bunny", "parrot", "bird", "birds",
        "turtle", "turtles", "fish", "horse", "horses", "guinea pig", "snake", "lizard",
        "retriever", "labrador", "poodle", "terrier", "shepherd", "husky", "beagle", "bulldog",
        "pug", "collie", "corgi", "dachshund", "chihuahua", "spaniel", "tabby", "goldfish",
        "ferret", "gecko", "iguana", "pony", "cockatiel", "budgie", "chinchilla", "hedgehog",
        "greyhound", "whippet", "labradoodle", "goldendoodle", "cockapoo", "schnauzer",
        "rottweiler", "doberman", "dalmatian", "boxer dog", "pit bull", "sheepdog",
    }
)  # fmt: skip

#: Family words -> predicate (the relation's name; spouses share one single-valued one),
#: and the people close to the speaker.
FAMILY: dict[str, str] = {
    "daughter": "daughter", "son": "son", "kid": "child", "child": "child",
    "sister": "sister", "brother": "brother", "husband": "spouse", "wife": "spouse",
    "partner": "partner", "boyfriend": "partner", "girlfriend": "partner",
    "fiance": "partner", "fiancee": "partner", "mom": "mother", "mother": "mother",
    "dad": "father", "father": "father", "cousin": "cousin", "aunt": "aunt", "uncle": "uncle",
    "grandma": "grandmother", "grandmother": "grandmother", "grandpa": "grandfather",
    "grandfather": "grandfather", "niece": "niece", "nephew": "nephew",
    "grandson": "grandson", "granddaughter": "granddaughter", "grandchild": "grandchild",
    "grandkid": "grandchild",
    "mother-in-law": "mother-in-law", "father-in-law": "father-in-law",
    "sister-in-law": "sister-in-law", "brother-in-law": "brother-in-law",
    "stepmom": "stepmother", "stepmother": "stepmother", "stepdad": "stepfather",
    "stepfather": "stepfather", "stepson": "stepson", "stepdaughter": "stepdaughter",
    # the people close to the speaker, spoken of the same way ("my friend Sam moved to
    # Berlin", "my boss is allergic to peanuts"): what is said of them is about them
    "friend": "friend", "best friend": "friend", "coworker": "colleague",
    "co-worker": "colleague", "colleague": "colleague", "boss": "boss", "manager": "boss",
    "roommate": "roommate", "flatmate": "roommate", "neighbor": "neighbour",
    "neighbour": "neighbour",
}  # fmt: skip


def alternation(words: Iterable[str]) -> str:
    """A regular-expression alternation of ``words``, longest first (so "grandmother" is
    tried before "grand", "went to" before "went")."""
    return "|".join(sorted(map(re.escape, words), key=len, reverse=True))


#: The relation predicates, read "{s}'s <relation> is {o}".
_RELATIONS = frozenset(FAMILY.values())

#: The family words and the pet words as one alternation each (every pattern that names a
#: relative or a pet derives from these, so the words are listed once, above).
FAMILY_WORDS = alternation(FAMILY)
PET_WORDS = alternation(PETS)


def cardinality_of(predicate: str) -> Cardinality:
    """``"one"`` for a single-valued predicate, ``"many"`` otherwise."""
    single = predicate in SINGLE_VALUED or predicate.startswith(SINGLE_PREFIXES)
    return "one" if single else "many"


def _singular(things: str) -> str:
    """ "brothers" -> "brother", "children" -> "child", "puppies" -> "puppy"."""
    if things.endswith("children"):
        return things.removesuffix("ren")
    if things.endswith("ies"):
        return things.removesuffix("ies") + "y"
    return things.removesuffix("s")


#: Categories said as abbreviations ("my favorite TV show"): predicates are lower case, a
#: statement says them as people write them.
_ABBREVIATIONS = {
    w.lower(): w for w in ("TV", "DJ", "PC", "RPG", "NBA", "NFL", "NHL", "MLB", "UFC")
}


#: Relatives spoken of in the plural ("my parents live in Florida"): what is said of them is
#: filed with "<speaker>'s parents" as the subject, and phrased in the plural.
PLURAL_RELATIVES = frozenset(
    {
        "parents", "kids", "children", "grandparents", "grandkids", "grandchildren", "in-laws",
        "brothers", "sisters", "sons", "daughters", "twins", "cousins", "folks",
    }
)  # fmt: skip
_PLURAL_SUBJECT = re.compile(rf"'s (?:{alternation(PLURAL_RELATIVES)})$")
_PLURAL_VERBS = {"is": "are", "was": "were", "has": "have", "does": "do"}


#: What already stands before a role: "works as the head of sales", "as one of the leads".
_DETERMINED = re.compile(r"^(?i:a|an|the|one|his|her|their|my|our|its)\b|^[A-Z]{2,}s\b")


def with_article(role: str) -> str:
    """``role`` with "a" or "an" before it ("nurse" -> "a nurse", "engineer" -> "an
    engineer"), unless a determiner is there already or it is plural ("CEOs")."""
    if _DETERMINED.match(role) or (role.endswith("s") and not role.endswith(("ss", "us", "is"))):
        return role
    first = role.split(" ", 1)[0]
    if len(first) > 1 and first.isupper():  # said letter by letter: "an MRI tech", "a UX designer"
        vowel = first[0] in "AEFHILMNORSX"
    else:
        vowel = role[:1].lower() in "aeiou" and not role.lower().startswith(("uni", "use", "eu"))
    return f"{'an' if vowel else 'a'} {role}"


def _plural_verb(verb: str) -> str:
    """The verb of a plural subject for the third person's ("lives" -> "live")."""
    if verb in _PLURAL_VERBS:
        return _PLURAL_VERBS[verb]
    if verb.endswith("ies") and len(verb) > 4:
        return verb[:-3] + "y"  # "studies"
    if verb.endswith(("ches", "shes", "sses", "xes", "zes", "oes")):
        return verb[:-2]  # "watches", "goes"
    if verb.endswith("s") and not verb.endswith("ss"):
        return verb[:-1]
    return verb


def phrase(subject: str, predicate: str, obj: str | None, *, ended: bool = False) -> str:
    """The statement of ``(subject, predicate, obj)``; ``ended``: it stopped being true."""
    if predicate in _PHRASES:
        template = _PHRASES[predicate]
    elif predicate in _RELATIONS and ended and obj is None:  # "Ana no longer has a partner."
        return f"{subject} no longer has a {predicate}."
    elif predicate in _RELATIONS:
        template = "{s}'s " + predicate + " is {o}"
    elif predicate.startswith("favorite_"):
        category = predicate.removeprefix("favorite_").split("_")
        template = "{s}'s favorite " + " ".join(_ABBREVIATIONS.get(w, w) for w in category)
        template += " is {o}"
    elif predicate.startswith("number_of_"):
        things = predicate.removeprefix("number_of_").replace("_", " ")
        if obj == "1":  # "Ana has one brother", not "1 brothers"
            obj, things = "one", _singular(things)
        elif obj == "0":  # "Ana has no siblings"
            obj = "no"
        template = "{s} has {o} " + things
    elif predicate.startswith("tally_"):
        template = "{s}'s count of " + predicate.removeprefix("tally_").replace("_", " ")
        template += " is {o}"
    elif predicate in MEASURES:
        template = "{s}'s " + predicate + " is {o}"
    else:
        template = "{s} " + predicate.replace("_", " ") + " {o}"
    if _PLURAL_SUBJECT.search(subject) and (verb := re.match(r"\{s\} (\w+)", template)):
        template = "{s} " + _plural_verb(verb[1]) + template[verb.end() :]
    if ended:
        be = next((b for b in (" is ", " are ") if b in template), None)
        if be is not None:
            template = template.replace(be, f"{be}no longer ", 1)
        else:
            template = template.replace("{s} ", "{s} no longer ", 1)
    if predicate == "works_as" and obj:  # "Mia works as a nurse", not "as nurse"
        obj = with_article(obj)
    if obj is None:  # "Ana no longer works at." reads "Ana no longer works."
        template = re.sub(r"(?: (?:in|at|as|to|for|from|of|a|is|has))* \{o\}", "", template)
    text = template.format(s=subject, o=obj or "").strip()
    return text.rstrip(".") + "."


#: Head nouns of an occupation ("I'm a (senior software) engineer at X").
OCCUPATIONS = frozenset(
    """nurse teacher doctor physician surgeon dentist engineer developer programmer designer
    architect accountant lawyer attorney paralegal analyst scientist researcher professor
    lecturer tutor student chef cook baker barista bartender waiter waitress server cashier
    pharmacist therapist psychologist counselor counsellor social worker electrician plumber
    carpenter mechanic technician pilot driver firefighter police officer officer soldier
    veterinarian vet librarian journalist writer editor author photographer artist painter
    musician singer actor actress dancer consultant manager director executive founder
    entrepreneur recruiter marketer salesperson realtor agent banker broker economist
    translator interpreter administrator assistant secretary receptionist clerk farmer
    gardener coach trainer paramedic midwife caregiver nanny housekeeper cleaner janitor
    tailor hairdresser barber stylist florist butcher fisherman miner welder machinist
    mathematician statistician physicist chemist biologist geologist data scientist
    product manager project manager freelancer contractor intern resident surveyor
    investigator detective judge pastor priest minister rabbi imam handyman model homemaker
    cleaner housewife househusband programmer mom dad""".split()
) | {"social worker", "police officer", "data scientist", "product manager", "project manager",
     "web developer", "flight attendant", "real estate agent", "stay-at-home mom",
     "stay-at-home dad", "stay at home mom", "stay at home dad", "tech lead", "team lead",
     "CTO", "CEO", "CFO", "COO", "co-founder", "cofounder"}  # fmt: skip

#: Health conditions (nouns after "I have", adjectives after "I'm").
CONDITIONS = frozenset(
    {
        "diabetes", "diabetic", "asthma", "asthmatic", "celiac disease", "coeliac disease",
        "celiac", "coeliac", "lactose intolerant", "gluten intolerant", "lactose intolerance",
        "migraines", "migraine", "arthritis", "adhd", "anxiety", "depression", "epilepsy",
        "epileptic", "ibs", "hypertension", "high blood pressure", "insomnia", "back pain",
        "knee injury", "injury", "pregnant", "colorblind", "color blind", "deaf",
        "hearing loss", "dyslexia", "dyslexic", "autism", "autistic", "crohn's disease",
        "heart condition", "cancer", "long covid", "tinnitus", "eczema", "psoriasis",
        "dementia", "alzheimer's", "parkinson's", "multiple sclerosis", "lupus",
        "fibromyalgia", "sleep apnea", "copd", "pcos", "endometriosis", "gout",
        "osteoporosis", "chronic pain", "kidney disease", "heart disease", "hypothyroidism",
        "hyperthyroidism", "bipolar disorder", "ptsd", "ocd", "glaucoma", "cataracts",
    }
)  # fmt: skip
#: Conditions written in capitals ("ADHD"), as a fact shows them.
ACRONYMS = {"adhd": "ADHD", "ibs": "IBS", "copd": "COPD", "pcos": "PCOS",
            "ptsd": "PTSD", "ocd": "OCD", "alzheimer's": "Alzheimer's",
            "parkinson's": "Parkinson's", "crohn's disease": "Crohn's disease"}  # fmt: skip


#: Every predicate the rules emit (the LLM extractor is asked to prefer these).
KNOWN_PREDICATES = frozenset(
    set(_PHRASES) | _RELATIONS | SINGLE_VALUED | set(EVENT_VERBS.values()) | set(GERUNDS.values())
    | {"likes", "dislikes", "prefers", "plays", "uses", "owns", "drives", "teaches", "starts",
       "volunteers_at", "rides", "speaks", "collects", "used_to", "takes",
       "works_in", "runs_on", "is", "lives", "attends", "knows_how_to", "practices", "homeschools"}
)  # fmt: skip


def describe() -> str:
    """The vocabulary as a prompt states it: single-valued and multi-valued predicates."""
    single = [*sorted(SINGLE_VALUED), "favorite_<thing>", "number_of_<things>", "tally_<things>"]
    many = sorted(KNOWN_PREDICATES - SINGLE_VALUED)
    return (
        f"Single-valued (one value at a time; a new value replaces the old): {', '.join(single)}. "
        f"Multi-valued (values accumulate): {', '.join(many)}."
    )


def third_person(verb: str) -> str:
    """ "go" -> "goes", "study" -> "studies", "run" -> "runs"."""
    if verb in ("be", "have", "do", "go"):
        return {"be": "is", "have": "has", "do": "does", "go": "goes"}[verb]
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(verb) > 2 and verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


#: Nationalities one says one is ("I'm Canadian"): ``nationality`` (where one lives or was
#: born is another fact). Religions and ethnicities are not listed: not for a memory to file.
NATIONALITIES = frozenset(
    """American Canadian Mexican Brazilian Argentinian Argentine Chilean Colombian Peruvian
    Venezuelan Cuban British English Scottish Welsh Irish French German Italian Spanish
    Portuguese Dutch Belgian Swiss Austrian Swedish Norwegian Danish Finnish Icelandic Polish
    Czech Slovak Hungarian Romanian Bulgarian Greek Turkish Ukrainian Russian Serbian
    Croatian Israeli Egyptian Moroccan Nigerian Kenyan Ghanaian Ethiopian South-African
    Chinese Japanese Korean Vietnamese Thai Filipino Indonesian Malaysian Singaporean
    Pakistani Bangladeshi Nepali Iranian Iraqi Lebanese Syrian Saudi Emirati Australian
    Kiwi Indian Jamaican Haitian Dominican Ecuadorian Taiwanese""".split()
) | {"New Zealander", "South African"}  # fmt: skip
