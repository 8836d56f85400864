"""Single-valued facts ("slots"): where someone lives, where they work, what they work as, their relationship
status, a pet's name. A later statement of the same slot with another value replaces the earlier one, so a
correction said in passing ("Actually I moved to Lisbon last month") wins over the stale fact without an id.

A slot is (whose, what): "user" or the person or pet named ("sister", "anna", "dog"), and the attribute.
Only a statement of how things are *now* fills a slot: "I live in X", "I moved to X", "I work at X", not
"I lived in X", "I'm moving to X next month" or "My sister lives in X" for the user's own home. The rules are
grammar per language (this module for English; each language's module lists its own patterns).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engrain.reading.languages import (
    asks_slot_patterns,
    not_now,
    slot_end_patterns,
    slot_patterns,
    slot_topic_patterns,
)
from engrain.text.languages import ENGLISH

_I = re.IGNORECASE
# Whose: the user, a relative or someone close named by their relation, or a person named.
RELATIONS = (
    "wife|husband|partner|girlfriend|boyfriend|fiancée?|mother|mom|mum|father|dad|sister|brother|son|daughter"
    "|grandmother|grandma|grandfather|grandpa|aunt|uncle|cousin|boss|best friend|roommate|flatmate"
)
PETS = "dog|cat|puppy|kitten|parrot|rabbit|hamster|horse"
# A name: capitalised words (case-sensitive even in patterns that ignore case), with the particles names keep.
_VALUE = r"(?P<value>(?-i:(?:[A-Z][\w'’.&-]*)(?:[ -](?:[A-Z][\w'’.&-]*|de|da|del|van|von|le|la))*))"
_PLACE_VALUE = _VALUE
_ROLE_VALUE = r"(?:an?\s+)?(?P<value>[a-z][a-z -]{2,40}?)"
_END = r"(?=\s*(?:$|[.,;!?)]|\s(?:now|these days|since|for|and|but|with|last|this|in|at|on|near|because)\b))"
_NOW = r"(?:(?:actually|now|currently|these days|since then)\s*,?\s+)?"

ENGLISH_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "home",
        re.compile(
            rf"\b(?P<who>I|my (?P<rel>{RELATIONS}))\s+{_NOW}(?:now\s+|currently\s+|still\s+)?"
            rf"(?:live|lives|am living|is living|am based|is based|reside|resides|have moved|has moved|moved|"
            rf"have relocated|has relocated|relocated|just moved)\s+(?:back\s+)?(?:in|to)\s+{_PLACE_VALUE}{_END}",
            _I,
        ),
    ),
    (
        "job",
        re.compile(
            rf"\b(?P<who>I|my (?P<rel>{RELATIONS}))\s+{_NOW}(?:now\s+|currently\s+)?"
            rf"(?:work|works|am working|is working)\s+as\s+{_ROLE_VALUE}{_END}",
            _I,
        ),
    ),
    (
        "employer",
        re.compile(
            rf"\b(?P<who>I|my (?P<rel>{RELATIONS}))\s+{_NOW}(?:now\s+|currently\s+|still\s+)?"
            rf"(?:work|works|am working|is working|have started|started|have joined|joined|switched)\s+"
            rf"(?:(?:at|for|with)\s+|to\s+)?(?:the\s+)?{_VALUE}{_END}",
            _I,
        ),
    ),
    (
        "relationship",
        re.compile(
            rf"\b(?P<who>I)(?:'m|\s+am)\s+{_NOW}(?:now\s+)?(?P<value>single|married|engaged|divorced|separated|widowed)\b",
            _I,
        ),
    ),
    (
        "name",
        re.compile(
            rf"\b(?P<who>my (?P<rel>{PETS}))(?:'s name is|\s+is called|"
            r"\s+is named)\s+(?P<value>[A-Z][\w'’-]*)",
            _I,
        ),
    ),
    ("name", re.compile(r"\b(?:my name is|call me|I'm called|I am called)\s+(?P<value>(?-i:[A-Z][\w'’-]+))", _I)),
    (
        "origin",
        re.compile(
            r"\bI(?:(?:'m| am)\s+(?:originally\s+)?from|\s+(?:originally\s+)?(?:grew up in|was born(?: and raised)? in"
            rf"|come from))\s+(?:the\s+)?{_VALUE}",
            _I,
        ),
    ),
    # Someone close, named: "my sister Anna", "my wife, Maria", "my dog Max" (many values: two sisters).
    (
        "person",
        re.compile(
            rf"\bmy\s+(?P<rel>{RELATIONS}|{PETS})(?:'s name is|\s+is called|\s+is named|,)?\s+"
            r"(?P<value>(?-i:(?!I\b)[A-Z][a-z'’]+))\b",
            _I,
        ),
    ),
]
# Slots that hold one value at a time: a new value replaces the old. The others (where one is from, the
# people one names) are facts for the profile that a second value adds to.
SINGLE_VALUED = frozenset({"home", "employer", "job", "relationship", "name"})
# The order a profile states the user's own facts in.
PROFILE_ORDER = ("name", "origin", "home", "job", "employer", "relationship")
# Not how things are now: the past ("I lived in"), a plan ("I'm moving to"), a wish, a question, a negation.
_NOT_NOW = re.compile(
    r"\b(?:used to|will|would|going to|gonna|planning|plan to|want to|wants to|hope to|might|if|when I was|"
    r"moving|not|n't|never)\b|\?\s*$",
    _I,
)


@dataclass(frozen=True)
class Slot:
    whose: str  # "user", a relation ("sister"), a pet ("dog")
    what: str  # home, employer, job, relationship, name
    value: str  # as written, trimmed

    @property
    def key(self) -> str:
        return f"{self.whose}:{self.what}"

    @property
    def single(self) -> bool:
        return self.what in SINGLE_VALUED

    @property
    def normalized(self) -> str:
        return " ".join(self.value.lower().replace("the ", "").split())


def _whose(relation: str | None) -> str:
    """Whose fact: the user's, or the relative's named ("mom" and "mum" are "mother")."""
    if relation is None:
        return "user"
    return relation.lower().replace("mom", "mother").replace("mum", "mother").replace("dad", "father")


def _read(content: str, lang: str) -> tuple[Slot, bool] | None:
    """The first slot `content` fills, and whether it states it about now."""
    patterns = ENGLISH_PATTERNS if lang == ENGLISH else slot_patterns(lang)
    for what, pattern in patterns:
        m = pattern.search(content)
        if m is None:
            continue
        clause = content[max(0, m.start() - 12) : m.end()] + content[m.end() : m.end() + 2]
        now = not (_NOT_NOW if lang == ENGLISH else not_now(lang)).search(clause)
        value = m["value"].strip(" .,'’")
        if value:
            return Slot(_whose(m.groupdict().get("rel")), what, value), now
    return None


def slot_of(content: str, lang: str = ENGLISH) -> Slot | None:
    """The single-valued fact `content` states about now, if it states one (first match)."""
    found = _read(content, lang)
    return found[0] if found is not None and found[1] else None


# What the user says about their own single-valued facts without stating a value for now: the past ("I used
# to work at Google"), a negation ("I don't live in Berlin anymore"), a plan ("we're moving to Porto"), a
# change ("I quit", "we broke up").
ENGLISH_TOPICS: list[tuple[str, re.Pattern[str]]] = [
    ("home", re.compile(r"\b(?:I|we)\b[^.?!]{0,30}?\b(?:live[sd]?|living|mov(?:e|ed|ing)|relocat\w+)\b", _I)),
    ("job", re.compile(r"\bI\b[^.?!]{0,30}?\b(?:work(?:ed|ing)?\s+as|no\s+longer\s+an?)\s", _I)),
    (
        "employer",
        re.compile(
            r"\bI\b[^.?!]{0,30}?\b(?:work(?:ed|ing)?\s+(?:at|for)|quit|resigned|left\s+(?:my\s+job|the\s+company)"
            r"|(?:was|got)\s+(?:laid\s+off|fired))\b",
            _I,
        ),
    ),
    ("relationship", re.compile(r"\b(?:I|we)\b[^.?!]{0,30}?\b(?:married|divorced|single|broke\s+up|split\s+up)\b", _I)),
]
# Of those, what ends the live value whatever it was: "I quit", "I was laid off", "we broke up".
ENGLISH_ENDS: list[tuple[str, re.Pattern[str]]] = [
    (
        "employer",
        re.compile(
            r"\bI\s+(?:just\s+|finally\s+|have\s+|'ve\s+)?(?:quit|resigned|left\s+(?:my\s+job|the\s+company))"
            r"|\bI\s+(?:was|got|have\s+been)\s+(?:laid\s+off|fired)",
            _I,
        ),
    ),
    (
        "relationship",
        re.compile(r"\bwe\s+(?:just\s+)?(?:broke|split)\s+up\b|\bI\s+(?:got|am\s+getting)\s+divorced\b", _I),
    ),
]


@dataclass(frozen=True)
class Topic:
    """A single-valued slot of the user's that a memory speaks of without filling it for now."""

    key: str  # as `Slot.key`
    ends: bool  # it says the live value ended ("I quit"), whatever that value was

    @property
    def keys(self) -> tuple[str, ...]:
        """The slots whose live value it may end: quitting ends the job as much as the employer ("I work as a
        nurse", then "I quit")."""
        return ENDED_TOGETHER.get(self.key, (self.key,)) if self.ends else (self.key,)


