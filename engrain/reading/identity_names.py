"""The words that name an identity number, in English, German, Spanish, French and Chinese, and what each is
(the placeholder's label): read by reading/identity_numbers.py, which takes the number that follows (or comes just
before) one of them whatever its shape or check (docs/SPEC.md §5, "Secrets").

What counts as an identity number: one a state issues to a person and which identifies them for life or for a
document's life — a social security or insurance number (SSN, SIN/NAS, National Insurance, the NHS number,
Sozialversicherungs-/Rentenversicherungsnummer, número de la Seguridad Social, numéro de sécurité sociale, 社保卡号),
a national identity card or document (Personalausweis, DNI, NIE, cédula, carte d'identité, 身份证, a residence
permit), a passport (and China's travel permits), a personal tax number (Steuer-ID, Steuernummer, TIN, ITIN, EIN,
NIF, CUIL/CUIT, numéro fiscal, 纳税人识别号, 税号) and a driving licence. Not: a health insurer's member number, a
customer, employee, student or library number, a number plate, a company's VAT number (those stay; a company's tax
number said under a personal one's name is kept when its check says it is a company's: reading/identity_numbers.py).
"""

from __future__ import annotations

NATIONAL_ID = "national ID number"
PASSPORT = "passport number"
TAX = "tax number"
LICENCE = "driver's licence number"

_APOSTROPHE = "['’]"

# label → names (regular expressions, matched case-insensitively unless they start with `(?-i:`). A name may be
# followed by its "number" word ("passport number", "Reisepassnummer", "身份证号码"): the bridge reads those.
NAMES: dict[str, tuple[str, ...]] = {
    NATIONAL_ID: (
        # English
        r"\bSSN\b",
        r"\bSS(?=\s*+#)",
        r"\bsocial\s++security(?:\s++card)?\b",
        r"\bsocial(?=\s++(?:is|was|no\b|number|#|:))",
        r"\bsocial\s++insurance\b",
        r"(?-i:\bSIN\b)",
        r"\bnational\s++insurance\b",
        r"\bNI(?=\s++(?:number|no\b))",
        r"\bNINO\b",
        r"\bNHS(?=\s++(?:number|no\b))",
        r"\b(?:national\s++)?(?:ID|identity)\s++card\b",
        r"\b(?:national|personal|government|state)\s++ID\b",
        r"(?<=\bmy\s)ID(?=\s++(?:number|no\b|#|is\b|:))",
        r"\bidentity\s++(?:number|document)\b",
        r"\bresidence\s++(?:permit|card)\b",
        r"\bgreen\s++card\b",
        # German
        r"\b(?:Personal)?ausweis(?=-?(?:nummer|nr\b)|\s)",
        r"\bPerso\b",
        r"\bSozialversicherungs(?=-?(?:nummer|ausweis))",
        r"\b(?:SV|RV)(?=-(?:nummer|nr\b))",
        r"\bRentenversicherungs(?=-?nummer)",
        r"\bAufenthalts(?:titel|erlaubnis)\b",
        # Spanish
        r"\bDNI\b",
        r"(?-i:\bNIE\b)",
        r"\bNUSS\b",
        r"\bseguridad\s++social\b",
        r"\bafiliaci[óo]n\b",
        r"\bc[ée]dula(?:\s++de\s++identidad)?\b",
        r"\b(?:documento|carn[ée]t?|tarjeta)\s++(?:nacional\s++)?de\s++identi(?:dad|ficaci[óo]n)\b",
        r"\b(?:TIE|tarjeta\s++de\s++residencia)\b",
        r"(?-i:\bCURP\b)",
        r"(?-i:\bRU[NT]\b)",
        # French
        r"\bs[ée]curit[ée]\s++sociale\b",
        r"\bs[ée]cu\b",
        r"(?-i:\bNIR\b)",
        r"\bINSEE\b",
        rf"\bcarte\s++(?:nationale\s++)?d{_APOSTROPHE}identit[ée]\b",
        r"(?-i:\bCNI\b)",
        r"\bcarte\s++vitale\b",
        r"(?-i:\bNAS\b)",
        r"\bassurance\s++sociale\b",
        r"\btitre\s++de\s++s[ée]jour\b",
        # Chinese
        r"(?:居民)?身份证(?:件)?",
        r"社保卡?|社会保障卡?",
        r"居住证",
    ),
    PASSPORT: (
        r"\bpassports?\b",
        r"\bReisepass",
        r"\bPass(?=-?(?:nummer|nr\b))",
        r"\bpasaporte\b",
        r"\bpasseport\b",
        r"护照|護照",
        r"(?:港澳|往来港澳|台湾)?通行证|台胞证|回乡证",
    ),
    TAX: (
        r"(?-i:\b(?:I|A)?TIN\b)",
        r"(?-i:\bEIN\b)",
        r"\btax(?:payer)?\s++(?:ID|identification|number|file\s++number|reference)\b",
        r"(?-i:\bUTR\b)",
        r"\bSteuer-?(?:ID|Identifikations|identifikations)",
        r"\b(?:Steuer-?)?Identifikationsnummer\b|\bIdNr\b",
        r"\bSteuer(?=-?(?:nummer|nr\b))",
        r"\bSt\.?-?Nr\b",
        r"(?-i:\bNIF\b)",
        r"\bidentificaci[óo]n\s++fiscal\b",
        r"(?-i:\bCUI[LT]\b)",
        r"(?-i:\bRFC\b)",
        r"\bnum[ée]ro\s++fiscal\b",
        r"\bidentifi(?:ant|cation)\s++fiscal[e]?\b",
        r"纳税人识别号|纳税识别号|个人税号|税号",
    ),
    LICENCE: (
        rf"\bdriv(?:er{_APOSTROPHE}?s|ing)\s++licen[cs]e\b",
        r"\bDL(?=\s*+(?:#|number|no\b))",
        r"\bFührerschein",
        r"\b(?:carn[ée]t?|licencia|permiso)\s++de\s++conduci?r\b",
        r"\bpermis\s++de\s++conduire\b",
        r"驾驶证|驾照|驾驶执照",
    ),
}
