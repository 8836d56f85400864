"""Single-valued facts ("slots", each with a key): where someone lives, where they work, what they work as,
their relationship status, a pet's name — and any attribute a sentence names with its one value: "my phone is
a Pixel 8", "I switched gyms to The Gym Group", "Mei's due date is March 10", "我的新车是比亚迪汉". A later
statement of the same key with another value replaces the earlier one, so a correction said in passing
("Actually I moved to Lisbon last month") wins over the stale fact without an id.

A key is (whose, what): "user" or the person or pet named ("sister", "mei", "dog"), and the attribute, in
English where the language's module knows the word ("Handy", "手机" → phone) so that a bilingual user's
facts meet. Only the user's own statement of how things are *now* fills a slot: not the past ("I lived in
X", "my old phone was"), a plan, a question, a negation, someone else's fact for the user's, nor a frame
that makes it not the user's claim — a quote, reported speech ("Tom thinks I live in Leeds"), a
hypothetical ("imagine my car is a Ferrari"), a request, fiction or a dream. The rules are grammar per
language (this module for English; each language's module lists its own patterns); where a model read the
text, its key wins (`key_of`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engrain.reading.frames import frame_of
from engrain.reading.languages import (
    asks_named_patterns,
    asks_slot_patterns,
    attribute_words,
    frame,
    named_patterns,
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
_END = r"(?=\s*(?:$|[.,;!?)]|\s(?:now|these days|since|for|and|but|with|last|this|in|at|on|near|because|as)\b))"
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
    # "We moved into our new house in Bristol last weekend".
    (
        "home",
        re.compile(
            r"\b(?:I|we)(?:'ve|\s+have)?\s+(?:just\s+|finally\s+|recently\s+)?moved\s+(?:in)?to\s+(?:a|our|my|the)\s+"
            rf"new\s+(?:house|home|flat|apartment|place)\s+in\s+{_PLACE_VALUE}{_END}",
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
    # Who does the user's hair, said as people say it (issue 52): "Jess at Fringe Benefits cuts my hair now".
    (
        "hairdresser",
        re.compile(
            r"(?:^|(?<=[.!?,;]\s))(?:(?:now|these days)\s*,?\s+)?(?P<value>(?-i:(?!(?:My|Our|I|He|She|We|They|It|The"
            r"|This|That|Now|Then)\b)[A-Z][\w'’-]*))(?:\s+(?:at|from)\s+[^.,;!?]{1,40}?)?\s+(?:cuts|does|styles)\s+my"
            r"\s+hair\b",
            _I,
        ),
    ),
    # Where the user banks, said as people say it: "I bank with Barclays", "I moved my account over to Monzo".
    ("bank", re.compile(rf"\bI\s+{_NOW}(?:now\s+)?bank\s+with\s+{_VALUE}{_END}", _I)),
    (
        "bank",
        re.compile(
            rf"\b(?:(?:I|we)\s+)?(?:moved|switched|transferred)\s+(?:my|our)\s+(?:bank\s+|current\s+)?account\s+(?:over\s+)?to"
            rf"\s+{_VALUE}{_END}",
            _I,
        ),
    ),
    # "We packed up and moved to Sheffield": the household's move.
    (
        "home",
        re.compile(
            rf"\bwe\s+(?:[a-z]+\s+){{0,3}}?(?:and\s+)?(?:finally\s+)?moved\s+(?:back\s+)?to\s+{_PLACE_VALUE}{_END}", _I
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
# Any attribute named with its one value. The value is a name ("Barclays", "Dr. Patel", "a Pixel 8", "an
# iPhone 15") — an adjective is a state, not a value ("my phone is broken") — or, for a favourite, any words
# ("my favourite colour is green"). Whose: "my"/"our" (the user), "my sister's", "Mei's".
_NAMED_VALUE = (
    r"(?P<value>(?:(?:a|an|the)\s+)?(?-i:(?:[A-Z0-9]|[a-z][A-Z])[\w'’.&+-]*)"
    r"(?:[ -](?-i:(?:[A-Z0-9]|[a-z][A-Z])[\w'’.&+-]*|&|of|de|van|von))*)"
)
_FAVOURITE_VALUE = r"(?P<fvalue>(?:(?:a|an|the)\s+)?[\w'’-]+(?:\s+(?!now\b|these\b|too\b)[\w'’-]+){0,2}?)"
_OWNER = (
    r"(?P<owner>\bmy\s+(?P<rel>[a-z]+(?:\s+friend)?)'s|(?<![\w'])(?P<name>(?-i:(?!(?:It|He|She|That|There|What|"
    r"Where|Who|Here|Let|This)\b)[A-Z][a-z]+))'s|\bmy|\bour)"
)
_MODIFIERS = r"(?:(?:new|current|present|latest|usual|regular|main|go-to)\s+)*"
# Function words and verbs are never part of an attribute ("my friend says her phone is…" names none).
_ATTRIBUTE = (
    r"(?P<attr>(?:(?!(?:is|was|says|said|thinks|and|or|but|that|her|his|their|the|a|an|to|of|in|on|at|for|"
    r"with|not|just)\b)[a-z][a-z-]*)(?:\s+(?!(?:is|was|says|said|thinks|and|or|but|that|her|his|their|the|a|"
    r"an|to|of|in|on|at|for|with|not|just)\b)[a-z][a-z-]*){0,2}?)"
)
_NOW_WORDS = r"(?:(?:now|currently|actually|still|officially)\s+)?"
# The user as subject, said or left out as chat leaves it: at a sentence's start or after "and"/"so".
_I_OR_NONE = r"(?:\bI|(?:^|(?<=[.!?]\s)|\b(?:and|so|then)\s+)(?=\w))"
_NUMBER_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
# What a person has a number of that changes rarely: children, siblings, pets, vehicles ("I have three dogs";
# not "three meetings").
_FAMILY = tuple(
    re.findall(
        r"\w+",
        "kids children sons daughters sisters brothers siblings grandchildren dogs cats pets horses chickens "
        "rabbits birds fish",
    )
)
_COUNTED = "|".join([*_FAMILY, "cars", "bikes", "bicycles"])
ENGLISH_NAMED: list[re.Pattern[str]] = [
    # "my phone is a Pixel 8", "my sister's new car is a Mini Cooper", "Mei's due date is now March 10".
    re.compile(
        rf"{_OWNER}\s+{_MODIFIERS}(?P<fav>(?:favou?rite|fave|go-to)\s+)?{_ATTRIBUTE}(?:'s|\s+is)\s+{_NOW_WORDS}"
        rf"(?:{_NAMED_VALUE}|(?(fav){_FAVOURITE_VALUE}|(?!)))(?=\s*(?:$|[.,;!?)]|\s(?:now|these days|since|for|"
        r"and|but|with|because|at|on|in|near)\b))",
        _I,
    ),
    # "I just got a new phone, a Pixel 8", "I bought a new car: a Tesla Model 3"; in chat the "I" is often
    # left out ("finally caved and got a new phone, a Pixel 8").
    re.compile(
        rf"{_I_OR_NONE}(?:'ve|\s+have)?\s*(?:just\s+|finally\s+|recently\s+)?(?:got|gotten|bought|picked\s+up|have)\s+"
        rf"(?:myself\s+)?an?\s+new\s+{_ATTRIBUTE}\s*[,:—–-]\s*{_NAMED_VALUE}{_END}",
        _I,
    ),
    # "I switched gyms to The Gym Group", "I changed my browser to Firefox", "switched gyms to…".
    re.compile(
        rf"{_I_OR_NONE}(?:'ve|\s+have)?\s*(?:just\s+|finally\s+|recently\s+)?(?:switched|changed|moved)\s+(?:my\s+)?"
        rf"{_ATTRIBUTE}\s+to\s+{_NAMED_VALUE}{_END}",
        _I,
    ),
    # A change said by the attribute (issue 52): "I switched dentists, I now see Dr. Lindqvist".
    re.compile(
        rf"{_I_OR_NONE}(?:'ve|\s+have)?\s*(?:just\s+|finally\s+)?(?:switched|changed)\s+{_ATTRIBUTE}\s*[,;]?\s*(?:and\s+)?"
        rf"(?:I\s+)?(?:now\s+)?(?:see|go\s+to|use|am\s+with|bank\s+with|am\s+at)\s+(?:now\s+)?{_NAMED_VALUE}{_END}",
        _I,
    ),
    # "I drive a Kia Niro now".
    re.compile(rf"\bI\s+{_NOW_WORDS}drive\s+(?P<attr>)(?:an?\s+|the\s+)?{_NAMED_VALUE}{_END}", _I),
    # How many of something one has: "I have three dogs", "we now have 2 kids" (`number of dogs`).
    re.compile(
        rf"\b(?:I|we)(?:'ve|\s+have|\s+now\s+have|\s+still\s+have|\s+own)(?:\s+got)?\s+{_NOW_WORDS}"
        rf"(?P<count>(?P<value>\d{{1,3}}|{'|'.join(_NUMBER_WORDS)})\s+(?P<attr>{_COUNTED}))\b",
        _I,
    ),
]
# What a verb names when the sentence does not ("I drive a Kia" is the user's car).
_VERB_ATTRIBUTES = {"drive": "car"}
# Attributes the rules never key: people one has several of (a sister, a friend: the `person` slot names
# them), and what is a thought, not a fact ("my point is…").
_NOT_KEYED = frozenset(
    re.findall(
        r"\w+",
        "sister brother son daughter child kid cousin friend colleague neighbour neighbor aunt uncle nephew niece "
        "grandchild grandson granddaughter parent point guess question problem answer hope fear bet concern issue "
        "worry idea plan goal dream wish advice opinion view take",
    )
)
# English words for an attribute and its home word: "mobile" and "cell phone" are the phone.
ENGLISH_ATTRIBUTES = {
    "mobile": "phone",
    "cell": "phone",
    "cellphone": "phone",
    "cell phone": "phone",
    "mobile phone": "phone",
    "smartphone": "phone",
    "gp": "doctor",
    "family doctor": "doctor",
    "mobile carrier": "carrier",
    "phone carrier": "carrier",
    "hair stylist": "hairdresser",
    "hairstylist": "hairdresser",
    "color": "colour",
    "favorite": "favourite",
    "fave": "favourite",
    "football team": "team",
    "mom": "mother",
    "mum": "mother",
    "dad": "father",
}
# Slots that hold many values: where one is from, the people one names. A second value adds to them; every
# other slot (where one lives and works, a phone, a gym, a favourite colour) holds one value at a time.
MANY_VALUED = frozenset({"origin", "person"})
# The order a profile states the user's own facts in; other attributes follow, by name.
PROFILE_ORDER = ("name", "origin", "home", "job", "employer", "relationship")
# Not how things are now: the past ("I lived in"), a plan ("I'm moving to"), a wish, a question, a negation.
_NOT_NOW = re.compile(
    r"\b(?:used to|will|would|(?<!been )going to|gonna|planning|plan to|want to|wants to|hope to|might|if|when I was|"
    r"moving|not|n't|never)\b|\?\s*$",
    _I,
)
_ARTICLES = re.compile(
    r"^(?:(?:the|a|an|le|la|les|un|une|el|los|las|der|die|das|den|dem|ein|eine|einen|einem)\s+|l['’])", _I
)
_SENTENCE_END = re.compile(r"[.!?;。！？；\n]")
# A clause's subject: the user, or whom the user speaks to (where a frame before it governs it).
_SUBJECT = re.compile(r"\b(?:I|we|my|our|you|your)\b", _I)
_OPEN_QUOTES = {'"': '"', "“": "”", "«": "»", "„": "“", "「": "」", "『": "』"}


@dataclass(frozen=True)
class Slot:
    whose: str  # "user", a relation ("sister"), a person or pet named ("mei", "dog")
    what: str  # the attribute: home, employer, job, relationship, name, phone, gym, favourite colour…
    value: str  # as written, trimmed

    @property
    def key(self) -> str:
        return f"{self.whose}:{self.what}"

    @property
    def single(self) -> bool:
        return single_valued(self.key)

    @property
    def normalized(self) -> str:
        return normalized_value(self.value)


def normalized_value(value: str) -> str:
    """A value as compared: lower case, no leading article, one space ("the Gym Group" = "Gym Group")."""
    return " ".join(_ARTICLES.sub("", value.strip(" .,'’\"")).lower().split())


def _whose(relation: str | None) -> str:
    """Whose fact: the user's, or the relative's named ("mom" and "mum" are "mother")."""
    if relation is None:
        return "user"
    word = " ".join(relation.lower().split())
    return ENGLISH_ATTRIBUTES.get(word, word)


def attribute(words: str, lang: str = ENGLISH, favourite: bool = False) -> str:
    """An attribute as a key names it: lower case, singular, the home word where the language's module
    knows one ("Handy" → phone, "couleur préférée" → favourite colour), "favourite" kept."""
    table = ENGLISH_ATTRIBUTES if lang == ENGLISH else attribute_words(lang)
    name = " ".join(words.lower().replace("’", "'").split())
    name = table.get(name, name)
    parts = [table.get(w, w) for w in name.split()]
    if lang == ENGLISH and parts and len(parts[-1]) > 3 and parts[-1].endswith("s") and not parts[-1].endswith("ss"):
        parts[-1] = parts[-1][:-1]  # "I switched gyms to…": the gym
    name = " ".join(parts)
    if favourite and not name.startswith("favourite"):
        name = f"favourite {name}"
    return table.get(name, name)


def framed(content: str, start: int, lang: str) -> bool:
    """Whether what starts at `start` is inside a quote or in a frame of its sentence that makes it not the
    user's claim about now: a request, reported speech, a hypothetical, fiction, a dream (`reading/frames.py`
    in English; each other language's `FRAME` before it)."""
    before = content[:start]
    sentence = before[max((m.end() for m in _SENTENCE_END.finditer(before)), default=0) :]
    for opening, closing in _OPEN_QUOTES.items():
        opened = sentence.count(opening)
        if (opening == closing and opened % 2) or (opening != closing and opened > sentence.count(closing)):
            return True
    if lang != ENGLISH:
        return frame(lang).search(sentence) is not None
    # The clause begins at its subject: a word of change or a verb found inside it ("Tom swears I drive a Porsche
    # now") is framed as the clause is.
    opening = start - len(sentence)
    if not _SUBJECT.match(content, start):
        start = opening + max((m.start() for m in _SUBJECT.finditer(sentence)), default=len(sentence))
    end = _SENTENCE_END.search(content, start)
    rest = content[start : end.start() if end is not None else len(content)]
    return frame_of(content[opening:start], rest) is not None


