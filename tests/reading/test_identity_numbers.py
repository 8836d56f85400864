"""Identity numbers by what they are, not by one phrasing: a number named as an SSN, a passport, an ID card, a tax
number or a driving licence, in the five languages' spellings, with or without separators, is redacted on every
write path (tests/reading/test_secrets_every_path.py sends the corpus's rows through each); its look-alikes —
orders, bookings, tracking, plates, a company's tax number, hashes and ids inside a longer token — are kept; a
document's expiry is no plan."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engrain.reading.enrich import enrich
from engrain.reading.redaction import redact
from tests.conftest import Clock, call, connect

NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)

# (sentence, the number, its label): none of these is in tests/data/secrets.tsv.
NAMED = [
    ("My SSN: 078 05 1120", "078 05 1120", "national ID number"),  # an invalid famous one: named, so taken
    ("social security # 123456789, don't share", "123456789", "national ID number"),
    ("NINO: QQ 12 34 56 C", "QQ 12 34 56 C", "national ID number"),  # HMRC's example prefix
    ("Passport no 912803456 (US)", "912803456", "passport number"),
    ("my driving license # is 123-456-789", "123-456-789", "driver's licence number"),
    ("My tax identification number is 12-3456789.", "12-3456789", "tax number"),
    ("Meine Ausweis-Nr. lautet L01X00T47.", "L01X00T47", "national ID number"),
    ("Reisepass: C01X00T47", "C01X00T47", "passport number"),
    ("Die Steuer-Nr. ist 123/456/78901", "123/456/78901", "tax number"),
    ("Mi pasaporte es el PAA123456.", "PAA123456", "passport number"),
    ("NIE X-1234567-L, por si acaso", "X-1234567-L", "national ID number"),
    ("Mon numéro de passeport : 12AB34567", "12AB34567", "passport number"),
    ("Numéro de permis de conduire 880692310285", "880692310285", "driver's licence number"),
    ("我的驾照号是110105198001011234", "110105198001011234", "driver's licence number"),
    ("护照号码 G12345678，别弄丢了", "G12345678", "passport number"),
    ("123-45-6789 is my SSN", "123-45-6789", "national ID number"),
]


@pytest.mark.parametrize(("sentence", "number", "label"), NAMED)
def test_a_number_named_as_an_identity_is_redacted_whatever_its_spelling(sentence, number, label):
    done = redact(sentence)
    assert number not in done.text and f"[secret: {label}]" in done.text, done.text


def _hex_around(run: str) -> str:
    return "75f" + run + "cdbf5444de84a00"


KEPT = [
    _hex_around("36000000000008"),  # the issue's shape: a 14-digit run passing Luhn inside a 32-character hex token
    "commit 4111111111111111abcdef0123456789abcdef01",
    "uuid a4111111111111111b2c3d4e5f607182",
    "https://img.example.com/IMG_4111111111111111.jpg",
    "My passport expires 2031-05-04.",
    "Passport photos: 2 for $15.",
    "The passport office is on 0300 222 0000.",
    "my NAS is 192.168.1.10",
    "Our company's tax number is 91110108MA01C8QJ74.",
    "El NIF de la empresa es B48391452.",
    "My licence plate is KX19 VFA.",
    "Booking reference X7K2LQ, order 114-3941689-8772232.",
    "Meine Kundennummer ist 100234567.",
    "The SSN field on the form only takes 9 digits.",
]


@pytest.mark.parametrize("sentence", KEPT)
def test_look_alikes_are_kept(sentence):
    assert redact(sentence).text == sentence


def test_a_letter_beside_a_digit_run_blocks_a_card_as_a_digit_does():
    card = "4111111111111111"
    assert redact(f"card {card}").kinds == {"card number": 1}
    assert redact(f"我的卡号是{card}").kinds == {"card number": 1}  # Chinese characters are no part of a token
    for token in (f"a{card}", f"{card}f", f"x_{card}", f"1{card}"):
        assert redact(f"id {token} here").kinds == {}, token


EXPIRIES = [
    ("my passport number is [secret: passport number], expires 2031", "en"),
    ("My driving licence is valid until 2030.", "en"),
    ("My gym membership runs out in June 2027", "en"),
    ("Pass-Nr. [secret: passport number], gültig bis 2030.", "de"),
    ("Mi pasaporte caduca en 2030.", "es"),
    ("Mi tarjeta vence en 2028.", "es"),
    ("Mon passeport expire en 2030.", "fr"),
    ("Ma carte est valable jusqu'en 2029.", "fr"),
    ("我的护照2030年到期。", "zh"),
    ("身份证有效期至2035年。", "zh"),
]


@pytest.mark.parametrize(("text", "lang"), EXPIRIES)
def test_a_things_expiry_is_no_plan_but_stays_its_date(text, lang):
    found = enrich(text, NOW, UTC, lang=lang)
    assert found.temporality == "current" and found.event is not None and found.event.start > NOW


def test_what_the_user_means_to_do_before_an_expiry_is_a_plan():
    found = enrich("I will renew my passport before it expires in 2027", NOW, UTC)
    assert found.temporality == "prospective"


pytestmark = pytest.mark.anyio


async def test_the_issues_sentences_through_remember(settings_factory):
    """Through a real MCP client: each stored redacted, and the passport's expiry no plan."""
    said = {
        "my ssn is 423 81 5567": "423 81 5567",
        "SSN: 219-09-9999": "219-09-9999",
        "my passport number is 533380006, expires 2031": "533380006",
        "my social security number is 512-44-7781": "512-44-7781",
    }
    async with connect(settings_factory(), Clock(NOW)) as (client, _app):
        for sentence, number in said.items():
            stored = await call(client, "remember", content=sentence)
            assert number not in stored["content"] and stored["redacted"], stored
        passport = await client.call_tool("recall", {"query": "passport number", "limit": 5})
        hit = next(h for h in passport.structured_content["results"] if "passport" in h["content"])
        assert hit["temporality"] == "current" and "533380006" not in hit["content"]
        assert "plan" not in passport.content[0].text  # the line the calling model reads marks no plan
