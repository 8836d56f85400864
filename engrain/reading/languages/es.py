"""Spanish: the words enrichment and ingestion look for (dates come from dateparser's Spanish data)."""

import re

CODE = "es"
_I = re.IGNORECASE
PLAN = re.compile(
    r"\b(?:voy\s+a|vamos\s+a|va\s+a|planeo|pienso|quiero|tengo\s+que|debo|próxim[oa]s?|que\s+viene"
    r"|mañana|pasado\s+mañana|recuérdame)\b",
    _I,
)
# "he/ha" is the past only before a participle ("he comprado"); the first person of the preterite ends in
# -é/-í ("empecé", "discutí") and the imperfect in -aba/-ía ("trabajaba", "vivía"); "antes" is how things were.
PAST = re.compile(
    r"\b(?:fui|fue|fuimos|estuve|estaba|hice|tuve|había|tuvimos|estuvimos|hicimos|pusimos|dijimos|vinimos|pudimos|quisimos|ayer|anteayer|pasad[oa]|hace\s+\d+|hace\s+(?:un|una|dos"
    r"|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|unos|unas|mucho|poco)\b|antes"
    r"|(?:he|has|ha|hemos|han)\s+\w+(?:ado|ada|ados|adas|ido|ida|idos|idas|isto|echo|ito|uesto)"
    r"|(?!(?:café|bebé|aquí|allí|ahí|así|mamá|papá|sofá)\b)\w{3,}[éí]"
    r"|\w+(?:aba|abas|ábamos|aban)|(?:viv|corr|ten|hac|quer|sab|pod|com|escrib|le|sal|deb|sent|ped|dorm|sol)ía(?:s|mos|n)?)\b",
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
    r"|\blos\s+(?:lunes|martes|miércoles|jueves|viernes|sábados|domingos)\b|\b(?:diariamente|semanalmente)\b"
    r"|\b(?:una|dos|tres)\s+veces?\s+(?:al|por)\s+(?:día|semana|mes|año)\b",
    _I,
)
# What was booked is ahead, whatever the tense ("Reservé una mesa para el viernes").
BOOKED = re.compile(r"\b(?:reservé|reservamos|reservado|pedí\s+cita|entradas|boletos|billetes)\b", _I)
# A bare month name is a date after these ("en mayo", "desde octubre"), not alone ("Mayo es mi mes favorito").
MONTH_LEAD = re.compile(
    r"\b(?:en|de|desde|hasta|para|este|próximo|pasado|a\s+(?:principios|finales|mediados)\s+de)\s+$", _I
)
NUMBERS = {"un": 1, "una": 1, "uno": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7,
           "ocho": 8, "nueve": 9, "diez": 10, "once": 11, "doce": 12}  # fmt: skip
# A year after a word that makes it one ("en 2015", "seit 2019"): its first day.
YEAR = re.compile(r"\b(?:en(?:\s+el\s+año)?|desde|hasta|del)\s+(?P<y>(?:19|20)\d\d)\b(?![./-]\d)", _I)
UNITS = re.compile(r"día|días|dia|dias|semana|semanas|mes|meses|año|años", _I)
_SEASONS = r"(?P<s>primavera|verano|otoño|invierno)"
_COUNT = r"(?P<n>\d{1,3}|" + "|".join(NUMBERS) + ")"
GLOSSARY = [
    (re.compile(r"\beste\s+fin\s+de\s+semana\b", _I), "this weekend"),
    (re.compile(r"\bel\s+fin\s+de\s+semana\s+pasado\b|\bel\s+pasado\s+fin\s+de\s+semana\b", _I), "last weekend"),
    (
        re.compile(r"\bel\s+próximo\s+fin\s+de\s+semana\b|\bel\s+fin\s+de\s+semana\s+que\s+viene\b", _I),
        "next weekend",
    ),
    (re.compile(rf"\b(?:el|la)\s+{_SEASONS}\s+pasad[oa]\b", _I), r"last \g<s>"),
    (re.compile(rf"\b(?:el|la)\s+próxim[oa]\s+{_SEASONS}\b", _I), r"next \g<s>"),
    (re.compile(rf"\b(?:el|la)\s+{_SEASONS}\s+que\s+viene\b", _I), r"next \g<s>"),
    (re.compile(rf"\best[ea]\s+{_SEASONS}\b", _I), r"this \g<s>"),
    (re.compile(r"\bel\s+mes\s+que\s+viene\b", _I), "next month"),
    (re.compile(r"\bla\s+semana\s+que\s+viene\b", _I), "next week"),
    (re.compile(r"\bel\s+año\s+que\s+viene\b", _I), "next year"),
    (re.compile(rf"\b{_COUNT}\s+años?\s+antes\s+de\s+(?P<y>(?:19|20)\d\d)\b", _I), r"\g<n> years before \g<y>"),
    (re.compile(rf"\b{_COUNT}\s+años?\s+después\s+de\s+(?P<y>(?:19|20)\d\d)\b", _I), r"\g<n> years after \g<y>"),
]
WORDS = {"primavera": "spring", "verano": "summer", "otoño": "autumn", "invierno": "winter"}
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

