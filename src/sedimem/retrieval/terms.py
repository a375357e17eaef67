"""Natural-language questions to keyword-search terms.

Keyword indexes treat several words as AND; a question then finds almost nothing. We send
the content words as an OR query instead (the store escapes and stems them) and let BM25
rank documents by how many rare terms they share.
"""

from __future__ import annotations

import re

__all__ = ["MAX_TERMS", "STOPWORDS", "query_terms"]

MAX_TERMS = 32

_WORD = re.compile(r"\w+", re.UNICODE)

# Function words that carry no topic; they match most documents and only add cost.
STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself no nor not now of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your
    yours yourself yourselves s t don doesn didn isn wasn weren won wouldn shouldn couldn
    ll re ve d m o y also ever get got
    """.split()
)


def query_terms(text: str) -> list[str]:
    """The distinct lowercase content words of ``text``, in order, at most ``MAX_TERMS``."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if word in STOPWORDS or word in seen or (len(word) == 1 and not word.isdigit()):
            continue
        seen[word] = None
        if len(seen) == MAX_TERMS:
            break
    return list(seen)
