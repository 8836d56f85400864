"""French: the words enrichment and ingestion look for (dates come from dateparser's French data)."""

import re

CODE = "fr"
_I = re.IGNORECASE
# "Je vais" is a plan before a verb ("je vais peindre"), the present before a place ("je vais à la salle Basic-Fit",
# "je vais chez le docteur Leroy": where one goes, issue 52); "je compte partir" is one, "mon compte" (an account)
# is not.
PLAN = re.compile(
    r"\b(?:(?:vais|va|allons)(?!\s+(?:à|au|aux|chez|en|dans|sur)\b)|(?:je|on)\s+compte|comptons|prévois|prévoyons|veux|voudrais|dois"
    r"|devons|prochaine?s?|demain|après-demain|bientôt|rappelle-moi)\b",
    _I,
)
# "ai/avons" and "suis/sommes" are the past only before a participle ("j'ai acheté", "nous sommes mariés":
# "j'ai rendez-vous" is the present); the imperfect ("j'habitais", "je courais") and "avant", "autrefois"
# tell of how things were.
_PARTICIPLE = r"\w+(?:é|ée|és|ées|i|ie|is|ies|it|u|ue|us|ues|ert|eint|ait)"
PAST = re.compile(
    rf"(?:\b(?:ai|as|a|avons|avez|ont)\s+(?:\w+\s+){{0,2}}?{_PARTICIPLE}\b"
    rf"|\b(?:suis|es|est|sommes|êtes|sont)\s+{_PARTICIPLE}\b"
    r"|\bj'\w+ais\b|\bje\s+(?!vais\b|fais\b|sais\b|plais\b|tais\b)\w+ais\b|\bnous\s+\w+ions\b"
    r"|\b(?:étais|était|avais|hier|avant-hier|derni[eè]re?|il\s+y\s+a|autrefois|avant)\b)",
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
    r"|\bquotidiennement\b|\b(?:une|deux|trois)\s+fois\s+par\s+(?:jour|semaine|mois|an)\b"
    r"|^\s*(?:le|les)\s+(?:lundis?|mardis?|mercredis?|jeudis?|vendredis?|samedis?|dimanches?)\s*,",
    _I,
)
# What was booked is ahead, whatever the tense ("J'ai réservé une table pour vendredi").
BOOKED = re.compile(r"\b(?:réservée?s?|pris\s+(?:un\s+)?rendez-vous|billets|places)\b", _I)
# A bare month name is a date after these ("en mai", "depuis octobre"), not alone ("Mai est mon mois préféré").
MONTH_LEAD = re.compile(r"(?:\b(?:en|depuis|jusqu'en|début|fin|mi|ce\s+mois\s+de|au\s+mois\s+de)\s+|\bd')$", _I)
NUMBERS = {"un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "six": 6, "sept": 7, "huit": 8,
           "neuf": 9, "dix": 10, "onze": 11, "douze": 12}  # fmt: skip
# A year after a word that makes it one ("en 2015", "seit 2019"): its first day.
YEAR = re.compile(r"(?:\ben(?:\s+l'an)?|\bdepuis|\bjusqu'en|\bdès)\s+(?P<y>(?:19|20)\d\d)\b(?![./-]\d)", _I)
UNITS = re.compile(r"jour|jours|semaine|semaines|mois|an|ans|année|années", _I)
_SEASONS = r"(?P<s>printemps|été|automne|hiver)"
_COUNT = r"(?P<n>\d{1,3}|" + "|".join(NUMBERS) + ")"
GLOSSARY = [
    (re.compile(r"\bce\s+week-?end\b", _I), "this weekend"),
    (re.compile(r"\b(?:le\s+)?week-?end\s+dernier\b", _I), "last weekend"),
    (re.compile(r"\b(?:le\s+)?week-?end\s+prochain\b", _I), "next weekend"),
    (re.compile(rf"(?:\bl'|\ble\s+|\bla\s+)?{_SEASONS}\s+derni(?:er|ère)\b", _I), r"last \g<s>"),
    (re.compile(rf"(?:\bau\s+|\ble\s+|\bl')?{_SEASONS}\s+prochain\b", _I), r"next \g<s>"),
    (re.compile(rf"\bcet?\s+{_SEASONS}\b", _I), r"this \g<s>"),
    (re.compile(rf"\b{_COUNT}\s+ans\s+avant\s+(?P<y>(?:19|20)\d\d)\b", _I), r"\g<n> years before \g<y>"),
    (re.compile(rf"\b{_COUNT}\s+ans\s+après\s+(?P<y>(?:19|20)\d\d)\b", _I), r"\g<n> years after \g<y>"),
]
WORDS = {"printemps": "spring", "été": "summer", "automne": "autumn", "hiver": "winter"}
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

