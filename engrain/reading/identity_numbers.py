"""National identity numbers, which are secrets (docs/SPEC.md §5, "Secrets"; issue 50): a US social security
number, a UK National Insurance number, a Canadian social insurance number, a German tax identification
number, a French social security number, a Spanish DNI or NIE, a Chinese resident identity card number.

Each kind is found by its shape and checked as its issuer defines it (python-stdnum: check digits, valid
areas, a birth date that exists), so that an order, tracking or phone number of the same length is kept. A
kind whose shape alone says little (nine digits, eleven digits) is taken only when words that name it stand
near it ("SSN", "social insurance", "Steuer-ID"); one whose shape and check say enough (a formatted SSN, a DNI's
letter, an 18-character Chinese number with its birth date) is taken wherever it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from stdnum import luhn
from stdnum.cn import ric
from stdnum.de import idnr
from stdnum.es import dni, nie
from stdnum.fr import nir
from stdnum.us import ssn

LABEL = "national ID number"
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
        re.compile(r"(?<![\d])[12] ?\d{2} ?\d{2} ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3} ?\d{2}(?![\d])"),
        lambda n: nir.is_valid(n.replace(" ", "")),
    ),
    _Kind(re.compile(r"(?<![A-Za-z0-9])\d{8}-?[A-Z](?![A-Za-z0-9])"), dni.is_valid),
    _Kind(re.compile(r"(?<![A-Za-z0-9])[XYZ]-?\d{7}-?[A-Z](?![A-Za-z0-9])"), nie.is_valid),
    _Kind(re.compile(r"(?<![A-Za-z0-9])\d{17}[\dXx](?![A-Za-z0-9])"), _resident_id),
)
_DIGITS = re.compile(r"\d\d")


def identity_numbers(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each national identity number in `text`."""
    if not _DIGITS.search(text):
        return
    for kind in _KINDS:
        for m in kind.pattern.finditer(text):
            if not kind.valid(m.group()):
                continue
            near = text[max(0, m.start() - BEFORE) : m.end() + AFTER]
            if kind.named_by is None or kind.named_by.search(near):
                yield m.start(), m.end()
