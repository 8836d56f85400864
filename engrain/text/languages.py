"""Which language a text is in: the script decides for Chinese, Japanese and Korean, py3langid for
the rest.

Chinese chat is full of names and words in Latin letters ("我和Alice去了Starbucks"), so a text counts
as CJK by units, not by characters: each Han, kana or Hangul character is one unit and so is each
Latin word; more than half CJK units makes it CJK. Otherwise py3langid (a naive Bayes model over
byte n-grams that ships in the package, cheap a text) names the language, first among all 97 it
knows, then, when that is unsure, among the COMMON ones (short texts are often unsure between
close languages: "La semana pasada fui a Madrid con mi hermana." is Spanish at 0.62 among all and
0.92 among these). Below LANGID_CONFIDENCE both times, a short text's function words decide when they
point to one language, then the common languages' model when it leans (LEANING) on accented text, else
it is taken for English, the language of most short and ambiguous texts ("Tom: Same here", "Ok"). On the
English synthetic conversations no turn or question reaches 0.65 for another language among all (the
highest: "Mochi woke me up at 5 again today." as Nigerian Pidgin), nor 0.25 among the common ones ("Ha,
classic!" as Italian).
"""

from __future__ import annotations

import copy
import re
import threading
from typing import Any

from engrain.native import load_numpy

ENGLISH = "en"
CJK = frozenset({"zh", "ja", "ko"})
LANGID_CONFIDENCE = 0.8
# Characters of the scripts written without spaces between words (kana, Han, Hangul syllables).
CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_KANA = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff]")
_HANGUL = re.compile(r"[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]")
_ALPHABETIC_WORD = re.compile(rf"[^\W\d_{CJK_CHARS}]+")

# ISO 639-1 code → the PostgreSQL configuration (those every PostgreSQL ≥ 15 ships).
TS_CONFIGS = {
    "ar": "arabic",
    "da": "danish",
    "de": "german",
    "el": "greek",
    "en": "english",
    "es": "spanish",
    "fi": "finnish",
    "fr": "french",
    "ga": "irish",
    "hu": "hungarian",
    "id": "indonesian",
    "it": "italian",
    "lt": "lithuanian",
    "ne": "nepali",
    "nl": "dutch",
    "no": "norwegian",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sv": "swedish",
    "ta": "tamil",
    "tr": "turkish",
}
# The languages detection prefers when unsure: those with a full-text configuration of their own.
COMMON = tuple(TS_CONFIGS)

_identifiers: tuple[Any, Any] | None = None
_lock = threading.Lock()


def identifier_ready() -> bool:
    return _identifiers is not None


def load_identifier() -> tuple[Any, Any]:
    """py3langid's model over all its languages and over the COMMON ones, loaded once (about half a
    second) on the first non-CJK text."""
    global _identifiers
    with _lock:
        if _identifiers is None:
            load_numpy()  # py3langid imports it; the embedding model may be loading in another thread
            from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier

            every = LanguageIdentifier.from_modelpath(MODEL_DIR / MODEL_FILE, norm_probs=True)
            common = copy.copy(every)  # shares the model's arrays; set_languages rebinds the copy's own
            common.set_languages(COMMON)
            _identifiers = every, common
    return _identifiers


def cjk_language(text: str) -> str | None:
    """zh, ja or ko when CJK units are the majority of the text's words, else None."""
    han, kana, hangul = len(_HAN.findall(text)), len(_KANA.findall(text)), len(_HANGUL.findall(text))
    cjk = han + kana + hangul
    if cjk == 0 or cjk <= len(_ALPHABETIC_WORD.findall(text)):
        return None
    if hangul >= han + kana:
        return "ko"
    return "ja" if kana else "zh"


def has_cjk(text: str) -> bool:
    return bool(_HAN.search(text) or _KANA.search(text) or _HANGUL.search(text))


# Short texts: n-grams are unsure, but a language's own function words are telling ("Anteayer fui al
# médico." is French at 0.33 and Spanish at 0.29 by n-grams, and has "fui" and "al"). Only words no other
# of these four uses are listed ("en", "de", "la", "me", "was", "will", "so", "du", "mes", "am", "on" and
# the letters of elisions, in "I'd" as much as in "d'accord", are not).
_FUNCTION_WORDS = {
    lang: frozenset(words.split())
    for lang, words in {
        "en": "the i is and to of my we with for it this that you have had are be been at just not our your from "
        "but what do did got im",
        "de": "ich der die das und ist nicht mit ein eine einen wir im zu auf bin habe hab war mein meine meinen "
        "sich auch den dem zum vom beim nach vor wie aber sehr",
        "es": "el los las del al y nos mi mis fui fue es está estoy soy con por para una pero muy también hace "
        "tengo voy yo su sus hoy ayer vivo vive trabajo",
        "fr": "je j le les des ce et est une pour avec nous mon ma suis ai pas qui sur dans au aux il elle qu très "
        "aussi hier moi",
    }.items()
}
# Among the common languages, a text this sure of one of them and written with its letters (an accent
# English does not use) is not English: "Me gradué en 2015." is Spanish at 0.56, while "Lena cello
# orchestra" leans to Italian with no such letter and stays English.
LEANING = 0.5
_ACCENTED = re.compile(r"[àâäçéèêëîïôöùûüÿñœßáíóú¿¡]", re.IGNORECASE)


def _by_function_words(text: str) -> str | None:
    """The language with more of its function words in `text` than any other (None: no clear one)."""
    words = re.findall(r"[^\W\d_]+", text.lower())
    votes = {lang: sum(w in listed for w in words) for lang, listed in _FUNCTION_WORDS.items()}
    best = max(votes, key=lambda lang: votes[lang])
    if votes[best] >= 1 and all(votes[best] > v for lang, v in votes.items() if lang != best):
        return best
    return None


def detect(text: str) -> str:
    """The ISO 639-1 code of the text's language (English when unsure)."""
    cjk = cjk_language(text)
    if cjk is not None:
        return cjk
    if not _ALPHABETIC_WORD.search(text):
        return ENGLISH
    lang, confidence = ENGLISH, 0.0
    for identifier in load_identifier():
        lang, confidence = identifier.classify(text)
        if confidence >= LANGID_CONFIDENCE:
            return str(lang)
    voted = _by_function_words(text)
    if voted is not None:
        return voted
    return str(lang) if confidence >= LEANING and _ACCENTED.search(text) else ENGLISH