# Single-valued facts about now (reading/slots.py): where one lives, works, as what; relationship status.
_REL = r"(?:ma|mon)\s+(?P<rel>sœur|soeur|frère|mère|père|femme|mari|copine|copain|compagne|compagnon|fille|fils)"
_NAME = r"(?P<value>(?-i:[A-ZÀÂÉÈÊÎÔÛÇ][\w.-]*(?:\s+(?:de\s+)?[A-ZÀÂÉÈÊÎÔÛÇ][\w.-]*)*))"
SLOTS = [
    # Who does the user's hair (issue 52): "C'est Julie du salon Ciseaux d'Or qui me coupe les cheveux".
    (
        "hairdresser",
        re.compile(
            rf"(?:c['’]est\s+)?{_NAME}\s+(?:[^.,;!?]{{0,40}}?\s+)?qui\s+me\s+(?:coupe\s+les\s+cheveux|coiffe)\b", _I
        ),
    ),
    (
        "home",
        re.compile(
            rf"(?:\bj'habite|\bje\s+vis|\bj'ai\s+déménagé|\bje\s+me\s+suis\s+installée?)\s+(?:maintenant\s+|désormais\s+)?(?:à|a|en|au)\s+{_NAME}",
            _I,
        ),
    ),
    ("home", re.compile(rf"\b{_REL}\s+(?:habite|vit|a\s+déménagé)\s+(?:maintenant\s+)?(?:à|a|en|au)\s+{_NAME}", _I)),
    ("employer", re.compile(rf"\bje\s+travaille\s+(?:maintenant\s+|désormais\s+)?(?:chez|pour)\s+{_NAME}", _I)),
    ("employer", re.compile(rf"\b{_REL}\s+travaille\s+(?:maintenant\s+)?(?:chez|pour)\s+{_NAME}", _I)),
    ("job", re.compile(r"\bje\s+travaille\s+(?:maintenant\s+)?comme\s+(?P<value>\w+)", _I)),
    (
        "relationship",
        re.compile(r"\bje\s+suis\s+(?:maintenant\s+)?(?P<value>célibataire|mariée?|fiancée?|divorcée?)\b", _I),
    ),
    (
        "origin",
        re.compile(
            rf"\b(?:je\s+viens\s+d[e']|je\s+suis\s+originaire\s+d[e']|je\s+suis\s+née?\s+(?:à|en|au)|"
            rf"j'ai\s+grandi\s+(?:à|en|au))\s*{_NAME}",
            _I,
        ),
    ),
    ("name", re.compile(r"\b(?:je\s+m'appelle|mon\s+nom\s+est)\s+(?P<value>(?-i:[A-ZÀÂÉÈÊÎÔÛÇ][\w-]+))", _I)),
    ("person", re.compile(rf"\b{_REL}\s+s'appelle\s+(?P<value>(?-i:[A-ZÀÂÉÈÊÎÔÛÇ][\w-]+))", _I)),
]
NOT_NOW = re.compile(
    r"\b(?:ne|n'|pas|jamais|avant|autrefois|habitais|vivais|travaillais|vais(?!\s+(?:à|au|aux|chez|en|dans|sur)\b)|veux|voudrais|si|quand)\b|\?\s*$",
    _I,
)

# Replies to the other speaker (ingestion without a model keeps statements about the user only).
REPLY = re.compile(
    r"^(?:je\s+(?:suis\s+(?:d'accord|(?:tellement\s+|très\s+|si\s+)?(?:contente?|heureux|heureuse)\s+pour)"
    r"|(?:te\s+)?comprends|parie|pense\s+aussi|crois\s+aussi)|ça\s+a\s+l'air)",
    _I,
)
ADDRESSED = re.compile(r"\b(?:tu|te|toi|ton|ta|tes)\b|\bt'", _I)
MINE = re.compile(r"\b(?:mon|ma|mes|notre|nos)\b", _I)

