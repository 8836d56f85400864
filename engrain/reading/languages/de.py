"""German: the words enrichment and ingestion look for (dates come from dateparser's German data)."""

import re

CODE = "de"
_I = re.IGNORECASE
PLAN = re.compile(
    r"\b(?:werde|wirst|wird|werden|plane|planen|will|wollen|möchte|möchten|vorhaben|hab(?:e|en)?\s+vor|muss|müssen"
    r"|soll|nächste[nmrs]?|morgen|übermorgen|bald|erinnere\s+mich)\b",
    _I,
)
# "habe" is the past only as the perfect's auxiliary, with a participle later in the clause ("Ich habe am
# Donnerstag einen Termin" is the present); "früher" and "damals" tell of how things used to be.
PAST = re.compile(
    r"\b(?:(?:habe|hab|hast|hat|haben)\b(?=[^.,;!?]*\b(?:\w*ge\w+(?:t|en)|\w+iert)\b)|hatte|hatten|war|waren"
    r"|(?:bin|sind|ist)\b(?=[^.,;!?]*\b\w*ge\w+en\b)|gestern|vorgestern|letzte[nmrs]?|vor\s+\d+|damals|früher)\b",
    _I,
)
FIRST_PERSON = re.compile(r"\b(?:ich|mein\w*|mir|mich|wir|uns|unser\w*)\b", _I)
ASKS_AHEAD = re.compile(
    r"\b(?:vorhaben|vor\s+mir|geplant|plane?|pläne|termine?|steht\b[^.?!]*\ban|anstehend\w*|nächste[nrms]?|bald|demnächst)\b",
    _I,
)
RECURRING = re.compile(
    r"\bjede[nrms]?\s+(?:montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|tag|morgen|abend|woche"
    r"|wochenende|monat|jahr)\b|\b(?:montags|dienstags|mittwochs|donnerstags|freitags|samstags|sonntags|morgens"
    r"|abends|täglich|wöchentlich|monatlich)\b"
    r"|\b(?:ein|zwei|drei)mal\s+(?:im|pro|die|in\s+der|am)\s+(?:tag|woche|monat|jahr)\b",
    _I,
)
# What was booked is ahead, whatever the tense ("Ich habe für Freitag einen Tisch reserviert").
BOOKED = re.compile(r"\b(?:reserviert|gebucht|vereinbart|ausgemacht|karten|tickets)\b", _I)
# A bare month name is a date after these ("im Oktober", "seit Mai"), not alone ("Mai ist mein Lieblingsmonat").
MONTH_LEAD = re.compile(
    r"\b(?:im|in|seit|bis|ab|vom|zum|anfang|ende|mitte|letzten|nächsten|diesen|kommenden|vergangenen)\s+$", _I
)
NUMBERS = {"ein": 1, "eine": 1, "einen": 1, "einem": 1, "einer": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5,
           "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10, "elf": 11, "zwölf": 12}  # fmt: skip
# A year after a word that makes it one ("en 2015", "seit 2019"): its first day.
YEAR = re.compile(r"\b(?:im\s+jahre?|in|seit|bis|ab|von)\s+(?P<y>(?:19|20)\d\d)\b(?![./-]\d)", _I)
UNITS = re.compile(r"tag|tage|tagen|woche|wochen|monat|monate|monaten|jahr|jahre|jahren", _I)
_SEASONS = r"(?P<s>frühling|sommer|herbst|winter)"
_COUNT = r"(?P<n>\d{1,3}|" + "|".join(NUMBERS) + ")"
GLOSSARY = [
    (re.compile(r"\b(?:dieses|diesem|kommendes|kommenden)\s+wochenende\b", _I), "this weekend"),
    (re.compile(r"\b(?:nächstes|nächsten)\s+wochenende\b", _I), "next weekend"),
    (re.compile(r"\b(?:letztes|letzten|vergangenes|vergangenen)\s+wochenende\b", _I), "last weekend"),
    (re.compile(r"\bam\s+wochenende\b", _I), "the weekend"),
    (re.compile(rf"\b(?:letzte[nmrs]?|vergangene[nmrs]?)\s+{_SEASONS}\b", _I), r"last \g<s>"),
    (re.compile(rf"\b(?:nächste[nmrs]?|kommende[nmrs]?)\s+{_SEASONS}\b", _I), r"next \g<s>"),
    (re.compile(rf"\b(?:diese[nmrs]?)\s+{_SEASONS}\b", _I), r"this \g<s>"),
    (re.compile(rf"\bim\s+{_SEASONS}\s+(?P<y>(?:19|20)\d\d)\b", _I), r"\g<s> \g<y>"),
    (re.compile(rf"\b{_COUNT}\s+jahre?n?\s+vor\s+(?P<y>(?:19|20)\d\d)\b", _I), r"\g<n> years before \g<y>"),
    (re.compile(rf"\b{_COUNT}\s+jahre?n?\s+nach\s+(?P<y>(?:19|20)\d\d)\b", _I), r"\g<n> years after \g<y>"),
]
WORDS = {"frühling": "spring", "sommer": "summer", "herbst": "autumn", "winter": "winter"}
# A state that began then and holds now: "seit Oktober", "从十月开始", "desde octubre", "depuis octobre".
SINCE = re.compile(r"\b(?:seit|seitdem)\b", _I)
ASKS_WHEN = re.compile(r"\b(?:wann|seit\s+wann|an\s+welchem\s+tag|in\s+welchem\s+jahr|welches\s+datum)\b", _I)
FIRST_STEP = re.compile(r"\b(?:zuerst|erstens|als\s+erstes)\b", _I)
NEXT_STEP = re.compile(r"[,;.]?\s*\b(?:dann|danach|anschließend|schließlich|zuletzt|zweitens|drittens)\b[,:]?\s*", _I)
IMPORTANT = re.compile(r"\b(?:wichtig|unbedingt|niemals\s+vergessen|nicht\s+vergessen|allergisch|notfall)\w*", _I)
CATEGORIES = [
    (
        "health",
        re.compile(
            r"\b(?:arzt|ärztin|zahnarzt|allergi\w*|medikament\w*|krank|krankenhaus|diät"
            r"|therapie)\b",
            _I,
        ),
    ),
    (
        "relationship",
        re.compile(
            r"\b(?:frau|mann|partner\w*|freundin|freund|mutter|vater|mama|papa|schwester|bruder"
            r"|tochter|sohn|kinder?|familie)\b",
            _I,
        ),
    ),
    (
        "work",
        re.compile(
            r"\b(?:arbeit\w*|job|büro|chef\w*|kolleg\w*|projekt\w*|meeting|kunde\w*|firma"
            r"|beruf\w*)\b",
            _I,
        ),
    ),
    ("location", re.compile(r"\b(?:wohne|wohnen|ziehe\s+\w*|umgezogen|umzug|stadt|land|heimat\w*|adresse)\b", _I)),
    ("skill", re.compile(r"\b(?:lerne\w*|spreche\w*|fließend|programmier\w*|zertifi\w*|übe\w*)\b", _I)),
    ("preference", re.compile(r"\b(?:liebe|lieben|mag|mögen|bevorzuge\w*|lieblings\w*|hasse\w*|gerne?)\b", _I)),
]

# Single-valued facts about now (reading/slots.py): where one lives, works, as what; relationship status.
_REL = r"mein(?:e)?\s+(?P<rel>schwester|bruder|mutter|vater|frau|mann|freundin|freund|tochter|sohn|partnerin|partner)"
_NAME = r"(?P<value>(?-i:[A-ZÄÖÜ][\w.-]*(?:\s+[A-ZÄÖÜ][\w.-]*)*))"
SLOTS = [
    # Who does the user's hair (issue 52): "Die Haare schneidet mir jetzt Jana".
    (
        "hairdresser",
        re.compile(rf"\b(?:die\s+)?haare\s+schneidet\s+mir\s+(?:jetzt\s+|inzwischen\s+|nun\s+)?{_NAME}", _I),
    ),
    ("hairdresser", re.compile(rf"{_NAME}\s+schneidet\s+mir\s+(?:jetzt\s+|inzwischen\s+)?die\s+haare\b", _I)),
    (
        "home",
        re.compile(
            rf"\b(?:ich|{_REL})\s+(?:wohne|wohnt|lebe|lebt)\s+(?:jetzt\s+|inzwischen\s+|seit\s+\w+\s+)?in\s+{_NAME}", _I
        ),
    ),
    (
        "home",
        re.compile(
            rf"\b(?:ich\s+bin|{_REL}\s+ist)\s+(?:jetzt\s+|gerade\s+|kürzlich\s+)?nach\s+{_NAME}\s+(?:um)?gezogen", _I
        ),
    ),
    (
        "employer",
        re.compile(
            rf"\b(?:ich|{_REL})\s+(?:arbeite|arbeitet)\s+(?:jetzt\s+|inzwischen\s+|seit\s+\w+\s+)?bei\s+{_NAME}", _I
        ),
    ),
    ("job", re.compile(r"\bich\s+arbeite\s+(?:jetzt\s+|inzwischen\s+)?als\s+(?P<value>\w+)", _I)),
    (
        "relationship",
        re.compile(r"\bich\s+bin\s+(?:jetzt\s+|inzwischen\s+)?(?P<value>single|verheiratet|verlobt|geschieden)\b", _I),
    ),
    ("origin", re.compile(rf"\bich\s+(?:komme|stamme)\s+(?:ursprünglich\s+)?aus\s+{_NAME}", _I)),
    ("origin", re.compile(rf"\bich\s+bin\s+in\s+{_NAME}\s+(?:geboren|aufgewachsen)", _I)),
    ("name", re.compile(r"\b(?:ich\s+heiße|mein\s+name\s+ist)\s+(?P<value>(?-i:[A-ZÄÖÜ][\w-]+))", _I)),
    ("person", re.compile(rf"\b{_REL}\s+heißt\s+(?P<value>(?-i:[A-ZÄÖÜ][\w-]+))", _I)),
]
NOT_NOW = re.compile(
    r"\b(?:nicht|nie|kein\w*|früher|damals|werde|will|möchte|wollte|wenn|falls|vielleicht)\b|\?\s*$", _I
)

# Replies to the other speaker (ingestion without a model keeps statements about the user only).
REPLY = re.compile(
    r"^(?:ich\s+(?:stimme\s+\w+\s+zu|finde\s+(?:das|es)\s+\w+|freue\s+mich\s+(?:für|mit)|verstehe|wette|glaube\s+dir)"
    r"|das\s+klingt)",
    _I,
)
ADDRESSED = re.compile(r"\b(?:du|dir|dich|dein\w*)\b", _I)
MINE = re.compile(r"\b(?:mein\w*|unser\w*)\b", _I)

# The user speaking of a single-valued fact without a value for now ("ich habe gekündigt"): slots.slot_topic.
SLOT_TOPICS = [
    ("home", re.compile(r"\b(?:ich|wir)\b[^.?!]{0,30}?\b(?:wohn\w*|leb\w*|zieh\w*|umgezogen)\b", _I)),
    ("employer", re.compile(r"\b(?:ich)\b[^.?!]{0,30}?\b(?:arbeit\w*\s+(?:bei|für)|gekündigt|entlassen)\b", _I)),
    ("relationship", re.compile(r"\b(?:ich|wir)\b[^.?!]{0,30}?\b(?:verheiratet|geschieden|getrennt|single)\b", _I)),
]

SLOT_ENDS = [
    ("employer", re.compile(r"\bich\s+(?:habe\s+(?:\w+\s+){0,3}gekündigt|wurde\s+entlassen)", _I)),
    ("relationship", re.compile(r"\bwir\s+haben\s+uns\s+getrennt\b", _I)),
]

# Questions about a single-valued fact (reading/slots.asked_slot).
ASKS_SLOT = [
    ("home", re.compile(r"\bwo\s+(?:wohne|lebe)\s+ich\b|\bmeine\s+adresse\b", _I)),
    ("employer", re.compile(r"\bwo\s+arbeite\s+ich\b|\bbei\s+wem\s+arbeite\s+ich\b", _I)),
    ("job", re.compile(r"\bals\s+was\s+arbeite\s+ich\b|\bwas\s+ist\s+mein\s+beruf\b", _I)),
]

# Any attribute named with its one value (reading/slots.py): "Mein neues Handy ist ein Pixel 8", "Meine Bank ist
# jetzt die DKB", "Ich habe ein neues Handy, ein Pixel 8". Nouns are capitalised: the attribute is one noun.
_NOUN = r"(?-i:(?:[A-ZÄÖÜ0-9]|[a-z][A-Z])[\w.&+-]*)"
_VALUE = rf"(?P<value>(?:(?:der|die|das|den|ein|eine|einen)\s+)?{_NOUN}(?:\s+{_NOUN})*)"
_VALUE_END = r"(?=\s*(?:$|[.,;!?)]|\s(?:und|aber|seit|weil|in|am|an|bei|mit)\b))"
_NEW = r"(?:(?:neue[rsnm]?|jetzige[rsnm]?|aktuelle[rsnm]?)\s+)?"
NAMED = [
    re.compile(
        rf"\b(?:mein|meine|unser|unsere)\s+{_NEW}(?P<attr>(?-i:[A-ZÄÖÜ][\wäöüß-]+))\s+ist\s+"
        rf"(?:jetzt\s+|nun\s+|inzwischen\s+|mittlerweile\s+|seit\s+\w+\s+)?{_VALUE}{_VALUE_END}",
        _I,
    ),
    re.compile(
        rf"\bich\s+(?:habe|hab)\s+(?:jetzt\s+)?(?:mir\s+)?(?:ein|eine|einen)\s+neue[nsr]?\s+(?P<attr>(?-i:[A-ZÄÖÜ][\wäöüß-]+))"
        rf"(?:\s+(?:gekauft|bekommen|geholt))?\s*[,:–-]\s*{_VALUE}{_VALUE_END}",
        _I,
    ),
    # A change said by the attribute (issue 52): "Ich habe den Zahnarzt gewechselt, ich gehe jetzt zu Dr. Lindqvist".
    re.compile(
        r"\bich\s+(?:habe|hab)\s+(?:den|die|das|meinen|meine|mein)\s+(?P<attr>(?-i:[A-ZÄÖÜ][\wäöüß-]+))\s+gewechselt"
        rf"\s*[,;]?\s*(?:und\s+)?(?:ich\s+)?(?:gehe|bin)\s+(?:jetzt\s+|nun\s+)?(?:zu|bei)\s+(?:der\s+|dem\s+)?"
        rf"{_VALUE}{_VALUE_END}",
        _I,
    ),
]
ATTRIBUTES = {
    "handy": "phone",
    "telefon": "phone",
    "smartphone": "phone",
    "auto": "car",
    "wagen": "car",
    "fitnessstudio": "gym",
    "studio": "gym",
    "arzt": "doctor",
    "ärztin": "doctor",
    "hausarzt": "doctor",
    "hausärztin": "doctor",
    "zahnarzt": "dentist",
    "zahnärztin": "dentist",
    "friseur": "hairdresser",
    "friseurin": "hairdresser",
    "bank": "bank",
    "lieblingsfarbe": "favourite colour",
    "lieblingsessen": "favourite food",
    "lieblingsverein": "favourite team",
    "lieblingsmannschaft": "favourite team",
    "chef": "boss",
    "chefin": "boss",
    "laptop": "laptop",
    "rechner": "laptop",
    "computer": "laptop",
    "browser": "browser",
    "adresse": "address",
    "schwester": "sister",
    "bruder": "brother",
    "mutter": "mother",
    "vater": "father",
    "frau": "wife",
    "mann": "husband",
    "tochter": "daughter",
    "sohn": "son",
}
# Reported speech, a hypothetical, a request or a dream before the statement (slots.framed).
FRAME = re.compile(
    r"\b(?:stell\s+dir\s+vor|angenommen|wenn|falls|traum\w*|träum\w*|geschichte|roman|(?!ich\b)\w+\s+"
    r"(?:sagt|sagte|meint|meinte|denkt|dachte|glaubt|glaubte|behauptet)|schreib\w*|kannst\s+du|könntest\s+du|bitte)\b",
    _I,
)
# Questions that name an attribute: "Was ist mein Handy?", "Welches Auto habe ich?".
ASKS_NAMED = [
    re.compile(r"\b(?:was|wer|welche[rsn]?)\s+ist\s+(?:mein|meine)\s+(?P<attr>(?-i:[A-ZÄÖÜ][\wäöüß-]+))", _I),
    re.compile(r"\bwelche[rsn]?\s+(?P<attr>(?-i:[A-ZÄÖÜ][\wäöüß-]+))\s+(?:habe|fahre|nutze|benutze)\s+ich\b", _I),
]

# Leaving a value by name (reading/leaving.py, issue 52): "Ich gehe nicht mehr zu Dr. Weber", "von McFit zu Urban
# Sports gewechselt", "das iPhone durch ein Pixel ersetzt", "McFit gekündigt", "statt X" (with "jetzt").
_OLD = r"(?P<old>(?-i:[A-ZÄÖÜ][\wäöüß'’.&+-]*|[a-z][A-Z][\w.+-]*)(?:[ -](?-i:[A-ZÄÖÜ0-9][\wäöüß'’.&+-]*))*)"
_SWITCHED_TO = r"(?-i:[A-ZÄÖÜ0-9][\wäöüß'’.&+-]*)(?:[ -](?-i:[A-ZÄÖÜ0-9][\wäöüß'’.&+-]*))*"
LEAVING = [
    # The old value named in the reason for a switch: "Ich bin zu Vodafone gewechselt, die Telekom war zu teuer".
    re.compile(
        rf"\b(?:zu|zur|zum)\s+(?:der\s+|dem\s+)?{_SWITCHED_TO}\s+gewechselt\s*[,;]\s*(?:weil\s+|denn\s+)?"
        rf"(?:die\s+|der\s+|das\s+)?{_OLD}\s+(?:war|ist|hat|wurde|wollte)\b",
        _I,
    ),
    re.compile(
        r"\bich\s+(?:gehe|bin|trainiere|arbeite|nutze|benutze|kaufe)\s+(?:jetzt\s+)?nicht\s+mehr\s+"
        rf"(?:zu|bei|in|im|zum|zur|mit)\s+(?:der\s+|dem\s+|den\s+)?{_OLD}",
        _I,
    ),
    re.compile(rf"\bvon\s+(?:der\s+|dem\s+)?{_OLD}\s+(?:zu|zur|zum|auf)\s+[^.!?]+?gewechselt\b", _I),
    re.compile(rf"\b(?:das|den|die|mein\w*)\s+{_OLD}\s+durch\s+[^.!?]+?ersetzt\b", _I),
    re.compile(rf"\b(?:habe|hab)\s+(?:jetzt\s+)?(?:die\s+|das\s+|den\s+|mein\w*\s+)?{_OLD}\s+gekündigt\b", _I),
    # "meine Mitgliedschaft bei McFit gekündigt", "den Vertrag bei O2 gekündigt".
    re.compile(
        rf"\b(?:Mitgliedschaft|Vertrag|Abo|Konto)\s+(?:bei|im|in)\s+(?:der\s+|dem\s+)?{_OLD}\s+(?:\w+\s+)?gekündigt\b",
        _I,
    ),
    # "Den Golf habe ich verkauft", "ich habe meinen Golf verkauft".
    re.compile(rf"\b(?:den|die|das|meinen|meine|mein)\s+{_OLD}\s+(?:habe|hab)\s+ich\s+(?:jetzt\s+)?verkauft\b", _I),
    re.compile(rf"\bich\s+(?:habe|hab)\s+(?:den|die|das|meinen|meine|mein)\s+{_OLD}\s+verkauft\b", _I),
]
INSTEAD = re.compile(
    rf"\b(?:statt|anstatt|anstelle)\s+(?:von\s+|bei\s+|in\s+|im\s+|zu\s+|zum\s+|zur\s+)?(?:der\s+|dem\s+|des\s+)?{_OLD}",
    _I,
)
NOW_WORDS = re.compile(r"\b(?:jetzt|inzwischen|mittlerweile|nun|seitdem)\b", _I)
OTHERS = re.compile(
    r"\b(?:mein\w*|unser\w*)\s+(?:schwester|bruder|mutter|vater|freund\w*|frau|mann|kolleg\w*|chef\w*|tochter|sohn"
    r"|nachbar\w*)\b|\b(?:er|sie)\s+(?!ich\b)",
    _I,
)

# What says the user holds a value (reading/leaving.holds): "Ich trainiere bei McFit", "Mein Zahnarzt ist Dr. Weber".
HOLDS = r"\b(?:gehe|bin|trainiere|nutze|benutze|arbeite|wohne|fahre|ist|sind|habe)\b"

# A change said by the new value alone (reading/changes.py): a word of change or of now, what makes it no change
# of the one value (an addition, an occasion, a thought), and the words for what a value is for beyond ATTRIBUTES
# (in English, as ATTRIBUTES names it).
CHANGED = re.compile(
    r"\b(?:jetzt|inzwischen|mittlerweile|nun|seit|seitdem|neue[nmrs]?|neu|gewechselt|wechsel\w*|umgestiegen"
    r"|stattdessen|statt|gekündigt|angemeldet|umgezogen|verlegt|übertragen|portiert|mitgenommen)\b",
    _I,
)
ASIDE = re.compile(
    r"\b(?:auch|zusätzlich|nebenbei|manchmal|ab\s+und\s+zu|heute|gestern|überlege\w*|eventuell|probiere\w*)\b", _I
)
DOMAINS = {
    "training": "gym",
    "trainiere": "gym",
    "sport": "gym",
    "gym": "gym",
    "praxis": "doctor",
    "dr": "doctor",
    "zähne": "dentist",
    "zahnarztpraxis": "dentist",
    "haare": "hairdresser",
    "salon": "hairdresser",
    "konto": "bank",
    "girokonto": "bank",
    "gehaltskonto": "bank",
    "tagesgeldkonto": "bank",
    "sparkonto": "bank",
    "bankkonto": "bank",
    "kreditkarte": "bank",
    "karte": "bank",
    "tierarzt": "vet",
    "versichert": "insurance",
    "versicherung": "insurance",
    "krankenkasse": "insurance",
    "arbeit": "employer",
    "arbeite": "employer",
    "job": "employer",
    "firma": "employer",
    "büro": "employer",
    "gehalt": "employer",
    "arbeitgeber": "employer",
    "schule": "school",
    "kita": "school",
    "kindergarten": "school",
    "internet": "broadband",
    "wlan": "broadband",
    "glasfaser": "broadband",
    "router": "broadband",
    "strom": "energy supplier",
    "stromanbieter": "energy supplier",
    "energie": "energy supplier",
    "netz": "carrier",
    "tarif": "carrier",
    "mobilfunk": "carrier",
    "handyvertrag": "carrier",
    "mobilfunkvertrag": "carrier",
    "handytarif": "carrier",
    "rufnummer": "carrier",
    "portiert": "carrier",
    "physiotherapeut": "physio",
    "physiotherapeutin": "physio",
    "therapeut": "therapist",
    "therapeutin": "therapist",
    "steuerberater": "accountant",
    "steuerberaterin": "accountant",
    "kaffee": "coffee place",
    "café": "coffee place",
    "fahre": "car",
}
# Someone named who does something of the user's (reading/changes.py): "Jana schneidet mir die Haare", "Die Haare
# schneidet mir Jana".
_DOES = r"(?:schneidet|frisiert|behandelt)\s+mir"
DOES_MINE = (
    re.compile(rf"^\s*(?P<v>{_SWITCHED_TO})\s+{_DOES}\s", _I),
    re.compile(rf"^\s*(?:\w+\s+){{1,2}}?{_DOES}\s+(?:(?:der|die)\s+)?(?P<v>{_SWITCHED_TO})", _I),
)
# A place of work said by no word for it: "Seit April bin ich bei BMW", "Ich bin Ingenieurin bei Siemens".
WORKPLACE = re.compile(r"\bbin\s+(?:ich\s+)?(?:[\wäöüß]+\s+){0,2}?bei\s+(?:der\s+|dem\s+|den\s+)?(?-i:[A-ZÄÖÜ])", _I)
# A value's own ending, after it: "Dr. Schulze ist in Rente", "der Salon hat zugemacht".
DEPARTED = re.compile(
    r"\s+(?:ist\s+(?:jetzt\s+)?(?:in\s+Rente|im\s+Ruhestand|weggezogen)|hat\s+(?:\w+\s+)?(?:aufgehört|zugemacht|geschlossen))\b",
    _I,
)
FOR_SOMEONE = re.compile(r"\bfür\s+$", _I)
