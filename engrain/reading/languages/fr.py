"""French: the words enrichment and ingestion look for (dates come from dateparser's French data)."""

import re

CODE = "fr"
_I = re.IGNORECASE
PLAN = re.compile(
    r"\b(?:vais|va|allons|compte|prévois|prévoyons|veux|voudrais|dois|devons|prochaine?s?|demain"
    r"|après-demain|bientôt|rappelle-moi)\b",
    _I,
)
PAST = re.compile(
    r"\b(?:j'ai|ai|as|avons|avez|ont|suis\s+allée?|étais|était|avais|hier|avant-hier|derni[eè]re?"
    r"|il\s+y\s+a)\b",
    _I,
)
FIRST_PERSON = re.compile(r"(?:\bje\b|\bj'|\bmoi\b|\bmon\b|\bma\b|\bmes\b|\bnous\b|\bnotre\b|\bnos\b)", _I)
ASKS_AHEAD = re.compile(
    r"\b(?:prévus?|prévues?|projets?|plans?|prochaine?s?|à\s+venir|agenda|rendez-vous|bientôt)\b", _I
)
RECURRING = re.compile(
    r"\b(?:chaque|tous\s+les|toutes\s+les)\s+(?:lundis?|mardis?|mercredis?|jeudis?|vendredis?|samedis?|dimanches?"
    r"|jours?|semaines?|matins?|soirs?|mois|ans|années)\b"
    r"|\ble\s+(?:lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)\s+(?:matin|soir|après-midi)\b"
    r"|\bquotidiennement\b",
    _I,
)
# A state that began then and holds now: "seit Oktober", "从十月开始", "desde octubre", "depuis octobre".
SINCE = re.compile(r"\b(?:depuis)\b", _I)
ASKS_WHEN = re.compile(r"\b(?:quand|quel\s+jour|quelle\s+date|en\s+quelle\s+année|depuis\s+quand)\b", _I)
FIRST_STEP = re.compile(r"\b(?:d'abord|premièrement|tout\s+d'abord|en\s+premier)\b", _I)
NEXT_STEP = re.compile(r"[,;.]?\s*\b(?:ensuite|puis|après|enfin|finalement|pour\s+finir)\b[,:]?\s*", _I)
IMPORTANT = re.compile(r"\b(?:important|importante|surtout\s+ne|n'oublie\s+jamais|allergique|urgent)\b", _I)
CATEGORIES = [
    ("health", re.compile(r"\b(?:médecin|dentiste|allergi\w*|médicament\w*|malade|hôpital|régime|thérapie)\b", _I)),
    (
        "relationship",
        re.compile(
            r"\b(?:femme|mari|copine|copain|partenaire|mère|père|maman|papa|sœur|soeur|frère"
            r"|fille|fils|enfants?|amie?s?|famille)\b",
            _I,
        ),
    ),
    (
        "work",
        re.compile(
            r"\b(?:travail\w*|boulot|bureau|patron\w*|collègue\w*|projet\w*|réunion|client\w*"
            r"|entreprise|carrière)\b",
            _I,
        ),
    ),
    ("location", re.compile(r"\b(?:j'habite|habite|vis|déménag\w*|ville|pays|quartier|adresse)\b", _I)),
    ("skill", re.compile(r"\b(?:apprend\w*|appris|parle|couramment|programm\w*|certifi\w*|pratique\w*)\b", _I)),
    ("preference", re.compile(r"\b(?:adore|aime|préfère|préféré\w*|favori\w*|déteste|apprécie)\b", _I)),
]
