"""What a user's work is made of, as they tell a coding or work assistant: "Our API is
written in Go", "Our repo uses pnpm", "Our main database is Postgres 15", "My project is
called Atlas" (the subject is the user's thing: "ana's API"); where they deploy ("We deploy
on AWS"); the tools they are on ("I'm on macOS Sonoma", "My Python version is 3.11") and
their devices ("My laptop is a ThinkPad X1").
"""

from __future__ import annotations

import re

from sedimem.extraction.clauses import Match, bad_object
from sedimem.extraction.subjects import possessive

__all__ = ["project"]

_THINGS = (
    r"project|app|api|API|backend|frontend|repo|repository|codebase|monorepo|stack|database|db|"
    r"CI|ci|pipeline|service|website|site|server|infra|infrastructure|cluster|product|startup|"
    r"blog|bot|library|package|game|cli|CLI|SDK|sdk"
)
_VERBS = {
    "is written in": "written_in",
    "is in": "written_in",  # a programming language only: "our repo is in GitHub" is not one
    "is built with": "built_with",
    "is built on": "built_with",
    "is built in": "built_with",
    "is hosted on": "hosted_on",
    "is deployed to": "hosted_on",
    "is deployed on": "hosted_on",
    "runs on": "runs_on",
    "uses": "uses",
    "is called": "name",
    "is named": "name",
    "is": "is",
}
_VERB = "|".join(sorted(_VERBS, key=len, reverse=True))
_LANGUAGES = frozenset(
    "Go Golang Python TypeScript JavaScript Rust Java Kotlin Swift Ruby PHP C# C++ C Scala "
    "Elixir Erlang Haskell Clojure Dart R Julia Lua Perl Zig OCaml F# Node Node.js".split()
)
_PROJECT = re.compile(
    r"^(?:[Mm]y|[Oo]ur) (?:(?:main|current|new|whole|production|prod) )?"
    rf"(?P<thing>(?:[\w-]+ )?(?:{_THINGS}))(?:'s| is)? ?(?P<verb>{_VERB}) "
    r"(?P<o>[\w.+#/ -]{1,40}?)$"
)
# what "is" a thing of a project names: a product ("Postgres 15"), not how it is ("slow")
_NAMED = re.compile(r"^(?:an? )?(?-i:[A-Z0-9])[\w.+#/-]*(?: [\w.+#/-]+){0,3}$")
_SYSTEM = re.compile(
    r"^I(?:'m| am) (?:on|running|using) (?P<o>(?:macOS|Windows|Linux|Ubuntu|Debian|Fedora|"
    r"Arch Linux|iOS|Android|ChromeOS|WSL)\b[\w. ]{0,20})$"
)
_VERSION = re.compile(r"^[Mm]y (?P<t>[A-Z][\w.+#-]*) version is (?:v)?(?P<v>\d+(?:\.\d+){0,2})$")
_DEPLOY = re.compile(
    r"^(?:[Ww]e|I) (?:usually |mostly |currently |now )?deploy(?: (?:it|everything))? (?:on|to) "
    r"(?!(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days?\b)"  # "on Fridays": when, not where
    r"(?P<o>(?-i:[A-Z])[\w.-]*(?: (?-i:[A-Z])[\w.-]*){0,2})(?: (?:with|using|via) .+)?$"
)
_DEVICE = re.compile(
    r"^[Mm]y (?:(?:work|personal|new|old|main) )?(?P<d>laptop|phone|computer|desktop|tablet|"
    r"watch|camera|car) is an? (?P<o>(?-i:[A-Z])[\w .-]{1,30})$"
)


def project(clause: str, speaker: str) -> list[Match]:
    """The facts of the speaker's work and tools a clause states (none for most)."""
    system = _SYSTEM.match(clause)
    if system:
        return [Match(speaker, "uses", system["o"].strip(), "uses", confidence=0.7)]
    version = _VERSION.match(clause)
    if version:
        used = f"{version['t']} {version['v']}"
        return [Match(speaker, "uses", used, "uses", confidence=0.7)]
    deploy = _DEPLOY.match(clause)
    if deploy:  # "we deploy on AWS": where the speaker's work runs
        return [Match(speaker, "deploys_to", deploy["o"], "deploys to", confidence=0.6)]
    device = _DEVICE.match(clause)
    if device:
        kind, what = device["d"], device["o"].strip()
        if kind == "car":
            return [Match(speaker, "drives", f"a {what}", "drives", confidence=0.7)]
        return [Match(speaker, "uses", f"a {what} {kind}", "uses", confidence=0.7)]
    m = _PROJECT.match(clause)
    if m is None:
        return []
    predicate, obj = _VERBS[m["verb"]], m["o"].strip()
    if bad_object(obj) or (predicate in ("is", "name") and not _NAMED.match(obj)):
        return []  # "Our API is slow": how it is, not what
    if m["verb"] == "is in" and obj not in _LANGUAGES:
        return []  # "our repo is in GitHub", "our app is in beta"
    thing = possessive(f"my {m['thing']}", speaker)
    return [Match(thing, predicate, obj, m["verb"], confidence=0.6)]