# The user speaking of a single-valued fact without a value for now ("j'ai quitté mon travail"): slots.slot_topic.
SLOT_TOPICS = [
    ("home", re.compile(r"\b(?:habit\w*|vi(?:s|vais|vait)|déménag\w*)\b", _I)),
    (
        "employer",
        re.compile(r"\b(?:travaill\w*\s+(?:chez|pour)|quitté\s+mon\s+(?:travail|poste)|démissionné|licencié)", _I),
    ),
    ("relationship", re.compile(r"\b(?:mariée?|divorcée?|séparée?|célibataire|rompu)\b", _I)),
]

SLOT_ENDS = [
    ("employer", re.compile(r"\bj'ai\s+(?:quitté\s+mon\s+(?:travail|poste)|démissionné|été\s+licenciée?)", _I)),
    ("relationship", re.compile(r"\b(?:nous\s+avons|on\s+a)\s+rompu\b|\bnous\s+nous\s+sommes\s+séparés\b", _I)),
]

# Questions about a single-valued fact (reading/slots.asked_slot).
ASKS_SLOT = [
    ("home", re.compile(r"\bo[ùu]\s+(?:est-ce\s+que\s+)?(?:j'habite|je\s+vis|habite-je)\b|\bmon\s+adresse\b", _I)),
    ("employer", re.compile(r"\bo[ùu]\s+(?:est-ce\s+que\s+)?je\s+travaille\b|\bpour\s+qui\s+je\s+travaille\b", _I)),
    ("job", re.compile(r"\bquel\s+est\s+mon\s+(?:m[ée]tier|travail|poste)\b", _I)),
]

# Any attribute named with its one value (reading/slots.py): "Ma nouvelle voiture est une Peugeot 208", "Ma
# banque est désormais Boursorama", "J'ai un nouveau téléphone, un Pixel 8", "Ma couleur préférée est le vert".
_VALUE = (
    r"(?P<value>(?:(?:le|la|les|un|une)\s+|l['’])?(?:(?:docteur|docteure|dr\.?)\s+)?"
    r"(?-i:(?:[A-ZÀÂÉÈÊÎÔÛÇ0-9]|[a-z][A-Z])[\w.&+-]*)(?:\s+(?:de\s+)?(?-i:(?:[A-ZÀÂÉÈÊÎÔÛÇ0-9]|[a-z][A-Z])[\w.&+-]*))*)"
)
_FAVOURITE_VALUE = r"(?P<fvalue>(?:(?:le|la|les)\s+|l['’])?[\wàâçéèêëîïôûù]+)"
_VALUE_END = r"(?=\s*(?:$|[.,;!?)]|\s(?:et|mais|depuis|parce|à|au|avec|chez|maintenant)\b))"
_WORD = r"[a-zàâçéèêëîïôûùœ]+"
_ATTR = rf"(?P<attr>{_WORD}(?:\s+(?:de|d')\s*{_WORD}|\s+(?P<fav>préférée?|favorite?|portable))?)"
NAMED = [
    re.compile(
        rf"(?<!\bde\s)\b(?:mon|ma|notre)\s+(?:(?:nouveau|nouvelle|nouvel)\s+)?{_ATTR}\s*,?\s+(?:actuel(?:le)?\s+)?"
        rf"(?:est|c['’]est)\s+(?:maintenant\s+|désormais\s+|aujourd'hui\s+)?"
        rf"(?:{_VALUE}|(?(fav){_FAVOURITE_VALUE}|(?!))){_VALUE_END}",
        _I,
    ),
    re.compile(
        rf"\bj'ai\s+(?:acheté\s+|maintenant\s+)?(?:un|une)\s+(?:nouveau|nouvelle|nouvel)\s+(?P<attr>{_WORD})"
        rf"\s*[,:]\s*{_VALUE}{_VALUE_END}",
        _I,
    ),
    # A change said by the attribute (issue 52): "J'ai changé de dentiste, maintenant je vais chez le docteur Leroy".
    re.compile(
        rf"\bj['’]ai\s+changé\s+de\s+(?P<attr>{_WORD})\s*[,;]?\s*(?:et\s+)?(?:maintenant\s+|désormais\s+)?"
        rf"(?:je\s+vais|je\s+vois|je\s+suis)\s+(?:maintenant\s+)?(?:chez\s+|à\s+|avec\s+)?{_VALUE}{_VALUE_END}",
        _I,
    ),
]
ATTRIBUTES = {
    "téléphone": "phone",
    "telephone": "phone",
    "portable": "phone",
    "smartphone": "phone",
    "voiture": "car",
    "salle de sport": "gym",
    "salle de gym": "gym",
    "médecin": "doctor",
    "docteur": "doctor",
    "dentiste": "dentist",
    "coiffeur": "hairdresser",
    "coiffeuse": "hairdresser",
    "banque": "bank",
    "ordinateur": "laptop",
    "ordinateur portable": "laptop",
    "chef": "boss",
    "patron": "boss",
    "patronne": "boss",
    "navigateur": "browser",
    "adresse": "address",
    "couleur préférée": "favourite colour",
    "couleur favorite": "favourite colour",
    "équipe préférée": "favourite team",
    "équipe favorite": "favourite team",
    "plat préféré": "favourite food",
    "sœur": "sister",
    "soeur": "sister",
    "frère": "brother",
    "mère": "mother",
    "père": "father",
    "femme": "wife",
    "mari": "husband",
    "fille": "daughter",
    "fils": "son",
    "ami": "friend",
    "amie": "friend",
}
# Reported speech, a hypothetical, a request or a dream before the statement (slots.framed).
FRAME = re.compile(
    r"\b(?:imagine|imaginons|suppose|supposons|si|rêv\w*|histoire|roman|(?!je\b)\w+\s+(?:dit|disait|croit|"
    r"croient|pense|pensent|trouve)|écris|peux-tu|pourrais-tu|s'il\s+te\s+plaît)\b",
    _I,
)
# Questions that name an attribute: "Quelle est ma banque ?", "Quelle voiture ai-je ?".
ASKS_NAMED = [
    re.compile(rf"\b(?:quel(?:le)?|qui)\s+est\s+(?:mon|ma)\s+{_ATTR}", _I),
    re.compile(rf"\bquel(?:le)?\s+(?P<attr>{_WORD})\s+(?:ai-je|j'ai|est-ce\s+que\s+j'ai)\b", _I),
]

