"""Spanish: the words enrichment and ingestion look for (dates come from dateparser's Spanish data)."""

import re

CODE = "es"
_I = re.IGNORECASE
PLAN = re.compile(
    r"\b(?:voy\s+a|vamos\s+a|va\s+a|planeo|pienso|quiero|tengo\s+que|debo|próxim[oa]s?|que\s+viene"
    r"|mañana|pasado\s+mañana|recuérdame)\b",
    _I,
)
PAST = re.compile(
    r"\b(?:fui|fue|fuimos|estuve|estaba|hice|tuve|he|has|ha|hemos|había|ayer|anteayer|pasad[oa]"
    r"|hace\s+\w+)\b",
    _I,
)
FIRST_PERSON = re.compile(r"\b(?:yo|mi|mis|me|nosotros|nosotras|nuestr[oa]s?|soy|estoy|tengo|voy|vivo|trabajo)\b", _I)
ASKS_AHEAD = re.compile(
    r"\b(?:planes?|planead[oa]s?|pendientes?|próxim[oa]s?|proxim[oa]s?|agenda|citas?|qué\s+(?:me\s+)?toca|viene[ns]?)\b",
    _I,
)
RECURRING = re.compile(
    r"\b(?:tod[oa]s\s+l[oa]s|cada)\s+(?:lunes|martes|miércoles|miercoles|jueves|viernes|sábados?|sabados?"
    r"|domingos?|días|dias|día|dia|semanas?|mañanas|noches|tardes|mes(?:es)?|años?)\b"
    r"|\blos\s+(?:lunes|martes|miércoles|jueves|viernes|sábados|domingos)\b|\b(?:diariamente|semanalmente)\b",
    _I,
)
# A state that began then and holds now: "seit Oktober", "从十月开始", "desde octubre", "depuis octobre".
SINCE = re.compile(r"\b(?:desde)\b", _I)
ASKS_WHEN = re.compile(r"(?:\b|¿)(?:cuándo|cuando|qué\s+día|en\s+qué\s+año|qué\s+fecha)\b", _I)
FIRST_STEP = re.compile(r"\b(?:primero|en\s+primer\s+lugar)\b", _I)
NEXT_STEP = re.compile(r"[,;.]?\s*\b(?:luego|después|entonces|finalmente|por\s+último|al\s+final)\b[,:]?\s*", _I)
IMPORTANT = re.compile(r"\b(?:importante|nunca\s+olvides|no\s+olvides|alérgic[oa]|urgente)\b", _I)
CATEGORIES = [
    (
        "health",
        re.compile(
            r"\b(?:médic[oa]|dentista|alergi\w*|alérgic[oa]|medicamento\w*|enferm[oa]|hospital"
            r"|dieta|terapia)\b",
            _I,
        ),
    ),
    (
        "relationship",
        re.compile(
            r"\b(?:esposa|esposo|marido|mujer|novi[oa]|pareja|madre|padre|mamá|papá|herman[oa]s?"
            r"|hij[oa]s?|amig[oa]s?|familia)\b",
            _I,
        ),
    ),
    (
        "work",
        re.compile(
            r"\b(?:trabaj\w*|empleo|oficina|jefe|jefa|colega\w*|proyecto\w*|reunión|cliente\w*"
            r"|empresa|carrera)\b",
            _I,
        ),
    ),
    ("location", re.compile(r"\b(?:vivo|vivimos|me\s+mudo|me\s+mudé|mudanza|ciudad|país|barrio|dirección)\b", _I)),
    ("skill", re.compile(r"\b(?:aprend\w*|hablo|habla|fluido|programa\w*|certificad\w*|practic\w*)\b", _I)),
    ("preference", re.compile(r"\b(?:me\s+encanta\w*|me\s+gusta\w*|prefiero|favorit[oa]|odio|detesto|disfruto)\b", _I)),
]