# Single-valued facts about now (reading/slots.py): where one lives, works, as what; relationship status.
_REL = r"mi\s+(?P<rel>hermana|hermano|madre|padre|esposa|esposo|mujer|marido|novia|novio|pareja|hija|hijo)"
_NAME = r"(?P<value>(?-i:[A-ZÁÉÍÓÚÑ][\w.-]*(?:\s+(?:de\s+)?[A-ZÁÉÍÓÚÑ][\w.-]*)*))"
SLOTS = [
    # Who does the user's hair (issue 52): "Ahora me corta el pelo Lucía".
    ("hairdresser", re.compile(rf"\bme\s+corta\s+el\s+pelo\s+{_NAME}", _I)),
    ("hairdresser", re.compile(rf"{_NAME}\s+me\s+corta\s+el\s+pelo\b", _I)),
    (
        "home",
        re.compile(
            rf"(?:^|\b(?:yo|ahora|ya)\s+|[,.]\s*)(?:ahora\s+)?(?:vivo|me\s+mudé|me\s+he\s+mudado|me\s+acabo\s+de\s+mudar)\s+(?:ahora\s+)?(?:en|a)\s+{_NAME}",
            _I,
        ),
    ),
    (
        "home",
        re.compile(
            rf"\b{_REL}\s+(?:ahora\s+)?(?:vive|se\s+mudó|se\s+ha\s+mudado)\s+(?:ahora\s+)?(?:en|a)\s+{_NAME}", _I
        ),
    ),
    (
        "employer",
        re.compile(rf"(?:^|\b(?:yo|ahora|ya)\s+|[,.]\s*)(?:ahora\s+)?trabajo\s+(?:ahora\s+)?(?:en|para)\s+{_NAME}", _I),
    ),
    ("employer", re.compile(rf"\b{_REL}\s+(?:ahora\s+)?trabaja\s+(?:ahora\s+)?(?:en|para)\s+{_NAME}", _I)),
    ("job", re.compile(r"(?:^|\b(?:yo|ahora|ya)\s+)(?:ahora\s+)?trabajo\s+(?:ahora\s+)?como\s+(?P<value>\w+)", _I)),
    (
        "relationship",
        re.compile(r"\bestoy\s+(?:ahora\s+)?(?P<value>casad[oa]|solter[oa]|divorciad[oa]|comprometid[oa])\b", _I),
    ),
    ("origin", re.compile(rf"\b(?:soy\s+(?:originari[oa]\s+)?de|nac[íi]\s+en|crec[íi]\s+en|vengo\s+de)\s+{_NAME}", _I)),
    ("name", re.compile(r"\b(?:me\s+llamo|mi\s+nombre\s+es)\s+(?P<value>(?-i:[A-ZÁÉÍÓÚÑ][\w-]+))", _I)),
    ("person", re.compile(rf"\b{_REL}\s+se\s+llama\s+(?P<value>(?-i:[A-ZÁÉÍÓÚÑ][\w-]+))", _I)),
]
# "Voy a" is a plan before a verb ("voy a mudarme"), not before a place or a person ("voy a la doctora Molina").
NOT_NOW = re.compile(
    r"\b(?:no|nunca|antes|vivía|trabajaba|voy\s+a\s+\w+(?:ar|er|ir)(?:me|te|se|lo|la)?|quiero|quisiera|si|cuando"
    r"|quizás|tal\s+vez)\b|\?\s*$",
    _I,
)

# Replies to the other speaker (ingestion without a model keeps statements about the user only).
REPLY = re.compile(
    r"^(?:(?:yo\s+)?(?:estoy\s+de\s+acuerdo|me\s+alegro|te\s+entiendo|lo\s+entiendo|apuesto|"
    r"qu[ée]\s+(?:bien|bonito|genial)|me\s+encanta\s+(?:eso|esa\s+idea)))",
    _I,
)
ADDRESSED = re.compile(r"\b(?:tú|te|ti|tu|tus|contigo)\b", _I)
MINE = re.compile(r"\b(?:mi|mis|nuestr[oa]s?)\b", _I)