ENDED_TOGETHER = {"user:employer": ("user:employer", "user:job")}


def slot_topic(content: str, lang: str = ENGLISH) -> Topic | None:
    """The user's single-valued slot that `content` speaks of without filling it for now: it may end that
    slot's live value or not, which the rules cannot always tell — the write result says which memory it
    may replace, and a model settles it (docs/SPEC.md §5)."""
    if slot_of(content, lang) is not None:
        return None
    english = lang == ENGLISH
    for what, pattern in ENGLISH_ENDS if english else slot_end_patterns(lang):
        if pattern.search(content):
            return Topic(f"user:{what}", ends=True)
    for what, pattern in ENGLISH_TOPICS if english else slot_topic_patterns(lang):
        if pattern.search(content):
            return Topic(f"user:{what}", ends=False)
    return None


def states_now(content: str, lang: str = ENGLISH) -> bool:
    """No past, plan, wish, question or negation in `content`: what it says holds now."""
    return not (_NOT_NOW if lang == ENGLISH else not_now(lang)).search(content)


# Questions about a single-valued fact (recall: rules/recall.SLOT_WEIGHT): "where do I live", "where does my
# sister work", "what do I do for a living", "am I married".
_ASKS: list[tuple[str, re.Pattern[str]]] = [
    (
        "home",
        re.compile(
            rf"\bwhere\s+(?:do|did|does)\s+(?P<who>I|my (?P<rel>{RELATIONS}))\s+(?:live|stay|reside)"
            r"|\bwhere(?:'s| is)\s+(?:my\s+)?home\b|\bmy\s+(?:address|home town|city)\b",
            _I,
        ),
    ),
    (
        "employer",
        re.compile(
            rf"\bwhere\s+(?:do|does)\s+(?P<who>I|my (?P<rel>{RELATIONS}))\s+work\b"
            rf"|\bwho\s+do(?:es)?\s+(?:I|my (?P<rel2>{RELATIONS}))\s+work\s+for\b|\bmy\s+(?:employer|company)\b",
            _I,
        ),
    ),
    (
        "job",
        re.compile(
            r"\bwhat\s+do\s+I\s+do\s+for\s+(?:a\s+living|work)\b|\bwhat(?:'s| is)\s+my\s+(?:job|role|profession)\b", _I
        ),
    ),
    (
        "relationship",
        re.compile(r"\bam\s+I\s+(?:married|single|engaged|divorced)\b|\bmy\s+relationship\s+status\b", _I),
    ),
]


def single_valued(key: str) -> bool:
    """Whether the slot `key` ("user:home", "sister:person") holds one value at a time."""
    return key.rpartition(":")[2] in SINGLE_VALUED


def asked_slot(query: str, lang: str = ENGLISH) -> str | None:
    """The slot key (as `Slot.key`) a question asks about, if it asks about one."""
    patterns = _ASKS if lang == ENGLISH else asks_slot_patterns(lang)
    for what, pattern in patterns:
        m = pattern.search(query)
        if m is not None:
            groups = m.groupdict()
            return f"{_whose(groups.get('rel') or groups.get('rel2'))}:{what}"
    return None
