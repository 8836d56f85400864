"""Secrets a user states in words (docs/SPEC.md §5, "Secrets"): what it is, then a word that joins it to the
value ("is", "ist", "是", ":"), then the value — "my wifi password is sunshine42", "我的密码是…", "mein Passwort
ist …" — and the codes that open a door, a gate, a lock or an alarm, told as people tell them ("the code to
the front door is 4417", "Das Zahlenschloss vom Fahrrad geht mit 4293 auf", "Pour le cadenas du vélo, c'est
1387"), in English, German, French, Spanish and Chinese. Each rule is tried only when one of its cue words is
in the text, and every pattern is bounded and possessive, so that a rule is linear in the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

# An assigned value that is code, not a secret: a call or an index (`req.header(`, `user[1]`), an attribute
# chain (`process.env.JWT_SECRET`), or a variable named like a credential (`hashed_password`, `access_token`).
_CODE = re.compile(r"[(\[]|^[A-Za-z_$][\w$]*+(?:\.[A-Za-z_$][\w$]*+)++$")
_VARIABLE = re.compile(r"[a-z_]++")
_CREDENTIAL_WORDS = ("pass", "pwd", "secret", "key", "token")
# The example value a tutorial or a template leaves in its place: "YOUR_CLIENT_SECRET", "your_jwt_token_here".
_EXAMPLE = re.compile(r"^your[_\-]|[_\-]here$|^x{4,}+$", re.IGNORECASE)
# Words of code that stand where a value would: a keyword, a constant, markup, an address.
_CODE_WORDS = frozenset(
    ["await", "new", "none", "null", "nil", "true", "false", "undefined", "function", "lambda", "async", "return"]
)
_NOT_SECRETS = re.compile(r"^(?:</?[a-z]|https?://)", re.IGNORECASE)


def code_or_example(value: str) -> bool:
    """Whether a value given to a credential's name is code that computes it, or the example a tutorial leaves
    in its place: no secret either way (issue 50: assistants' code lost `req.header('Authorization')`)."""
    lower = value.lower()
    if lower in _CODE_WORDS or (_VARIABLE.fullmatch(lower) and any(word in lower for word in _CREDENTIAL_WORDS)):
        return True
    return bool(_CODE.search(value) or _EXAMPLE.search(value) or _NOT_SECRETS.search(value))


@dataclass(frozen=True)
class _Stated:
    label: str
    pattern: re.Pattern[str]
    cues: tuple[str, ...]  # tried only when one of these is in the lowercased text (most texts have none)
    digits_only: bool = False  # a PIN or a door code is digits; a password is anything


def _qualifier(linkers: str, determiners: str) -> str:
    """ "the password *for the garage door* is …": a linking word, maybe a determiner, and up to two words
    naming what the secret opens."""
    word, gap = r"[^\s.,;:!?]{1,30}+", r"(?:\s++|(?<=')|(?<=’))"  # "de l'immeuble": an apostrophe joins too
    return rf"\s++(?:{linkers}){gap}(?:(?:{determiners}){gap})?{word}(?:\s++{word})?"


def _qualified(linkers: str, determiners: str) -> str:
    """A qualifier, if there is one."""
    return f"(?:{_qualifier(linkers, determiners)})?"


_FOR = _qualified("for|to|of|on|at", "the|my|our|your")
_DE_FOR = _qualified("fürs|für|vom|von|im|am|an|in|zum|zur|des|der", "den|die|das|dem|meine[nmrs]?|unsere[nmrs]?")
_FR_FOR = _qualified("de|du|des|pour|d'|à", "la|le|l'|les|mon|ma|mes|notre|nos")
_ES_FOR = _qualified("de|del|para|en", "la|el|los|las|mi|mis|nuestro|nuestra")
_VALUE = r"[\"'“‘«„「]?(?P<value>[^\s\"'”’»“」]{3,64}+)"  # a sentence's end is cut off it later
_QUOTED_VALUE = r"(?P<quoted>[\"“‘«„「][^\"”’»“」\n]{3,80}+[\"”’»“」])"
_DIGITS_VALUE = r"(?P<value>\d[\d \-]{2,10}\d)"
# A code typed on a keypad: digits, maybe grouped, maybe ending with a letter or the key pressed after them.
_CODE_VALUE = r"(?P<value>\d(?:[ \-]?+\d){2,9}+[A-Za-z#*]?+)(?!\w)"


def _stated(label: str, cues: str, words: str, joins: str, *, digits: bool = False) -> _Stated:
    value = _DIGITS_VALUE if digits else rf"(?:{_QUOTED_VALUE}|{_VALUE})"
    pattern = re.compile(rf"(?i)(?:{words})(?:{joins})\s*+{value}")
    return _Stated(label, pattern, tuple(cues.split()), digits)


def _opened(cues: str, locks: str, how: str) -> _Stated:
    """A code told by what it opens: a lock, a door, a gate or an alarm named in the sentence, then — within a
    few words — how the code is given ("…opens with 9710", "…, c'est 1387", "…mit dem Code 8854"), then the
    code."""
    pattern = re.compile(rf"(?i)\b(?:{locks})\b[^.!?\n]{{0,60}}?(?:{how})\s*+{_CODE_VALUE}")
    return _Stated("code", pattern, tuple(cues.split()), digits_only=True)


def _named_code(cues: str, words: str, joins: str) -> _Stated:
    """A code named as one ("the code to the front door is…", "Der Code für die Haustür ist…"), its value
    digits typed on a keypad."""
    pattern = re.compile(rf"(?i)(?:{words})(?:{joins})\s*+{_CODE_VALUE}")
    return _Stated("code", pattern, tuple(cues.split()), digits_only=True)


# What a code opens, per language (a sentence that names none of them holds no door code).
_EN_LOCKS = (
    r"(?:front\s++|back\s++|garden\s++|main\s++)?door|gate|garage|lockbox|lock\s?box|key\s?safe|key\s?box|"
    r"padlock|(?:bike|combination|door)\s++lock|locker|safe|alarm|keypad|storage\s++unit|mailbox|intercom|"
    r"buzzer|shed|vault"
)
# Codes that are no secret: the word before "code" names a public one ("zip code", "promo code"), or what
# follows it does ("the code for the discount").
_PUBLIC = "zip postal area country promo discount coupon error status course source bar qr dress tax sort"


def _not_after(words: str) -> str:
    """Lookbehinds: the match does not follow any of `words` and a space (each of fixed width)."""
    return "".join(rf"(?<!\b{w}\s)" for w in words.split())


_EN_CODE = (
    rf"\b{_not_after(_PUBLIC)}code(?!\s++(?:for|to|of|on)\s++(?:the\s++|my\s++|our\s++)?"
    r"(?:discount|offer|sale|voucher|class|course|exercise|assignment|homework|project|app|site|website|repo|error)\b)"
)


_EN_JOIN = r"(?:\s++(?:is|was|are|were|remains|stays)(?:\s++(?:still|now|just))?|\s*+[:=]|\s++-)"
_DE_JOIN = r"(?:\s++(?:ist|war|lautet|lautete|heißt)(?:\s++(?:immer\s++noch|noch|jetzt))?|\s*+[:=])"
_FR_JOIN = r"(?:\s++(?:est|était|c'est|reste)(?:\s++(?:toujours|encore))?|\s*+[:=])"
_ES_JOIN = r"(?:\s++(?:es|era|sigue\s++siendo)|\s*+[:=])"
_ZH_JOIN = r"(?:是|为|為|：|:|=)"

_DE_LOCKS = (
    r"(?:Haus|Wohnungs|Keller|Hinter|Vorder|Eingangs|Balkon)?tür|(?:Garagen|Hof|Garten|Einfahrts)?tor|Garage|"
    r"(?:Zahlen|Fahrrad|Vorhänge|Tür)?schloss|Tresor|Safe|Schließfach|Alarmanlage|Alarm|Briefkasten|"
    r"Schlüssel(?:kasten|tresor|safe)"
)
_FR_LOCKS = (
    r"cadenas|portail|porte|garage|coffre(?:-fort)?|alarme|boîte\s++(?:aux\s++lettres|à\s++clés?)|interphone|casier"
)
_ES_LOCKS = r"puerta|portal|portón|garaje|candado|caja\s++fuerte|alarma|buzón|taquilla|casillero|cerradura|trastero"
_FR_CODE_JOIN = rf"(?:{_FR_JOIN}|\s*+,\s*+c'est)"
_EN_QUALIFIER = _qualifier("for|to|of|on|at", "the|my|our|your")
_DE_QUALIFIER = _qualifier("fürs|für|vom|von|im|am|an|in|zum|zur|des|der", "den|die|das|dem|meine[nmrs]?|unsere[nmrs]?")
_FR_QUALIFIER = _qualifier("de|du|des|pour|d'|à", "la|le|l'|les|mon|ma|mes|notre|nos")
_ES_QUALIFIER = _qualifier("de|del|para|en", "la|el|los|las|mi|mis|nuestro|nuestra")

# Door, gate, lock and alarm codes (issue 50: "the code to the front door is 4417" was kept).
_CODES: tuple[_Stated, ...] = (
    _named_code("code", _EN_CODE + _EN_QUALIFIER, _EN_JOIN),
    _opened(
        "door gate garage lock box safe alarm keypad locker storage mailbox intercom buzzer shed vault",
        _EN_LOCKS,
        r"\b(?:opens?|unlocks?|open\s++it|unlock\s++it|disarms?)\s++with(?:\s++(?:the\s++)?(?:code|combination|pin))?"
        rf"|\b{_not_after(_PUBLIC)}(?:code|combination|pin|keypad)(?:{_EN_JOIN})|\b(?:punch|key|type)\s++in",
    ),
    _named_code("code", r"\bCode" + _DE_QUALIFIER, _DE_JOIN),
    _opened(
        "tür tor garage schloss tresor safe schließfach alarm briefkasten schlüssel",
        _DE_LOCKS,
        r"\bmit\s++(?:(?:dem|der|einem|meinem)\s++(?:Code|Zahlencode|PIN|Kombination)\s++)?"
        rf"|\b(?:Code|Zahlencode|PIN|Kombination)(?:{_DE_JOIN})",
    ),
    _named_code("digicode", rf"\bdigicode(?:{_FR_QUALIFIER})?", _FR_CODE_JOIN),
    _named_code(
        "code",
        r"\bcode(?!\s++(?:postal|promo|source|d'erreur|de\s++réduction|de\s++suivi|du\s++vol)\b)" + _FR_QUALIFIER,
        _FR_CODE_JOIN,
    ),
    _opened(
        "cadenas portail porte garage coffre alarme boîte interphone casier",
        _FR_LOCKS,
        rf"\s*+,\s*+c'est|\bavec\s++(?:le\s++code\s++)?|\bcode(?:{_FR_JOIN})",
    ),
    _named_code(
        "código",
        r"\bcódigo(?!\s++(?:postal|promocional|fuente|de\s++descuento|del?\s++error|de\s++seguimiento|de\s++país)\b)"
        + _ES_QUALIFIER,
        _ES_JOIN,
    ),
    _named_code("combinación", rf"\bcombinación(?:{_ES_QUALIFIER}){{0,2}}", _ES_JOIN),
    _opened(
        "puerta portal portón garaje candado caja alarma buzón taquilla casillero cerradura trastero",
        _ES_LOCKS,
        rf"\bcon\s++(?:el|la)\s++(?:código|clave|pin|combinación)\s++|\b(?:código|combinación|clave|pin)(?:{_ES_JOIN})",
    ),
)

_STATED: tuple[_Stated, ...] = (
    _stated(
        "password",
        "pass pw wifi wi-fi",
        r"\b(?:pass(?:word|phrase)s?|pw|pwd|wi-?fi(?:\s++(?:key|code))?)\b" + _FOR,
        _EN_JOIN,
    ),
    _stated(
        "PIN",
        "pin passcode code combination cvv cvc",
        r"\b(?:pin(?:\s++(?:code|number))?|passcode|combination|cvv|cvc|"
        r"(?:alarm|door|gate|garage|lock|safe|locker|access|entry|security)\s++code)\b" + _FOR,
        _EN_JOIN,
        digits=True,
    ),
    _stated(
        "credential",
        "key secret token code",
        r"\b(?:(?:api|secret|access|private|license)\s++key|secret|token|recovery\s++code)\b" + _FOR,
        _EN_JOIN,
    ),
    _stated(
        "password",
        "passw kennwort zugangsdaten",
        r"\b(?:(?:WLAN-|WiFi-|E-Mail-|Router-)?Passw(?:ort|örter)|Kennwort|Zugangsdaten)\b" + _DE_FOR,
        _DE_JOIN,
    ),
    _stated(
        "PIN",
        "pin geheimzahl code",
        r"\b(?:PIN(?:-Code|-Nummer)?|Geheimzahl|(?:Tür|Alarm|Tresor|Zugangs)code)\b" + _DE_FOR,
        _DE_JOIN,
        digits=True,
    ),
    _stated(
        "credential", "schlüssel key token", r"\b(?:API-Schlüssel|API-Key|Token|geheimer\s++Schlüssel)\b", _DE_JOIN
    ),
    _stated(
        "password",
        "mot de passe mdp",
        r"\b(?:mot\s++de\s++passe|mdp)(?:\s++(?:du\s++)?(?:wi-?fi|routeur|mail))?\b" + _FR_FOR,
        _FR_JOIN,
    ),
    _stated(
        "PIN",
        "pin code",
        r"\b(?:code\s++(?:PIN|secret|d'accès|de\s++la\s++porte|de\s++l'alarme|du\s++coffre)|PIN)\b" + _FR_FOR,
        _FR_JOIN,
        digits=True,
    ),
    _stated("credential", "clé jeton", r"\b(?:clé\s++(?:d'API|API|secrète)|jeton)\b", _FR_JOIN),
    _stated(
        "password",
        "contraseña clave",
        r"\b(?:contraseña|clave(?:\s++(?:del\s++)?wi-?fi)?)" + _ES_FOR,
        _ES_JOIN,
    ),
    _stated(
        "PIN",
        "pin código",
        r"\b(?:(?:código\s++)?PIN|código\s++(?:secreto|de\s++acceso|de\s++la\s++puerta|de\s++la\s++alarma))\b"
        + _ES_FOR,
        _ES_JOIN,
        digits=True,
    ),
    _stated("credential", "clave token", r"\b(?:clave\s++(?:de\s++)?API|token)\b", _ES_JOIN),
    _stated("password", "密码 密碼 口令", r"(?:密码|密碼|口令)", _ZH_JOIN),
    _stated("PIN", "pin 密码", r"(?:PIN码|PIN碼|支付密码|门禁密码)", _ZH_JOIN, digits=True),
    _stated("credential", "密钥 令牌 key", r"(?:API\s*+(?:密钥|key|Key)|密钥|令牌)", _ZH_JOIN),
    # "wifi密码 home90039", "保险箱密码 160814": after a space, a value of letters and digits with a digit in it.
    _Stated(
        "password",
        re.compile(r"(?:密码|密碼|口令)\s++(?=[A-Za-z!@#$%^&*._\-]*+\d)(?P<value>[A-Za-z0-9!@#$%^&*._\-]{4,64}+)"),
        ("密码", "密碼", "口令"),
    ),
    *_CODES,
)

# Words that follow "my password is" without being one: "too short", "the same as…", "expired".
NOT_A_VALUE = frozenset(
    """a an the my your his her our their this that these those it its same different too very so quite still
    now just not no never always also only wrong right correct incorrect weak strong long short easy hard simple
    new old expired changed reset saved stored written required needed case sensitive secure safe insecure
    compromised leaked forgotten lost gone here there ready set done what which why how where when something
    nothing anything everything one two three four five six seven eight nine ten twelve
    ist war nicht kein keine zu sehr noch jetzt das der die ein eine mein meine dein sein ihr unser gleich
    falsch richtig lang kurz neu alt abgelaufen geändert vergessen sicher unsicher
    est était pas trop très encore toujours le la les un une mon ma mes son sa même faux vrai court
    nouveau ancien expiré changé oublié sûr
    es era muy todavía aún ya el los las una mi mis su mismo misma igual incorrecta correcta larga
    corta nueva vieja caducada cambiada olvidada segura insegura
    是 不是 太 很 还 已经 错 对 一样 相同 忘了 过期""".split()  # noqa: SIM905 (a word list reads best as words)
)


def stated(text: str, lower: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, label) of each secret stated in `text` (`lower`: the text lowercased)."""
    for rule in _STATED:
        if not any(cue in lower for cue in rule.cues):
            continue
        for m in rule.pattern.finditer(text):
            quoted = m.groupdict().get("quoted")
            if quoted:
                start, end = m.span("quoted")
                value = quoted[1:-1].strip()
            else:
                value = m.group("value").rstrip(
                    ".,;:?)"
                )  # a sentence's punctuation ends the value ("!" may be its own)
                start = m.start("value")
                end = start + len(value)
            if not value or value.startswith(("[secret", "[contact")) or value.lower() in NOT_A_VALUE:
                continue
            if not quoted and not rule.digits_only and code_or_example(value):
                continue
            if rule.digits_only and sum(c.isdigit() for c in value) < 3:
                continue
            if rule.label == "credential" and not quoted and not (len(value) >= 8 and any(c.isdigit() for c in value)):
                continue  # "the secret is patience": a key is long and has digits
            yield start, end, rule.label