def _named(m: re.Match[str], lang: str) -> Slot | None:
    """The slot a pattern that names its attribute found: whose, the attribute, the value."""
    groups = m.groupdict()
    words = groups.get("attr") or ""
    if not words:
        verb = next((v for v in _VERB_ATTRIBUTES if re.search(rf"\b{v}\b", m.group(0), _I)), None)
        words = _VERB_ATTRIBUTES[verb] if verb else ""
    value = (m["value"] or groups.get("fvalue") or "").strip(" .,'’")
    if groups.get("count"):  # "three dogs": the number of dogs, as digits
        words, value = f"number of {words.lower()}", _count(value)
        return Slot("user", words, value)
    what = attribute(words, lang, favourite=bool(groups.get("fav"))) if words else ""
    if not what or what in _NOT_KEYED or what.split()[-1] in _NOT_KEYED:
        return None
    name = groups.get("name")
    whose = name.lower() if name else _whose(groups.get("rel"))
    if lang != ENGLISH:
        whose = attribute(whose, lang) if whose != "user" else whose
    return Slot(whose, what, value)


def _count(value: str) -> str:
    """ "three" → "3"; digits as written."""
    word = value.lower()
    return str(_NUMBER_WORDS.index(word) + 1) if word in _NUMBER_WORDS else value


