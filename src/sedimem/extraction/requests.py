"""How the user asks to be answered: a standing request about the assistant's answers.

"Please keep your answers short", "From now on, answer in Spanish", "Please don't use
emojis", "Use metric units please" are said to the assistant, so they have no first
person and hold "your": every other reader skips them. They describe the user as much as
a diet does (``prefers``, a profile fact, shown in every context), so they are read here,
and only when they are standing requests: "answer in Spanish" alone may be for one
question, and is read with "always" or "from now on".
"""

from __future__ import annotations

import re

from sedimem.extraction.clauses import Match

__all__ = ["ANSWER_REQUEST", "answer_style"]

_PLEASE = r"(?:please\s+)?"
_STANDING = r"(?:always|from now on|in (?:the )?future|going forward)"
_ANSWERS = r"(?:answers|responses|replies|explanations)"
_KEEP = re.compile(
    rf"^{_PLEASE}(?:{_STANDING},?\s+)?(?:keep|make)\s+(?:your\s+|the\s+)?{_ANSWERS}\s+"
    r"(?P<o>(?:short|brief|concise|simple|detailed|short and sweet|to the point)"
    r"|under \d{1,4} words)(?:,?\s+(?:please|" + _STANDING + r"|and\s.+))?$",
    re.IGNORECASE,
)
_ANSWER_IN = re.compile(
    rf"^{_PLEASE}(?:(?P<first>{_STANDING}),?\s+{_PLEASE})?(?:answer|reply|respond|write|"
    r"talk to me|speak to me)\s+in\s+(?P<o>[\w -]{1,30}?)"
    rf"(?:,?\s+(?P<last>{_STANDING}|please))*$",
    re.IGNORECASE,
)
_ANSWER_WITH = re.compile(  # "Please always answer with code examples in TypeScript"
    rf"^{_PLEASE}(?:(?P<first>{_STANDING}),?\s+{_PLEASE})?(?:answer|reply|respond)\s+with\s+"
    r"(?P<o>(?:code|examples|sources|links|citations|step|steps|a summary)[\w+# -]{0,40}?)"
    rf"(?:,?\s+(?P<last>{_STANDING}|please))*$",
    re.IGNORECASE,
)
_DONT = re.compile(
    rf"^{_PLEASE}(?:{_STANDING},?\s+)?(?:don't|do not|never)\s+(?:use|include|add)\s+"
    r"(?P<o>emojis?|emoticons|jargon|bullet points|markdown|tables|code blocks|"
    r"exclamation marks)(?:\s+in\s+(?:your\s+)?" + _ANSWERS + r")?(?:,?\s+please)?$",
    re.IGNORECASE,
)
_UNITS = re.compile(
    rf"^{_PLEASE}(?:{_STANDING},?\s+)?(?:use|give me|show)\s+(?P<o>metric|imperial)"
    rf"(?:\s+(?:units|measurements))?(?:,?\s+(?:please|{_STANDING}))*$",
    re.IGNORECASE,
)
#: Whether a clause may be such a request (the cheap check before the readers).
ANSWER_REQUEST = re.compile(
    rf"^{_PLEASE}(?:{_STANDING},?\s+)?{_PLEASE}(?:keep|make|answer|reply|respond|write|"
    r"talk|speak|don't|do not|never|use|give me|show)\b",
    re.IGNORECASE,
)


def answer_style(clause: str, user: str) -> list[Match]:
    """ "Please keep your answers short" -> ``prefers`` "short answers"; "From now on,
    answer in Spanish" -> "answers in Spanish"; "Please don't use emojis" -> "no emojis"."""
    text = clause.strip().rstrip("!.")
    if (keep := _KEEP.match(text)) is not None:
        how = keep["o"].lower()
        style = f"answers {how}" if how.startswith(("to ", "under ")) else f"{how} answers"
    elif (said := _ANSWER_IN.match(text)) is not None and (said["first"] or _standing(text)):
        style = f"answers in {said['o']}"
    elif (with_ := _ANSWER_WITH.match(text)) is not None and (with_["first"] or _standing(text)):
        style = f"answers with {with_['o']}"
    elif (dont := _DONT.match(text)) is not None:
        style = f"no {dont['o'].lower()}"
    elif (units := _UNITS.match(text)) is not None:  # "Use metric units please"
        style = f"{units['o'].lower()} units"
    else:
        return []
    return [Match(user, "prefers", style, "prefers", confidence=0.8, dated=False)]


def _standing(text: str) -> bool:
    return re.search(rf"\b{_STANDING}\b", text, re.IGNORECASE) is not None
