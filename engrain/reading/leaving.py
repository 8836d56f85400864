"""A change of value said by naming what the user left: "Ditched Vodafone for Giffgaff", "I don't see Dr. Green
anymore", "I replaced Chrome with Firefox", "Ich gehe nicht mehr zu Dr. Weber", "我把iPhone换成了华为Mate 60".

People rarely restate a fact in its first form ("my dentist is now X"); they say what they stopped ("I switched
dentists", "cancelled PureGym, I'm at Third Space now"). When such a statement names the old value, the user's live
fact that names it is what changed (issue 52: 2 of 6 held-out corrections won with no model). Only the user's own
statement about how things are: not someone else's ("my sister left Deloitte"), not framed (a quote, a
hypothetical, a request: `slots.framed`), not a one-off of one day ("tea instead of coffee this morning", "I left
Paris yesterday"), and "instead of X" only with a word of now ("… instead of Riverside now"). The memory it replaces
must be a current fact of the user's own that names the value (services/memories/writing.py applies it).
The English patterns live here, each other language's in its module (`languages.rules(lang).leaving`).
"""

from __future__ import annotations

import re

from engrain.reading.languages import rules
from engrain.reading.slots import RELATIONS, framed
from engrain.text.languages import ENGLISH

_I = re.IGNORECASE
# The value left: a name ("PureGym", "Dr. Green", "iPhone", "Riverside Vets"), as slots.py reads values.
_OLD = (
    r"(?P<old>(?:the\s+)?(?-i:(?:[A-Z]|[a-z][A-Z])[\w'’.&+-]*)"
    r"(?:[ -](?-i:(?:[A-Z0-9]|[a-z][A-Z])[\w'’.&+-]*|&|of))*)"
)
# The user as subject, said or left out as chat leaves it: at a sentence's start, after "I"/"we", or after "and".
_ME = r"(?:\b(?:I|we)(?:'ve|\s+have)?\s+|(?:^|(?<=[.!?,;]\s)|\band\s+))(?:just\s+|finally\s+|recently\s+|also\s+)?"
# Endings that hold from the day they are told ("Sold the Yaris yesterday", "Last Friday was my last day at
# Unilever"): read even in a statement of one day, which the other patterns are not ("I left Paris this morning").
ENGLISH_FOR_GOOD = [
    re.compile(rf"{_ME}(?:sold|traded\s+in)\s+(?:my\s+|our\s+|the\s+)?{_OLD}", _I),
    # Leaving a job: "Handed in my notice at Deloitte", "I resigned from Aviva", "my last day at Unilever".
    re.compile(
        rf"(?:{_ME}(?:handed\s+in\s+(?:my\s+)?notice|gave\s+(?:my\s+)?notice|resigned|(?:quit|left)\s+my\s+job)"
        rf"|\bmy\s+last\s+day)\s+(?:at|from|with)\s+{_OLD}",
        _I,
    ),
    # "Closed my account with Halifax", "closed my Barclays account", "ported my number from EE".
    re.compile(
        rf"{_ME}(?:closed\s+(?:my|our)\s+(?:\w+\s+)?account\s+(?:at|with)|ported\s+(?:my|our)\s+numbers?\s+"
        rf"(?:away\s+)?from)\s+{_OLD}",
        _I,
    ),
    re.compile(rf"{_ME}closed\s+(?:my|our)\s+{_OLD}\s+account", _I),
]
ENGLISH_LEAVING = [
    # "Cancelled PureGym", "ditched Vodafone for Giffgaff", "I left Deloitte and joined…", "quit Spotify", "gave up on
    # Gymbox", "stopped using Revolut", "moved on from…", "I'm done with…".
    re.compile(
        rf"{_ME}(?:cancell?ed|ditched|dropped|left|quit|dumped|gave\s+up(?:\s+on)?|stopped\s+using|moved\s+on\s+from"
        rf"|got\s+rid\s+of)\s+(?:my\s+|our\s+|the\s+)?{_OLD}",
        _I,
    ),
    re.compile(rf"\b(?:I['’]m|I\s+am|we['’]re|we\s+are)\s+(?:so\s+)?done\s+with\s+(?:my\s+|our\s+|the\s+)?{_OLD}", _I),
    # "I replaced Chrome with Firefox", "swapped Spotify for Tidal", "switched Monzo for Starling".
    re.compile(rf"{_ME}(?:replaced|swapped|traded|switched|exchanged)\s+(?:my\s+)?{_OLD}\s+(?:with|for)\s", _I),
    # The old value named in the reason for a switch: "I've gone over to Three, EE kept putting the price up".
    re.compile(
        rf"{_ME}(?:switched|changed|moved|moved\s+over|gone\s+over|went\s+over|changed\s+over)\s+to\s+(?-i:[A-Z0-9][\w'’.&+-]*)"
        r"(?:[ -](?-i:[A-Z0-9][\w'’.&+-]*))*\s*(?:,|;|\bbecause\b|\bas\b|\bsince\b)\s*(?:the\s+)?"
        rf"{_OLD}\s+(?:was|were|kept|is|had|got|charged|put|raised|went)\b",
        _I,
    ),
    # "switched from Vodafone to EE", "moved my account from Barclays to Monzo".
    re.compile(rf"{_ME}(?:switched|moved|changed|went)\s+(?:[\w']+\s+){{0,3}}?from\s+{_OLD}\s+(?:to|over to)\s", _I),
    # "I don't see Dr. Green anymore", "I no longer go to PureGym", "we stopped going to Riverside Vets".
    re.compile(
        r"\b(?:I|we)\s+(?:don't|do not|no longer|stopped)\s+(?:going\s+to|seeing|using|see|use|go\s+to|bank\s+with"
        rf"|work\s+(?:at|for)|shop\s+at|train\s+at)\s+{_OLD}",
        _I,
    ),
]
ENGLISH_INSTEAD = re.compile(rf"\binstead\s+of\s+{_OLD}", _I)
ENGLISH_NOW = re.compile(r"\b(?:now|these days|nowadays|any\s?more|since then)\b", _I)
# Someone else as the subject: "my sister switched…", "he left Deloitte".
ENGLISH_OTHERS = re.compile(
    rf"\b(?:my|our)\s+(?:{RELATIONS}|friend|colleague|neighbou?r|kids?|children)\b|\b(?:he|she|they)\b", _I
)
# Sentences, not cut after a title ("Dr. Green", "Mr. Novak").
SENTENCE = re.compile(r"(?:[^.!?。！？\n]|(?<=\b(?:Dr|Mr|Ms|St))\.|(?<=\bMrs)\.)+")
# A definite article before a value, in the five languages' spaced words ("the", "la", "dem"); an elided one
# ("l'Orange Bleue", "d'EDF") is `ELIDED`. One home for leaving.py and changes.py.
ARTICLES = r"(?:the|le|la|les|el|los|las|der|die|das|den|dem)"
ELIDED = r"[ld]['’]"
_ARTICLE = re.compile(rf"^(?:{ARTICLES}\s+|{ELIDED})", _I)