# The user speaking of a single-valued fact without a value for now ("dejé mi trabajo"): slots.slot_topic.
SLOT_TOPICS = [
    ("home", re.compile(r"\b(?:viv\w*|mud\w*)\b", _I)),
    ("employer", re.compile(r"\b(?:trabaj\w*\s+(?:en|para)|renunci\w*|dej[ée]\s+mi\s+trabajo|me\s+despidieron)\b", _I)),
    ("relationship", re.compile(r"\b(?:casad[oa]|divorciad[oa]|separad[oa]|solter[oa]|rompimos)\b", _I)),
]

SLOT_ENDS = [
    ("employer", re.compile(r"\b(?:renuncié|dejé\s+mi\s+trabajo|me\s+despidieron)\b", _I)),
    ("relationship", re.compile(r"\b(?:rompimos|nos\s+separamos|me\s+divorcié|nos\s+divorciamos)\b", _I)),
]

# Questions about a single-valued fact (reading/slots.asked_slot).
ASKS_SLOT = [
    ("home", re.compile(r"\bd[óo]nde\s+vivo\b|\bmi\s+direcci[óo]n\b", _I)),
    ("employer", re.compile(r"\bd[óo]nde\s+trabajo\b|\bpara\s+qui[ée]n\s+trabajo\b", _I)),
    ("job", re.compile(r"\bde\s+qu[ée]\s+trabajo\b|\bcu[áa]l\s+es\s+mi\s+(?:trabajo|profesi[óo]n)\b", _I)),
]

# Any attribute named with its one value (reading/slots.py): "Mi nuevo coche es un Toyota Corolla", "Mi banco
# ahora es el BBVA", "Tengo un móvil nuevo, un Xiaomi 14", "Mi color favorito es el verde".
_VALUE = (
    r"(?P<value>(?:(?:el|la|los|las|un|una)\s+)?(?:(?:doctora?|dra?\.)\s+)?(?-i:(?:[A-ZÁÉÍÓÚÑ0-9]|[a-z][A-Z])[\w.&+-]*)"
    r"(?:\s+(?:de\s+)?(?-i:(?:[A-ZÁÉÍÓÚÑ0-9]|[a-z][A-Z])[\w.&+-]*))*)"
)
_FAVOURITE_VALUE = r"(?P<fvalue>(?:(?:el|la|los|las)\s+)?[\wáéíóúñ]+)"
_VALUE_END = r"(?=\s*(?:$|[.,;!?)]|\s(?:y|pero|desde|porque|en|con|ahora)\b))"
_ATTR = r"(?P<attr>[a-záéíóúñ]+(?:\s+(?P<fav>favorit[oa]|preferid[oa]))?)"
NAMED = [
    re.compile(
        rf"(?<!\bde\s)\b(?:mi|nuestr[oa])\s+(?:(?:nuev[oa]|actual)\s+)?{_ATTR}\s+(?:(?:nuev[oa]|actual)\s+)?"
        rf"(?:ahora\s+)?es\s+(?:ahora\s+)?(?:{_VALUE}|(?(fav){_FAVOURITE_VALUE}|(?!))){_VALUE_END}",
        _I,
    ),
    re.compile(
        rf"\b(?:tengo|compré|me\s+compré|me\s+he\s+comprado)\s+(?:un|una)\s+(?:nuev[oa]\s+)?(?P<attr>[a-záéíóúñ]+)"
        rf"(?:\s+nuev[oa])?\s*[,:]\s*{_VALUE}{_VALUE_END}",
        _I,
    ),
    # A change said by the attribute (issue 52): "Cambié de dentista, ahora voy a la doctora Molina".
    re.compile(
        r"\b(?:cambié|me\s+cambié)\s+de\s+(?P<attr>[a-záéíóúñ]+)\s*[,;]?\s*(?:y\s+)?(?:ahora\s+)?"
        rf"(?:voy\s+(?:a\s+|al\s+)?|veo\s+a\s+|uso\s+|estoy\s+con\s+)(?:ahora\s+)?{_VALUE}{_VALUE_END}",
        _I,
    ),
]
ATTRIBUTES = {
    "móvil": "phone",
    "movil": "phone",
    "teléfono": "phone",
    "celular": "phone",
    "coche": "car",
    "carro": "car",
    "auto": "car",
    "gimnasio": "gym",
    "gym": "gym",
    "médico": "doctor",
    "médica": "doctor",
    "doctor": "doctor",
    "dentista": "dentist",
    "peluquero": "hairdresser",
    "peluquera": "hairdresser",
    "banco": "bank",
    "portátil": "laptop",
    "ordenador": "laptop",
    "computadora": "laptop",
    "jefe": "boss",
    "jefa": "boss",
    "navegador": "browser",
    "dirección": "address",
    "color favorito": "favourite colour",
    "color preferido": "favourite colour",
    "equipo favorito": "favourite team",
    "equipo preferido": "favourite team",
    "comida favorita": "favourite food",
    "hermana": "sister",
    "hermano": "brother",
    "madre": "mother",
    "padre": "father",
    "esposa": "wife",
    "mujer": "wife",
    "esposo": "husband",
    "marido": "husband",
    "hija": "daughter",
    "hijo": "son",
    "amigo": "friend",
    "amiga": "friend",
}
# Reported speech, a hypothetical, a request or a dream before the statement (slots.framed).
FRAME = re.compile(
    r"\b(?:imagina|imaginemos|supón|supongamos|si|sueñ\w*|soñ\w*|historia|novela|(?!yo\b)\w+\s+(?:dice|dijo|cree|"
    r"creen|piensa|piensan|opina)|escribe|puedes|podrías|por\s+favor)\b",
    _I,
)
# Questions that name an attribute: "¿Cuál es mi banco?", "¿Qué coche tengo?".
ASKS_NAMED = [
    re.compile(rf"\b(?:cu[áa]l|qu[ée]|qui[ée]n)\s+es\s+mi\s+{_ATTR}", _I),
    re.compile(r"\bqu[ée]\s+(?P<attr>[a-záéíóúñ]+)\s+(?:tengo|uso|conduzco)\b", _I),
]