def _read(content: str, lang: str) -> tuple[Slot, bool, re.Match[str]] | None:
    """The first slot `content` fills, whether it states it about now (its own claim, in the present), and
    the words that state it."""
    english = lang == ENGLISH
    found: list[tuple[int, Slot, re.Match[str]]] = []
    for what, pattern in ENGLISH_PATTERNS if english else slot_patterns(lang):
        m = pattern.search(content)
        if m is not None and m["value"].strip(" .,'’"):
            found.append((m.start(), Slot(_whose(m.groupdict().get("rel")), what, m["value"].strip(" .,'’")), m))
            break
    for pattern in ENGLISH_NAMED if english else named_patterns(lang):
        for m in pattern.finditer(content):
            slot = _named(m, lang)
            if slot is not None and slot.value:
                found.append((m.start(), slot, m))
                break
    if not found:
        return None
    start, slot, m = min(found, key=lambda f: f[0])
    # The words around the value, not the value: "联想" (Lenovo) holds 想 (to want).
    value_at = m.start("value") if m["value"] else m.start("fvalue")
    clause = content[max(0, start - 12) : value_at] + content[m.end() : m.end() + 2]
    now = not (_NOT_NOW if english else not_now(lang)).search(clause) and not framed(content, m.start(), lang)
    return slot, now, m


