"""A change said by the new value alone: "These days I do my workouts at The Gym Group instead", "We changed
practices and now see Dr. Amin", "Mon nouveau téléphone, c'est un Pixel 8", "我把工资卡换成了工商银行".

People name what they have now more often than what they left, and in words no list of phrasings foresees: the
phrasing rules (leaving.py, the slot patterns) replaced 0 of 27 corrections in a batch written after them (issue
52). So this reading rests on no phrasing. A sentence of the user's own — not someone else's ("my mum now sees
Dr. Amin"), not framed, not a past, plan, question or negation (`slots.framed`, the language's not-now words) —
nor a thing bought for someone else ("a new iPhone for my mum": `ENGLISH_FOR_SOMEONE` before `others`)
says a change of one of their values when it has
- a word of change or of now ("now", "these days", "instead", "new", "switched", "seit", "depuis", "现在", "换"),
- nothing that makes it no change of the one value: an addition ("too", "aussi"), an occasion ("today",
  "sometimes"), a thought ("thinking of", "überlege"),
- a word for what a value is for, a domain (gym, doctor, bank, employer, school…: `ENGLISH_DOMAINS`, each
  language's `DOMAINS` with the attributes the slot rules know, "Zahnarzt" → dentist; in every language, the
  names of well-known makes and providers, `PRODUCTS`: "iPhone", "Sparkasse", "AOK"; failing those, a place of
  work said by no word for it is the employer: "I'm at Figma now, started in March", `ENGLISH_WORKPLACE`),
- and, where words are spaced, a name besides the sentence's first word (the new value: "The Gym Group").
It replaces the user's current fact of a shared domain that holds a value the sentence does not name ("I train at
Anytime Fitness": a verb of having, using or going to before a name, `leaving.holds`; or someone named who does
something of theirs, "Sophie has cut my hair since uni", `ENGLISH_DOES_MINE`) — or names only as the
subject of a later clause, its reason ("…, Tony retired"), or of its own ending ("Marta moved away, …",
`ENGLISH_DEPARTED`); of several, those sharing most domains, and none when
facts holding different values tie: it may replace them, which a model settles (`replaced`; services/memories/
writing.py finds the facts, applies it and names the newest tied one as `may_replace`). A sentence with no word of
change that holds a value of a domain ("I train at Third Space on weekdays") may add a value or end one, which the
rules cannot tell (issue 61): it ends nothing and names the fact it may replace (`Change.said` false).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from engrain.reading.languages import rules
from engrain.reading.leaving import ARTICLES, ELIDED, ENGLISH_OTHERS, SENTENCE, holds
from engrain.reading.slots import ENGLISH_ATTRIBUTES, framed, states_now
from engrain.text.languages import ENGLISH

_I = re.IGNORECASE
ENGLISH_CHANGED = re.compile(
    r"\b(?:now|these\s+days|nowadays|lately|any\s?more|no\s+longer|instead|switch(?:ed)?|changed|moved|new|since"
    r"|started|joined|went\s+with|signed\s+up|gone\s+over|got\s+myself|go-to|from\s+now\s+on|upgraded|closed|ported)\b",
    _I,
)
ENGLISH_ASIDE = re.compile(
    r"\b(?:too|also|as\s+well|on\s+the\s+side|sometimes|occasionally|now\s+and\s+then|once\s+in\s+a\s+while"
    r"|for\s+once|today|tonight|yesterday|this\s+(?:morning|afternoon|evening|weekend)|considering"
    r"|thinking\s+(?:of|about)|maybe|perhaps|tempted)\b",
    _I,
)
# What a value is for, by the words that say it (the attribute names the slot rules use, in English).
ENGLISH_DOMAINS = {
    "gym": "gym",
    "workout": "gym",
    "work out": "gym",
    "train": "gym",
    "training": "gym",
    "fitness": "gym",
    "exercise": "gym",
    "doctor": "doctor",
    "dr": "doctor",
    "physician": "doctor",
    "practice": "doctor",
    "surgery": "doctor",
    "clinic": "doctor",
    "dentist": "dentist",
    "dental": "dentist",
    "teeth": "dentist",
    "orthodontist": "dentist",
    "therapist": "therapist",
    "therapy": "therapist",
    "counsellor": "therapist",
    "counselor": "therapist",
    "psychologist": "therapist",
    "physio": "physio",
    "physiotherapist": "physio",
    "osteopath": "physio",
    "chiropractor": "physio",
    "hairdresser": "hairdresser",
    "hair": "hairdresser",
    "haircut": "hairdresser",
    "beard": "hairdresser",
    "trim": "hairdresser",
    "barber": "hairdresser",
    "salon": "hairdresser",
    "stylist": "hairdresser",
    "vet": "vet",
    "veterinary": "vet",
    "bank": "bank",
    "banking": "bank",
    "account": "bank",
    "savings": "bank",
    "card": "bank",
    "mortgage": "bank",
    "carrier": "carrier",
    "network": "carrier",
    "sim": "carrier",
    "ported": "carrier",
    "phone plan": "carrier",
    "phone": "phone",
    "handset": "phone",
    "broadband": "broadband",
    "internet": "broadband",
    "wifi": "broadband",
    "fibre": "broadband",
    "router": "broadband",
    "energy": "energy supplier",
    "electricity": "energy supplier",
    "supplier": "energy supplier",
    "work": "employer",
    "job": "employer",
    "office": "employer",
    "company": "employer",
    "employer": "employer",
    "colleague": "employer",
    "salary": "employer",
    "school": "school",
    "primary": "school",
    "nursery": "school",
    "kindergarten": "school",
    "preschool": "school",
    "college": "school",
    "university": "school",
    "insurance": "insurance",
    "insurer": "insurance",
    "insured": "insurance",
    "accountant": "accountant",
    "taxes": "accountant",
    "bookkeeper": "accountant",
    "coffee": "coffee place",
    "flat white": "coffee place",
    "latte": "coffee place",
    "cappuccino": "coffee place",
    "café": "coffee place",
    "cafe": "coffee place",
    "car": "car",
    "drive": "car",
    "laptop": "laptop",
    "browser": "browser",
}
# Names that say what they are, in every language: well-known makes and providers (not those that are also common
# words: "Three", "Orange", "Free", "Octopus"). "I'm with O2" is a carrier, "Me pasé al BBVA" a bank.
_PROVIDERS = {
    "bank": "Barclays, HSBC, Lloyds, NatWest, Santander, Monzo, Starling, Revolut, Halifax, TSB, Metro Bank, Sparkasse,"
    " Volksbank, Commerzbank, Deutsche Bank, DKB, ING, N26, Postbank, Comdirect, BBVA, CaixaBank, Bankinter, Sabadell,"
    " Boursorama, BNP, BNP Paribas, LCL, Fortuneo, Société Générale, Crédit Agricole, Crédit Mutuel, Banque Populaire,"
    " Caisse d'Epargne, La Banque Postale",
    "carrier": "Vodafone, EE, O2, Giffgaff, Lebara, Telekom, Movistar, SFR, Bouygues, Free Mobile, Sosh, Yoigo,"
    " Verizon, T-Mobile, 中国移动, 中国联通",
    "insurance": "AOK, TK, Techniker, Barmer, DAK, Allianz, AXA, Aviva, Bupa, Mapfre, Sanitas, Adeslas, MAIF, MACIF",
    "gym": "PureGym, McFit, FitX, Basic-Fit, Neoness, Altafit, Equinox, David Lloyd, Virgin Active, Nuffield Health,"
    " 威尔仕, 乐刻, 超级猩猩, 一兆韦德",
    "video streaming": "Netflix, Disney+, Hulu, HBO, Prime Video",
    "music streaming": "Spotify, Tidal, Deezer, Apple Music",
    "energy supplier": "EDF, E.ON, OVO, Octopus Energy, British Gas, Iberdrola, Endesa, Naturgy, Vattenfall, EnBW,"
    " Engie",
    "broadband": "BT, TalkTalk, Plusnet, Hyperoptic, Virgin Media",
}
PRODUCTS = {name.lower(): what for what, names in _PROVIDERS.items() for name in names.split(", ")} | {
    "iphone": "phone",
    "pixel": "phone",
    "galaxy": "phone",
    "samsung": "phone",
    "xiaomi": "phone",
    "huawei": "phone",
    "oneplus": "phone",
    "vivo": "phone",
    "oppo": "phone",
    "小米": "phone",
    "华为": "phone",
}
HELD = frozenset(ENGLISH_DOMAINS.values()) | frozenset(PRODUCTS.values())  # what a user has one of at a time
# A name (the new or the old value): capitalised words ("The Gym Group", "Dr. Amin", "iPhone 15"), as leaving.py
# reads them, also after an elided article ("l'Orange Bleue"); "I" and its contractions are no name.
_NAME = re.compile(
    r"(?:(?<![\w'’])|(?<=\b[ld]['’]))(?:[A-ZÀ-ÖØ-Þ]|[a-z][A-Z])[\w'’.&+-]*"
    r"(?:[ -](?:[A-ZÀ-ÖØ-Þ0-9]|[a-z][A-Z])[\w'’.&+-]*)*"
)
# Someone who does something of the user's: "Lena at Cutting Room does my hair", "Sophie has cut my hair since
# uni", "It's Priya who does my taxes" (each other language's in its module: "C'est Julien qui me coupe les cheveux").
ENGLISH_DOES_MINE = (
    re.compile(
        rf"^\s*(?!(?:My|Our|His|Her|Their|The|This|That|It['’]s)\b)(?P<v>(?-i:{_NAME.pattern}))"
        rf"(?:\s+(?:at|from)\s+(?-i:{_NAME.pattern})(?:\s+(?:by|of|and|&|on)\s+(?-i:{_NAME.pattern}))*)?"
        r"\s+(?:(?:has|had)\s+(?:always\s+)?(?:been\s+)?[a-z]+|[a-z]+s)\s+(?:my|our)\s",
        _I,
    ),
    re.compile(rf"^\s*It['’]s\s+(?P<v>(?-i:{_NAME.pattern}))\s+who\s+[a-z]+\s+(?:my|our)\s", _I),
)
# A place of work said by no word for it: "I'm a nurse at St Thomas'", "I'm at Figma now, started in March";
# read only where no domain's word is said ("I'm at PureGym now" is a gym).
ENGLISH_WORKPLACE = re.compile(
    r"\b(?:I['’]m|I\s+am)\s+an?\s+(?!(?:member|regular|customer|patient|client|student|fan|guest)\b)"
    r"(?:[\w-]+\s+){0,2}?[\w-]+\s+(?:at|for)\s+(?:the\s+)?(?-i:[A-Z])"
    r"|\bstarted\s+(?:work(?:ing)?\s+)?(?:there|at\s+(?:the\s+)?(?-i:[A-Z]))"
    r"|\b(?:I['’]m|I\s+am)\s+(?:now\s+)?at\s+(?:the\s+)?(?-i:[A-Z])[^.!?]*?\bstarted\b",
    _I,
)
# The value as the subject of its own ending: "Marta moved away", "Tony retired" — named as gone, not as held.
ENGLISH_DEPARTED = re.compile(
    r"\s+(?:has\s+|had\s+|just\s+)?(?:retired|moved\s+away|left(?!\s+(?:me|us|a|an|the|my|our)\b)|closed(?:\s+down)?"
    r"|shut(?:\s+down)?|went\s+bust)\b",
    _I,
)
# What is bought for someone else is theirs: "Ordered the new iPhone for my dad's birthday" (before `others`).
ENGLISH_FOR_SOMEONE = re.compile(r"\bfor\s+$", _I)
_PRONOUN = re.compile(r"^I(?:['’]\w+)?$")
# Someone else's, just before a domain's word: "Tariq's new job", "her new gym".
_THEIRS = re.compile(r"(?:\b(?-i:[A-Z])\w*['’]s|\b(?:his|her|their))\s+(?:\w+\s+)?$", _I)
# Chinese: the value after a verb of holding ("我用的是招商银行", "我在腾讯上班"), without the activity after it or
# the verb of where it goes before it.
_ZH_ACTIVITY = re.compile(r"(?:上班|工作|健身|上课|看病)$")
_ZH_LEAD = re.compile(r"^(?:发到|存到|存在|放在|转到|办在)")  # "工资是发到建设银行的卡上": the bank, not how


@dataclass(frozen=True)
class Change:
    """What a statement of a change is about: the domains of its value and, as one full-text query in its
    language, the words that say them (the user's facts to compare it with)."""

    domains: frozenset[str]
    query: str
    # A word of change or of now says it ("I'm at The Gym Group now"). Without one the statement only says the user
    # holds a value of the domain ("I go to Third Space on weekdays"): it may add to the fact or end it, which the
    # rules cannot tell — it ends nothing and names what it may replace, for a model to settle (issue 61).
    said: bool = True


@cache
def _domains(lang: str) -> tuple[re.Pattern[str], dict[str, str]]:
    """The language's words for what a value is for, and one pattern that finds them (with a plural or an
    inflection's ending where words are spaced: "dentists", "Zähne"; not "Carla" for "car")."""
    r = rules(lang)
    words = ENGLISH_DOMAINS | ENGLISH_ATTRIBUTES if lang == ENGLISH else r.attributes | r.domains
    table = {w.lower(): d for w, d in (PRODUCTS | words).items() if d in HELD}
    alternatives = "|".join(re.escape(w) for w in sorted(table, key=len, reverse=True))
    pattern = rf"(?<!\w)(?P<w>{alternatives})(?:e?s|e|en|n)?(?!\w)" if r.spaced else f"(?P<w>{alternatives})"
    return re.compile(pattern, _I), table


@lru_cache(maxsize=4096)  # a batch compares each of its changes with the same facts
def domains_of(text: str, lang: str) -> frozenset[str]:
    """What the values `text` speaks of are for ("I train at Anytime Fitness" → gym, "St Anne's Primary" →
    school), but not what someone named has ("because of Tariq's new job")."""
    pattern, table = _domains(lang)
    found = frozenset(
        table[m["w"].lower()]
        for m in pattern.finditer(text)
        if not (m["w"][0].islower() and _THEIRS.search(text, 0, m.start()))
    )
    workplace = ENGLISH_WORKPLACE if lang == ENGLISH else rules(lang).workplace
    if found or not workplace.search(text):
        return found
    return frozenset({"employer"})  # a place of work said by no word for it


def changed(content: str, lang: str = ENGLISH) -> Change | None:
    """The change of one of the user's values that `content` says by the new value, if it says one; failing that,
    a value of a domain it says the user holds with no word of change, which may be one (`said` false)."""
    r = rules(lang)
    english = lang == ENGLISH
    cue_words, aside, others, for_someone = (
        (ENGLISH_CHANGED, ENGLISH_ASIDE, ENGLISH_OTHERS, ENGLISH_FOR_SOMEONE)
        if english
        else (r.changed, r.aside, r.others, r.for_someone)
    )
    unsaid: Change | None = None  # the first sentence that holds a value of a domain with no word of change
    for sentence in SENTENCE.finditer(content):
        text = sentence.group(0)
        if content[sentence.end() : sentence.end() + 1] in ("?", "？"):  # a question says no change
            continue
        cue = cue_words.search(text)
        if aside.search(text) or not states_now(text, lang):
            continue
        if cue is None and (unsaid is not None or not held_values(text, lang)):
            continue
        at = cue.start() if cue is not None else max(0, text.find(held_values(text, lang)[0]))
        if any(for_someone.search(text, 0, m.start()) for m in others.finditer(text)):
            continue
        if _someone_else(others, text[:at]):
            continue
        if framed(content, sentence.start() + at, lang):
            continue
        if r.spaced and not any(not _PRONOUN.match(name) for name in _inner_names(text)):
            continue
        domains = domains_of(text, lang)
        if domains:
            _, table = _domains(lang)
            change = Change(domains, " or ".join(sorted(w for w, d in table.items() if d in domains)), cue is not None)
            if change.said:
                return change
            unsaid = change
    return unsaid


def _inner_names(text: str) -> list[str]:
    """The names in `text` but its first word, which is capitalised as any sentence's; a name joined to that word
    is still one ("Tengo Movistar en el móvil" → Movistar)."""
    names: list[str] = []
    for m in _NAME.finditer(text.strip()):
        name = m.group(0) if m.start() > 0 else m.group(0).partition(" ")[2]
        if name:
            names.append(name)
    return names


def _someone_else(others: re.Pattern[str], before: str) -> bool:
    """Is someone else the subject before the word of change? Not a pronoun after a name, which is the new value
    ("Booked my trim with Ana at Headmasters, she's my go-to now")."""
    found = others.search(before)
    if found is None:
        return False
    pronoun = " " not in found.group(0).strip()
    return not (pronoun and any(m.start() > 0 for m in _NAME.finditer(before.strip(), 0, found.start())))


@lru_cache(maxsize=4096)
def held_values(content: str, lang: str = ENGLISH) -> tuple[str, ...]:
    """The values a fact of the user's own says they hold ("I go to PureGym on Kirkstall Road" → PureGym,
    Kirkstall Road; "我用的是招商银行" → 招商银行)."""
    r = rules(lang)
    if r.spaced:
        names = (name.rstrip(".,") for name in _inner_names(content))
        held = tuple(name for name in names if holds(content, name, lang))
        if held:
            return held
        patterns = ENGLISH_DOES_MINE if lang == ENGLISH else r.does_mine
        return tuple(dict.fromkeys(m["v"] for p in patterns if (m := p.match(content))))
    found: list[str] = []
    for m in re.finditer(rf"{r.holds}(?:的是|是|的)?(?P<v>[^\s，。！？,.!?的了]{{2,12}})", content):
        if not r.others.search(content[: m.start()]):
            found.append(_ZH_LEAD.sub("", _ZH_ACTIVITY.sub("", m["v"])))
    return tuple(v for v in found if len(v) >= 2)


def _names(value: str, content: str, lang: str) -> bool:
    """Does `content` name `value` as what the user has (in Chinese, by its first two characters: "招商" for
    招商银行)? Not where the value is only the subject of a clause after the change, its reason ("I go to Ali's
    Barbers now, Tony retired", "Ich bin jetzt bei der AOK, die TK war mir zu teuer"), or of its own ending
    ("Le docteur Lambert est parti à la retraite, maintenant…", "小王走了以后…")."""
    said = value if rules(lang).spaced else value[:2]
    departed = ENGLISH_DEPARTED if lang == ENGLISH else rules(lang).departed
    mentions = [m.start() for m in re.finditer(re.escape(said), content, _I)]
    reason = rf"[,;，；]\s*(?:{ARTICLES}\s+|{ELIDED})?(?P<v>{re.escape(said)})\s+\w"
    reasons = {m.start("v") for m in re.finditer(reason, content, _I)}
    return any(at not in reasons and not departed.match(content, at + len(said)) for at in mentions)


@dataclass(frozen=True)
class Verdict:
    """What a change ends among the user's facts (by position): `ends`, those it replaces; or, where facts holding
    different values tie, none, and `tied`: those it may replace, which a model settles (`may_replace`)."""

    ends: tuple[int, ...] = ()
    tied: tuple[int, ...] = ()


def replaced(change: Change, content: str, lang: str, facts: Sequence[tuple[str, str]]) -> Verdict:
    """Of the user's current facts (each `(content, lang)`, told before `content`), those its change replaces:
    the facts of a domain it shares that hold a value it does not name, sharing most domains; none when facts
    holding different values tie (the statement does not say which it ends), and none where no word of change
    says it (`Change.said` false: all of them are tied, the statement may add a value). A fact is read in the
    statement's language, then in its own (a short fact's language is often misread: "Conduzco un Seat Ibiza" reads
    as English)."""
    scored: list[tuple[int, str, int]] = []
    for position, (fact, fact_lang) in enumerate(facts):
        read_as = next((code for code in (lang, fact_lang) if domains_of(fact, code) & change.domains), lang)
        shared = len(domains_of(fact, read_as) & change.domains)
        values = held_values(fact, read_as) if shared else ()
        if values and not any(_names(v, content, lang) for v in values):
            scored.append((shared, values[0].lower(), position))
    best = max((shared for shared, _, _ in scored), default=0)
    winners = [(value, position) for shared, value, position in scored if shared == best]
    positions = tuple(position for _, position in winners)
    settled = change.said and len({value for value, _ in winners}) == 1
    return Verdict(ends=positions) if settled else Verdict(tied=positions)