def left_value(content: str, lang: str = ENGLISH, one_day: bool = False) -> str | None:
    """The value the user says they left for another, as written ("PureGym", "Dr. Green"); None when the text
    says no such thing of the user's own. In a statement of `one_day` ("tea instead of coffee this morning"), only
    an ending that holds from that day on ("my last day at Unilever")."""
    r = rules(lang)
    english = lang == ENGLISH
    for_good = ENGLISH_FOR_GOOD if english else []
    patterns = for_good if one_day else [*for_good, *(ENGLISH_LEAVING if english else r.leaving)]
    instead, now, others = (
        (ENGLISH_INSTEAD, ENGLISH_NOW, ENGLISH_OTHERS) if english else (r.instead, r.now_words, r.others)
    )
    for sentence in SENTENCE.finditer(content):
        text = sentence.group(0)
        found = [(m, False) for p in patterns for m in p.finditer(text)]
        found += [] if one_day else [(m, True) for m in instead.finditer(text)]
        for m, needs_now in sorted(found, key=lambda f: f[0].start()):
            if needs_now and not now.search(text):
                continue
            if others.search(text[: m.start()]) or framed(content, sentence.start() + m.start(), lang):
                continue
            old = _ARTICLE.sub("", m["old"].strip(" .,'’\""))
            if old:
                return old
    return None


# What says the user has, uses or goes to a value: "I go to PureGym", "I'm on Vodafone", "My therapist is Dr. Green".
ENGLISH_HOLDS = (
    r"\b(?:go|goes|use|uses|using|am|'m|are|'re|is|'s|bank|see|sees|train|shop|work|live|drive|have|got|get|watch"
    r"|stream|listen|run)\b"
)
_BETWEEN = 4  # words at most between such a verb and the value ("I go to the gym at PureGym")


def holds(content: str, value: str, lang: str = ENGLISH) -> bool:
    """Does `content` say the user holds `value` now — a verb of having, using or going to, then the value within a
    few words, in a statement of the user's own ("I go to PureGym on Kirkstall Road", "My dentist is Dr. Okafor";
    not "I love the old town in Gdansk", not "My sister's dentist is Dr. Okafor")? Only such a fact is what
    leaving the value ends."""
    r = rules(lang)
    others = ENGLISH_OTHERS if lang == ENGLISH else r.others
    verbs = ENGLISH_HOLDS if lang == ENGLISH else r.holds
    at = content.lower().find(value.lower())
    if at < 0 or others.search(content[:at]):
        return False
    gap = rf"(?:[^\s.!?]+\s+){{0,{_BETWEEN}}}" if r.spaced else r"[^。！？.!?]{0,6}?"
    edge = r"(?![\w])" if r.spaced else ""
    pattern = rf"{verbs}\s*{gap}(?:{ARTICLES}\s+|{ELIDED})?{re.escape(value)}{edge}"
    return re.search(pattern, content, _I) is not None