def given_slot(key: str, read: Slot | None, content: str) -> Slot:
    """The slot of a memory whose key the caller gave ("user:phone", as `key_of` reads it): the value the
    rules read where they read the same key, else the whole statement (two statements of one key then
    differ unless they are the same words, and the later one is current)."""
    whose, _, what = key.rpartition(":")
    if read is not None and read.key == key:
        return read
    return Slot(whose, what, content)


def slot_of(content: str, lang: str = ENGLISH) -> Slot | None:
    """The single-valued fact `content` states about now, if it states one (first match)."""
    found = _read(content, lang)
    return found[0] if found is not None and found[1] else None


# A memory that says at least this many words (Chinese: characters) besides its statement of a key says more
# than that value: a correction of the value leaves the rest of it current (issue 42).
MORE_WORDS = 3
MORE_CHARACTERS = 4
_FILLER = re.compile(r"^(?:and|with|but|so|also|too|now|,|;|und|mit|aber|y|con|pero|et|avec|mais|和|跟|还有|而且)$", _I)


def says_more(content: str, lang: str, key: str) -> bool:
    """Whether `content` says more than its statement of `key`: "I live in Manchester with my partner Sam"
    does ("with my partner Sam" stays true after a move), "I live in Berlin." does not. A memory whose key a
    model gave (its value is the whole statement) says nothing more the rules can tell."""
    found = _read(content, lang)
    if found is None or found[0].key != key:
        return False
    m = found[2]
    rest = (content[: m.start()] + " " + content[m.end() :]).strip(" .,;:!?。，！？")
    if lang == "zh":
        return len(re.sub(r"[\W_]", "", rest)) >= MORE_CHARACTERS
    words = [w for w in re.findall(r"[\w'’-]+", rest) if not _FILLER.match(w)]
    return len(words) >= MORE_WORDS or any(w[:1].isupper() for w in words)  # a name is news ("Leo and Ida")