# Leaving a value by name (reading/leaving.py, issue 52): "Je ne vais plus chez le docteur Bernard", "J'ai quitté
# Basic-Fit", "J'ai remplacé mon iPhone par un Pixel", "passé de X à Y", "à la place de X" (with "maintenant").
_OLD = (
    r"(?P<old>(?-i:[A-ZÀÂÉÈÊÎÔÛÇ][\wàâéèêëîïôûùç'’.&+-]*|[a-z][A-Z][\w.+-]*)"
    r"(?:[ -](?-i:[A-ZÀÂÉÈÊÎÔÛÇ0-9][\wàâéèêëîïôûùç'’.&+-]*))*)"
)
_SWITCHED_TO = r"(?-i:[A-ZÀÂÉÈÊÎÔÛÇ0-9][\wàâéèêëîïôûùç'’.&+-]*)(?:[ -](?-i:[A-ZÀÂÉÈÊÎÔÛÇ0-9][\wàâéèêëîïôûùç'’.&+-]*))*"
LEAVING = [
    # The old value named in the reason for a switch: "Je suis passé chez Free, Orange était trop cher".
    re.compile(
        rf"\b(?:je\s+suis\s+)?passée?\s+(?:chez|à)\s+{_SWITCHED_TO}\s*[,;]\s*(?:car\s+|parce\s+que\s+)?"
        rf"(?:le\s+|la\s+|l['’])?{_OLD}\s+(?:était|est|coûtait|avait|devenait)\b",
        _I,
    ),
    re.compile(
        r"\b(?:je|j['’])\s*ne\s+(?:vais|suis|travaille|vois|consulte|utilise|m'entraîne)\s+plus\s+"
        rf"(?:chez\s+|à\s+la\s+|à\s+l['’]|au\s+|à\s+|avec\s+)?(?:le\s+|la\s+)?(?:docteure?\s+|dr\.?\s+)?{_OLD}",
        _I,
    ),
    re.compile(
        rf"\bj['’]ai\s+(?:quitté|résilié|lâché|abandonné|laissé\s+tomber|vendu)\s+(?:le\s+|la\s+|l['’]|mon\s+|ma\s+)?{_OLD}",
        _I,
    ),
    # "J'ai fermé mon compte à la Société Générale", "…et fermé celui de la Société Générale".
    re.compile(
        rf"\b(?:j['’]ai\s+)?(?:fermé|clôturé|résilié)\s+(?:mon\s+compte|mon\s+abonnement|mon\s+forfait|celui|celle)\s+"
        rf"(?:de\s+|à\s+|chez\s+)(?:la\s+|le\s+|l['’])?{_OLD}",
        _I,
    ),
    re.compile(rf"\b(?:j['’]ai\s+)?remplacé\s+(?:mon\s+|ma\s+|le\s+|la\s+|l['’])?{_OLD}\s+par\b", _I),
    re.compile(rf"\b(?:je\s+suis\s+)?passée?\s+de\s+(?:la\s+|le\s+|l['’])?{_OLD}\s+(?:à|chez)\b", _I),
]
INSTEAD = re.compile(rf"\b(?:à\s+la\s+place|au\s+lieu)\s+(?:de\s+|du\s+|d['’])(?:la\s+|l['’])?{_OLD}", _I)
NOW_WORDS = re.compile(r"\b(?:maintenant|désormais|dorénavant|plus)\b", _I)
OTHERS = re.compile(
    r"\b(?:ma|mon|mes|notre|nos)\s+(?:sœur|soeur|frère|mère|père|ami\w*|copine|copain|femme|mari|chef\w*|fille|fils"
    r"|voisin\w*|collègue\w*)\b|\b(?:il|elle|ils|elles)\b",
    _I,
)

