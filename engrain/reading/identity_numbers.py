"""Identity numbers, which are secrets (docs/SPEC.md §5, "Secrets"): what reading/identity_names.py counts as one
(social security and insurance numbers, identity cards, passports, personal tax numbers, driving licences).

Two ways, because a number is said two ways:
- Named: a number that follows the words naming it, in any of the five languages' spellings, joined as people
  join them ("my ssn is 423 81 5567", "SSN: 219-09-9999", "Pass-Nr. M6RW453LG", "Mi número de DNI es el …",
  "Mon numéro de passeport est le …", "护照号：E42319688"), or that comes just before them ("… is my SSN"). Its
  shape is all that is asked — letters and digits, maybe grouped by spaces, hyphens, dots or slashes, at least six
  characters of which two digits — not its issuer's check: a number the user calls their SSN is theirs to keep
  secret even when it is a famous invalid one. A date, an IP address or a number that checks as a company's (a
  Spanish CIF, a Chinese unified social credit code, an EU VAT number) is no person's.
- Unnamed: a kind whose shape and issuer's check say enough (python-stdnum: check digits, valid areas, a birth
  date that exists) — a formatted SSN, a DNI's letter, a French NIR, an 18-character Chinese number with its
  birth date — wherever it is; one whose shape alone says little (nine digits, eleven digits) only when words
  that name it stand near it.
Either way it is a whole token: a run of digits inside a longer word of letters and digits (a hash) is none.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from stdnum import luhn
from stdnum.cn import ric, uscc
from stdnum.de import idnr
from stdnum.es import cif, dni, nie
from stdnum.eu import vat
from stdnum.fr import nir
from stdnum.us import ssn

from engrain.reading.identity_names import NAMES, NATIONAL_ID

BEFORE, AFTER = 60, 30  # characters around a number in which the words that name it are looked for


@dataclass(frozen=True)
class _Kind:
    pattern: re.Pattern[str]
    valid: Callable[[str], bool]
    named_by: re.Pattern[str] | None = None  # words that must stand near it; None: its shape and check suffice


def _nino(number: str) -> bool:
    """A UK National Insurance number's prefix: neither letter D, F, I, Q, U or V, the second not O, and none of
    the pairs never issued."""
    prefix = number.replace(" ", "")[:2].upper()
    return prefix not in {"BG", "GB", "NK", "KN", "TN", "NT", "ZZ"}


def _resident_id(number: str) -> bool:
    """A Chinese resident identity number: its check character and a birth date that exists. Not its region
    (python-stdnum knows today's codes; a number keeps the code of where it was first issued)."""
    try:
        ric.get_birth_date(number)
    except ValueError:
        return False
    return number[-1].upper() == ric.calc_check_digit(number)


def _sin(number: str) -> bool:
    digits = re.sub(r"\D", "", number)
    return len(digits) == 9 and digits[0] not in "08" and luhn.is_valid(digits)


_KINDS: tuple[_Kind, ...] = (
    _Kind(re.compile(r"(?<![\d\-])\d{3}-\d{2}-\d{4}(?![\d\-])"), ssn.is_valid),
    _Kind(
        re.compile(r"(?<![\d\-])\d{3}(?: \d{2} \d{4}|\d{6})(?![\d\-])"),
        ssn.is_valid,
        re.compile(r"(?i)\b(?:SSN|social\s+security|social)\b"),
    ),
    _Kind(
        re.compile(r"(?<![A-Za-z0-9])[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])"),
        _nino,
        re.compile(r"(?i)\b(?:national\s+insurance|NI\s+(?:number|no)|NINO)\b"),
    ),
    _Kind(
        re.compile(r"(?<![\d\-])\d{3}[ \-]?\d{3}[ \-]?\d{3}(?![\d\-])"),
        _sin,
        re.compile(r"\b(?:SIN|NAS)\b|(?i:social\s+insurance|assurance\s+sociale)"),
    ),
    _Kind(
        re.compile(r"(?<![\d\-/])\d{2} ?\d{3} ?\d{3} ?\d{3}(?![\d\-/])"),
        lambda n: idnr.is_valid(n.replace(" ", "")),
        re.compile(r"(?i)steuer-?id|identifikationsnummer|\bIdNr\b|\btax\s+id"),
    ),
    _Kind(
        re.compile(r"(?<![A-Za-z0-9])[12] ?\d{2} ?\d{2} ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3} ?\d{2}(?![A-Za-z0-9])"),
        lambda n: nir.is_valid(n.replace(" ", "")),
    ),
    _Kind(re.compile(r"(?<![A-Za-z0-9])\d{8}-?[A-Z](?![A-Za-z0-9])"), dni.is_valid),
    _Kind(re.compile(r"(?<![A-Za-z0-9])[XYZ]-?\d{7}-?[A-Z](?![A-Za-z0-9])"), nie.is_valid),
    _Kind(re.compile(r"(?<![A-Za-z0-9])\d{17}[\dXx](?![A-Za-z0-9])"), _resident_id),
)
_DIGITS = re.compile(r"\d\D*+\d")  # two digits, apart or not ("P8GYV0ZY6")

# Between a name and its number: the name's "number" word and the words that join a number to it, a few of them
# ("passport number is", "Pass-Nr.", "número de DNI es el", "numéro de sécu :", "身份证号码：", "hat die Nummer").
_BRIDGE = (
    r"(?:\s++|[:：#=(（,，\-]|n[°º]\.?|n\.º|(?:no|nr|num|núm)\.|"
    r"(?:numbers?|nummer|no|nr|num|número|numero|numéro|is|was|ist|lautet|war|es|era|est|était|c['’]est|le|el|the|"
    r"new|current|my|hat|die|still|now)\b|是|为|為|号码|號碼|号|號|码)"
    r"{0,12}+"
)
# A number: letters and digits, a digit among its first seven characters (or a group of capitals first: "QQ 12 34 56
# C"), maybe in groups joined by a hyphen, a dot or a slash, or by a space before a group with a digit or a lone
# capital ("TX 97 65 24 C", "39 221083 M 10 3").
_VALUE = re.compile(
    r"(?i)(?<![A-Za-z0-9])(?=[A-Za-z]{0,6}\d|(?-i:[A-Z]{1,3})\s\d)[A-Za-z0-9]{1,24}+"
    r"(?:[\-./][A-Za-z0-9]{1,24}+|\s(?=[A-Za-z]{0,6}\d|(?-i:[A-Z])(?![A-Za-z0-9]))[A-Za-z0-9]{1,24}+){0,8}+"
    r"(?![A-Za-z0-9])"
)
_LETTERS_FIRST = re.compile(r"[A-Za-z]++\s")
_LABELS = tuple(NAMES)
_NAME = "|".join(f"(?P<n{i}>{'|'.join(names)})" for i, names in enumerate(NAMES.values()))
_NAME_BEFORE = re.compile(rf"(?i)(?:{_NAME}){_BRIDGE}$")
# "242-32-6621 is my SSN", "… (my passport)", "…是我的身份证号".
_NAME_AFTER = re.compile(
    r"(?i)\s*+(?:[,(—–\-]\s*+)?(?:(?:is|was|=|that['’]s|it['’]s|ist|es|est|c['’]est|是|为)\s*+)?"
    rf"(?:(?:my|the|his|her|our|mein[e]?|mi|mon|ma|我的|他的|她的)\s*+)?(?:{_NAME})"
)
_DATE = re.compile(r"\d{1,2}[./\-]\d{1,2}[./\-]\d{2,4}|\d{4}[./\-]\d{1,2}[./\-]\d{1,2}|\d{1,2}[./]\d{4}")
_ADDRESS = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")


def _label(m: re.Match[str]) -> str:
    return next(_LABELS[i] for i in range(len(_LABELS)) if m.group(f"n{i}") is not None)


def _named(text: str) -> Iterator[tuple[int, int, str]]:
    """Numbers a name stands just before or after. Each number-shaped token is looked at (they are few: most texts
    have none), then the words around it — not the names over the whole text, which costs more."""
    at = 0
    while (m := _VALUE.search(text, at)) is not None:
        value = m.group()
        named = _a_persons(value) and (
            _NAME_BEFORE.search(text, max(0, m.start() - BEFORE), m.start())
            or _NAME_AFTER.match(text[m.end() : m.end() + AFTER])
        )
        if named:
            yield m.start(), m.end(), _label(named)
            at = m.end()
        else:  # "SSN 123 45 6789" read as one number from "SSN": the number may start at its next group
            letters = _LETTERS_FIRST.match(value)
            at = m.start() + letters.end() if letters else m.end()


def _a_persons(value: str) -> bool:
    """Whether a number said under an identity's name can be a person's: letters and digits enough, and not a date,
    an IP address, or a number that checks as a company's."""
    compact = re.sub(r"[\s\-./]", "", value)
    if not 6 <= len(compact) <= 30 or sum(c.isdigit() for c in compact) < 2:
        return False
    if _DATE.fullmatch(value) or _ADDRESS.fullmatch(value):
        return False
    upper = compact.upper()
    return not (
        (upper[0].isalpha() and cif.is_valid(upper))
        or uscc.is_valid(upper)
        or (upper[:2].isalpha() and vat.is_valid(upper))
    )


def identity_numbers(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, label) of each identity number in `text`."""
    if not _DIGITS.search(text):
        return
    yield from _named(text)
    for kind in _KINDS:
        for m in kind.pattern.finditer(text):
            if not kind.valid(m.group()):
                continue
            near = text[max(0, m.start() - BEFORE) : m.end() + AFTER]
            if kind.named_by is None or kind.named_by.search(near):
                yield m.start(), m.end(), NATIONAL_ID
