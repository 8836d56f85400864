"""A date a thing expires, or is valid until, is no plan of the user's (docs/SPEC.md §5, "Enrich"): "my passport
number is …, expires 2031" was stored as a plan happening in 2031. What a document, a card, a contract or a
subscription does by itself at a date is a state that holds now; the date stays the memory's (a recall "in 2031"
still finds it), but the memory points forward only when the user means to do something ("I'll renew my passport
before it expires in 2027"), which reading/mood.py tells.

The words, in the five languages: before the date ("expires", "valid until", "gültig bis", "caduca", "vence",
"valable jusqu'au", "有效期至") or after it ("läuft 2029 ab", "2030年到期").
"""

from __future__ import annotations

import re

BEFORE, AFTER = 30, 12  # characters before and after the date in which the words are looked for

_BEFORE = re.compile(
    r"(?i)(?:\b(?:expires?|expiring|expiry|expiration|exp\.|runs?\s++out|lapses?|"
    r"valid|good\s++(?:until|till|through|thru)|"
    r"läuft|abläuft|gültig|ablauf(?:datum)?|verfällt|"
    r"caduca|caducidad|vence|vencimiento|expira|v[áa]lid[oa]|"
    r"expire|expiration|valable|valide|périme|fin\s++de\s++validité)\b"
    r"|到期|过期|有效期(?:至|到)?|有效至)"
    r"[^.!?。！？;]{0,20}$"
)
_AFTER = re.compile(r"(?i)^[^.!?。！？;]{0,6}?(?:\bab\b|到期|过期|截止)")


def expiry_date(content: str, date_text: str | None) -> bool:
    """Whether `date_text`, found in `content`, is when something expires or stops being valid."""
    if not date_text:
        return False
    at = content.find(date_text)
    if at < 0:
        return False
    before = content[max(0, at - BEFORE) : at]
    after = content[at + len(date_text) : at + len(date_text) + AFTER]
    return bool(_BEFORE.search(before) or _AFTER.search(after))