def of_family(key: str) -> bool:
    """A key the profile lists with the people and pets: someone else's fact, or how many children,
    siblings or pets the user has ("We have two kids, Leo and Ida")."""
    whose, _, what = key.rpartition(":")
    return whose != "user" or what.removeprefix("number of ") in _FAMILY


def tag(key: str) -> str:
    """A key as a profile or a line names it: "home" for the user's own, "sister's car" for another's,
    "sister" for a person named."""
    whose, _, what = key.rpartition(":")
    if whose == "user":
        return what
    return whose if what == "person" else f"{whose}'s {what}"


def key_of(given: str) -> str:
    """A key as a model writes it ("user · phone", "Mei: due date", "gym") as stored ("user:phone",
    "mei:due date", "user:gym"): whose defaults to the user; the attribute is named as the rules name it."""
    text = " ".join(given.replace("·", ":").replace("/", ":").split()).strip(" :")
    whose, _, what = text.rpartition(":")
    whose = whose.strip().lower() or "user"
    if whose in ("me", "i", "my", "the user", "user's"):
        whose = "user"
    return f"{_whose(whose) if whose != 'user' else whose}:{attribute(what.strip())}"


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
    """The user's single-valued slot that `content` speaks of without filling it for now (not in a frame: "My
    brother joked that I quit" speaks of nothing of the user's): it may end that slot's live value or not, which
    the rules cannot always tell — the write result says which memory it may replace, and a model settles it
    (docs/SPEC.md §5)."""
    if slot_of(content, lang) is not None:
        return None
    english = lang == ENGLISH
    ending = ENGLISH_ENDS if english else slot_end_patterns(lang)
    speaking = ENGLISH_TOPICS if english else slot_topic_patterns(lang)
    for ends, patterns in ((True, ending), (False, speaking)):
        for what, pattern in patterns:
            m = pattern.search(content)
            # In English, framed as the clause of its verb is ("I joked that I work at…": the second "I").
            if m is not None and not framed(content, m.end() if english else m.start(), lang):
                return Topic(f"user:{what}", ends=ends)
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