# Leaving a value by name (reading/leaving.py, issue 52): "Ya no voy al doctor Pérez", "Dejé BodyFit", "Sustituí el
# iPhone por un Xiaomi", "me pasé de X a Y", "en lugar de X" (with "ahora").
_OLD = r"(?P<old>(?-i:[A-ZÁÉÍÓÚÑ][\wáéíóúñü'’.&+-]*|[a-z][A-Z][\w.+-]*)(?:[ -](?-i:[A-ZÁÉÍÓÚÑ0-9][\wáéíóúñü'’.&+-]*))*)"
_DOCTOR = r"(?:(?:el|la)\s+)?(?:doctora?|dra?\.)\s+"
_SWITCHED_TO = r"(?-i:[A-ZÁÉÍÓÚÑ0-9][\wáéíóúñü'’.&+-]*)(?:[ -](?-i:[A-ZÁÉÍÓÚÑ0-9][\wáéíóúñü'’.&+-]*))*"
LEAVING = [
    # The old value named in the reason for a switch: "Me cambié a Orange porque Movistar subió la tarifa".
    re.compile(
        rf"\bme\s+(?:cambié|pasé)\s+a\s+(?:el\s+|la\s+)?{_SWITCHED_TO}\s*[,;]?\s*(?:porque|ya\s+que|pues)\s+"
        rf"(?:el\s+|la\s+)?{_OLD}\s+(?:subió|era|es|cobraba|tenía|me)\b",
        _I,
    ),
    re.compile(
        r"\bya\s+no\s+(?:voy|vamos|uso|veo|trabajo|entreno|compro)\s+"
        rf"(?:a\s+la\s+|al\s+|a\s+|en\s+(?:el\s+|la\s+)?|con\s+)?(?:{_DOCTOR})?{_OLD}",
        _I,
    ),
    re.compile(
        rf"\b(?:dejé|dejamos|abandoné|cancelé|cambié|sustituí|reemplacé|vendí|vendimos)\s+(?:el\s+|la\s+|mi\s+)?{_OLD}",
        _I,
    ),
    re.compile(rf"\bme\s+(?:cambié|pasé)\s+de\s+(?:el\s+|la\s+)?{_OLD}\s+a\b", _I),
    # "Me di de baja en Dreamfit", "me borré del Altafit".
    re.compile(rf"\bme\s+(?:di|he\s+dado)\s+de\s+baja\s+(?:en|de)\s+(?:el\s+|la\s+)?{_OLD}", _I),
    re.compile(rf"\bme\s+(?:borré|desapunté)\s+(?:de|del)\s+(?:el\s+|la\s+)?{_OLD}", _I),
]
INSTEAD = re.compile(rf"\ben\s+(?:lugar|vez)\s+de\s+(?:el\s+|la\s+)?{_OLD}", _I)
NOW_WORDS = re.compile(r"\b(?:ahora|ya no|actualmente|desde entonces)\b", _I)
OTHERS = re.compile(
    r"\b(?:mi|mis|nuestr\w+)\s+(?:hermana|hermano|madre|padre|amig\w+|mujer|marido|novi\w+|jef\w+|hij\w+"
    r"|vecin\w+|compañer\w+)\b|\b(?:él|ella|ellos|ellas)\b",
    _I,
)