# What says the user holds a value (reading/leaving.holds): "Je vais à la salle Basic-Fit", "Ma banque, c'est…".
HOLDS = r"\b(?:vais|utilise|suis|m['’]entraîne|fais|travaille|habite|conduis|roule|est|c['’]est|ai|achète)\b"

# A change said by the new value alone (reading/changes.py): a word of change or of now, what makes it no change
# of the one value (an addition, an occasion, a thought), and the words for what a value is for beyond ATTRIBUTES
# (in English, as ATTRIBUTES names it).
CHANGED = re.compile(
    r"\b(?:maintenant|désormais|dorénavant|depuis|nouveau|nouvel|nouvelle|changé|change|passée?|quitté|plutôt"
    r"|inscrite?|rejoint|résilié|fermé)\b|\bà\s+la\s+place\b",
    _I,
)
ASIDE = re.compile(
    r"\b(?:aussi|également|parfois|de\s+temps\s+en\s+temps|aujourd['’]hui|hier|ce\s+matin|ce\s+soir|hésite|pense"
    r"|peut-être|envisage)\b",
    _I,
)
DOMAINS = {
    "sport": "gym",
    "salle": "gym",
    "entraîne": "gym",
    "généraliste": "doctor",
    "cabinet": "doctor",
    "consulte": "doctor",
    "dents": "dentist",
    "cheveux": "hairdresser",
    "compte": "bank",
    "carte": "bank",
    "livret": "bank",
    "opérateur": "carrier",
    "forfait": "carrier",
    "portabilité": "carrier",
    "réseau": "carrier",
    "travail": "employer",
    "travaille": "employer",
    "boulot": "employer",
    "bureau": "employer",
    "entreprise": "employer",
    "boîte": "employer",
    "salaire": "employer",
    "école": "school",
    "crèche": "school",
    "collège": "school",
    "lycée": "school",
    "box": "broadband",
    "internet": "broadband",
    "fibre": "broadband",
    "électricité": "energy supplier",
    "énergie": "energy supplier",
    "fournisseur": "energy supplier",
    "assurance": "insurance",
    "mutuelle": "insurance",
    "kiné": "physio",
    "kinésithérapeute": "physio",
    "psy": "therapist",
    "thérapeute": "therapist",
    "vétérinaire": "vet",
    "véto": "vet",
    "comptable": "accountant",
    "roule": "car",
    "conduis": "car",
    "café": "coffee place",
}
# Someone named who does something of the user's (reading/changes.py): "C'est Julien qui me coupe les cheveux",
# "Julien me coupe les cheveux".
DOES_MINE = (
    re.compile(
        rf"^\s*(?:C['’]est\s+)?(?P<v>{_SWITCHED_TO})\s+(?:qui\s+)?(?:me|m['’]|nous)\s*"
        r"(?:coupe|coiffe|fait|soigne|suit|s['’]occupe)\b",
        _I,
    ),
)
WORKPLACE = re.compile(r"(?!)")  # "Je suis chez X" is as often a carrier or a bank: not read without a word for it
# A value's own ending, after it: "Le docteur Lambert est parti à la retraite", "le salon a fermé".
DEPARTED = re.compile(
    r"\s+(?:est\s+partie?|a\s+pris\s+sa\s+retraite|est\s+(?:à\s+la|en)\s+retraite|a\s+déménagé|a\s+fermé)\b", _I
)
FOR_SOMEONE = re.compile(r"\bpour\s+$", _I)