# Questions that name an attribute: "what's my phone", "what car do I drive", "who is my doctor", "which gym
# do I go to", "what is my sister's favourite colour".
_ASKS_NAMED: list[re.Pattern[str]] = [
    re.compile(
        rf"\b(?:what|who|which)(?:'s|\s+is|\s+was)\s+my\s+(?:(?P<rel>[a-z]+)'s\s+)?{_MODIFIERS}"
        rf"(?P<fav>(?:favou?rite|fave|go-to)\s+)?{_ATTRIBUTE}\s*(?:$|[?.,!]|\s+(?:now|these days|again)\b)",
        _I,
    ),
    re.compile(
        r"\b(?:what|which)\s+(?P<attr>[a-z]+(?:\s+[a-z]+)?)\s+(?:do|did)\s+I\s+(?:have|use|own|drive|go\s+to|"
        r"bank\s+with|support|see)\b",
        _I,
    ),
    re.compile(rf"\bhow\s+many\s+(?P<count>(?P<attr>{_COUNTED}))\s+(?:do|does)\s+(?:I|we)\s+(?:have|own)\b", _I),
]


def shown_key(key: str) -> str:
    """A key as texts show it to a model and a model writes it back: "user:phone" → "user · phone"."""
    whose, _, what = key.rpartition(":")
    return f"{whose} · {what}"


def single_valued(key: str) -> bool:
    """Whether the slot `key` ("user:home", "user:phone", "sister:person") holds one value at a time."""
    return key.rpartition(":")[2] not in MANY_VALUED


def asked_slot(query: str, lang: str = ENGLISH) -> str | None:
    """The slot key (as `Slot.key`) a question asks about, if it asks about one: a fixed slot ("where do I
    live") or an attribute it names ("what phone do I have", "was ist mein Handy")."""
    patterns = _ASKS if lang == ENGLISH else asks_slot_patterns(lang)
    for what, pattern in patterns:
        m = pattern.search(query)
        if m is not None:
            groups = m.groupdict()
            return f"{_whose(groups.get('rel') or groups.get('rel2'))}:{what}"
    for pattern in _ASKS_NAMED if lang == ENGLISH else asks_named_patterns(lang):
        m = pattern.search(query)
        if m is not None and m["attr"]:
            groups = m.groupdict()
            if groups.get("count"):
                return f"user:number of {m['attr'].lower()}"
            what = attribute(m["attr"], lang, favourite=bool(groups.get("fav")))
            if what not in _NOT_KEYED:
                return f"{_whose(groups.get('rel'))}:{what}"
    return None
