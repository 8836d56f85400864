"""German: the words enrichment and ingestion look for (dates come from dateparser's German data)."""

import re

CODE = "de"
_I = re.IGNORECASE
PLAN = re.compile(
    r"\b(?:werde|wirst|wird|werden|plane|planen|will|wollen|möchte|möchten|vorhaben|vor,|muss|müssen"
    r"|soll|nächste[nmrs]?|morgen|übermorgen|bald|erinnere\s+mich)\b",
    _I,
)
PAST = re.compile(
    r"\b(?:habe|hast|hat|haben|hatte|hatten|war|waren|bin\s+\w+\s+ge\w+|gestern|vorgestern|letzte[nmrs]?"
    r"|vor\s+\d+|damals)\b",
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
    r"|abends|täglich|wöchentlich|monatlich)\b",
    _I,
)
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