# What says the user holds a value (reading/leaving.holds): "Voy al gimnasio BodyFit", "Mi banco es el Santander".
HOLDS = r"\b(?:voy|uso|estoy|entreno|trabajo|vivo|conduzco|es|son|tengo|compro)\b"

# A change said by the new value alone (reading/changes.py): a word of change or of now, what makes it no change
# of the one value (an addition, an occasion, a thought), and the words for what a value is for beyond ATTRIBUTES
# (in English, as ATTRIBUTES names it).
CHANGED = re.compile(
    r"\b(?:ahora|ya\s+no|desde|nuevo|nueva|cambié|cambiado|cambiamos|pasé|pasamos|dejé|apunté|actualmente|porté"
    r"|portabilidad"
    r"|últimamente)\b|\ben\s+(?:vez|lugar)\s+de\b",
    _I,
)
ASIDE = re.compile(
    r"\b(?:también|además|a\s+veces|de\s+vez\s+en\s+cuando|hoy|ayer|esta\s+mañana|esta\s+noche|pienso|pensando"
    r"|quizás|quizá|tal\s+vez)\b",
    _I,
)
DOMAINS = {
    "entrenar": "gym",
    "entreno": "gym",
    "doctora": "doctor",
    "consulta": "doctor",
    "dientes": "dentist",
    "peluquería": "hairdresser",
    "pelo": "hairdresser",
    "cuenta": "bank",
    "tarjeta": "bank",
    "nómina": "bank",
    "operador": "carrier",
    "operadora": "carrier",
    "porté": "carrier",
    "portabilidad": "carrier",
    "tarifa": "carrier",
    "trabajo": "employer",
    "trabajar": "employer",
    "empresa": "employer",
    "oficina": "employer",
    "sueldo": "employer",
    "salario": "employer",
    "curro": "employer",
    "colegio": "school",
    "escuela": "school",
    "guardería": "school",
    "instituto": "school",
    "internet": "broadband",
    "fibra": "broadband",
    "wifi": "broadband",
    "luz": "energy supplier",
    "electricidad": "energy supplier",
    "seguro": "insurance",
    "mutua": "insurance",
    "fisio": "physio",
    "fisioterapeuta": "physio",
    "psicólogo": "therapist",
    "psicóloga": "therapist",
    "terapeuta": "therapist",
    "veterinario": "vet",
    "gestor": "accountant",
    "gestoría": "accountant",
    "café": "coffee place",
}
# Someone named who does something of the user's (reading/changes.py): "Lucía me corta el pelo", "Me corta el pelo
# Lucía", "Me lleva las cuentas Pedro".
_DOES = r"(?:corta|peina|lleva|hace|atiende|trata)"
DOES_MINE = (
    re.compile(rf"^\s*(?P<v>{_SWITCHED_TO})\s+(?:me|nos)\s+{_DOES}\b", _I),
    re.compile(rf"^\s*(?:me|nos)\s+{_DOES}\s+(?:[\wáéíóúñ]+\s+){{1,3}}?(?P<v>{_SWITCHED_TO})", _I),
)
WORKPLACE = re.compile(r"(?!)")  # "Estoy en X" is as often a gym or a town: not read without a word for it
# A value's own ending, after it: "Lucía cerró la peluquería", "el doctor Gil se jubiló".
DEPARTED = re.compile(
    r"\s+(?:se\s+jubiló|se\s+ha\s+jubilado|cerró|ha\s+cerrado|se\s+mudó|se\s+fue|se\s+ha\s+ido)\b", _I
)
FOR_SOMEONE = re.compile(r"\bpara\s+$", _I)
