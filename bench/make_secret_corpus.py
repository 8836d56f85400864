"""Writes tests/data/secrets.tsv: secrets of many kinds inside natural sentences in five languages, and
look-alikes that must survive redaction (reading/redaction.py; measured by bench/redaction.py).

Every secret is random but has its kind's real shape (a card number passes Luhn, an IBAN its check digits,
a JWT decodes), so that no real credential is in the repository. The sentences are written by hand; the
generator only fills them in. Seeded: running it again writes the same file.

Columns: lang, kind (a look-alike's kind starts with "not:"), split (`dev` may be tuned on, `test` is held
out), secret (the exact text that must not survive; empty for a look-alike), sentence.

    python bench/make_secret_corpus.py
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
from collections.abc import Callable
from pathlib import Path

from stdnum import iban, luhn

COLUMNS = ("lang", "kind", "split", "secret", "sentence")
OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "secrets.tsv"
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
UPPER_DIGITS = string.ascii_uppercase + string.digits


def pick(rng: random.Random, chars: str, n: int) -> str:
    return "".join(rng.choice(chars) for _ in range(n))


def with_digit(rng: random.Random, chars: str, n: int) -> str:
    """A random body that holds a digit (a real key of this length almost always does)."""
    while True:
        body = pick(rng, chars, n)
        if any(c.isdigit() for c in body):
            return body


def card(rng: random.Random) -> str:
    prefix, length = rng.choice([("4", 16), ("51", 16), ("55", 16), ("2221", 16), ("37", 15), ("6011", 16)])
    body = prefix + pick(rng, string.digits, length - len(prefix) - 1)
    number = body + luhn.calc_check_digit(body)
    groups = [number[i : i + 4] for i in range(0, len(number), 4)] if length == 16 else [number]
    return rng.choice([" ", "-", ""]).join(groups) if length == 16 else number


def an_iban(rng: random.Random) -> str:
    while True:
        country, bban = rng.choice(
            [
                ("DE", pick(rng, string.digits, 18)),
                ("GB", "NWBK" + pick(rng, string.digits, 14)),
                ("NL", "ABNA" + pick(rng, string.digits, 10)),
                ("CH", pick(rng, string.digits, 17)),
                ("AT", pick(rng, string.digits, 16)),
            ]
        )
        number = country + iban.calc_check_digits(country + "00" + bban) + bban
        if iban.is_valid(number):
            return iban.format(number) if rng.random() < 0.6 else number


def jwt(rng: random.Random) -> str:
    def part(value: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")

    header = part({"alg": "HS256", "typ": "JWT"})
    claims = part({"sub": pick(rng, string.digits, 8), "name": rng.choice(["Ana", "Wei", "Lukas"]), "iat": 1700000000})
    return f"{header}.{claims}.{pick(rng, ALNUM + '-_', 43)}"


def private_key(rng: random.Random) -> str:
    kind = rng.choice(["RSA ", "EC ", "OPENSSH ", ""])
    lines = [pick(rng, ALNUM + "+/", 64) for _ in range(3)]
    return f"-----BEGIN {kind}PRIVATE KEY-----\n" + "\n".join(lines) + f"\n-----END {kind}PRIVATE KEY-----"


# kind → (what the sentence calls it, how one looks)
SECRETS: dict[str, tuple[str, Callable[[random.Random], str]]] = {
    "OpenAI API key": ("OpenAI key", lambda r: "sk-proj-" + with_digit(r, ALNUM + "_-", 48)),
    "Anthropic API key": ("Anthropic key", lambda r: "sk-ant-api03-" + with_digit(r, ALNUM + "_-", 80) + "AA"),
    "AWS access key": ("AWS access key id", lambda r: "AKIA" + pick(r, string.ascii_uppercase + string.digits, 16)),
    "GitHub token": ("GitHub token", lambda r: "ghp_" + with_digit(r, ALNUM, 36)),
    "GitHub fine-grained token": ("GitHub token", lambda r: "github_pat_11" + with_digit(r, ALNUM + "_", 80)),
    "GitLab token": ("GitLab token", lambda r: "glpat-" + with_digit(r, ALNUM + "_-", 20)),
    "Slack token": (
        "Slack bot token",
        lambda r: f"xoxb-{pick(r, string.digits, 12)}-{pick(r, string.digits, 13)}-{with_digit(r, ALNUM, 24)}",
    ),
    "Slack webhook": (
        "Slack webhook",
        lambda r: (
            "https://hooks.slack.com/services/"
            + f"T{pick(r, UPPER_DIGITS, 8)}/B{pick(r, UPPER_DIGITS, 8)}/{with_digit(r, ALNUM, 24)}"
        ),
    ),
    "Stripe API key": ("Stripe secret key", lambda r: "sk_live_" + with_digit(r, ALNUM, 24)),
    "Stripe test key": ("Stripe test key", lambda r: "sk_test_" + with_digit(r, ALNUM, 24)),
    "Google API key": ("Google Maps API key", lambda r: "AIza" + pick(r, ALNUM + "_-", 35)),
    "Hugging Face token": ("Hugging Face token", lambda r: "hf_" + with_digit(r, ALNUM, 34)),
    "Twilio API key": ("Twilio key", lambda r: "SK" + with_digit(r, HEX, 32)),
    "SendGrid API key": ("SendGrid key", lambda r: f"SG.{pick(r, ALNUM + '_-', 22)}.{pick(r, ALNUM + '_-', 43)}"),
    "Mailchimp API key": ("Mailchimp key", lambda r: with_digit(r, HEX, 32) + "-us" + str(r.randint(1, 21))),
    "Discord bot token": (
        "Discord bot token",
        lambda r: f"M{pick(r, ALNUM, 23)}.{pick(r, ALNUM, 6)}.{with_digit(r, ALNUM + '_-', 27)}",
    ),
    "Telegram bot token": ("Telegram bot token", lambda r: f"{r.randint(10**8, 10**9)}:AA{pick(r, ALNUM + '_-', 33)}"),
    "npm token": ("npm token", lambda r: "npm_" + with_digit(r, ALNUM, 36)),
    "PyPI token": ("PyPI token", lambda r: "pypi-AgEIcHlwaS5vcmc" + pick(r, ALNUM + "_-", 80)),
    "JSON web token": ("JWT", jwt),
    "Groq API key": ("Groq key", lambda r: "gsk_" + with_digit(r, ALNUM, 52)),
    "DigitalOcean token": ("DigitalOcean token", lambda r: "dop_v1_" + pick(r, HEX, 64)),
    "Shopify access token": ("Shopify token", lambda r: "shpat_" + pick(r, HEX, 32)),
    "Databricks token": ("Databricks token", lambda r: "dapi" + pick(r, HEX, 32)),
    "HashiCorp Vault token": ("Vault token", lambda r: "hvs." + with_digit(r, ALNUM, 24)),
    "Docker Hub token": ("Docker Hub token", lambda r: "dckr_pat_" + with_digit(r, ALNUM + "_-", 27)),
    "Notion token": ("Notion integration token", lambda r: "ntn_" + with_digit(r, ALNUM, 46)),
    "Linear API key": ("Linear API key", lambda r: "lin_api_" + with_digit(r, ALNUM, 40)),
    "Replicate API token": ("Replicate token", lambda r: "r8_" + with_digit(r, ALNUM, 37)),
    "Square OAuth secret": ("Square secret", lambda r: "sq0csp-" + pick(r, ALNUM + "_-", 43)),
    "xAI API key": ("xAI key", lambda r: "xai-" + with_digit(r, ALNUM, 80)),
    "Perplexity API key": ("Perplexity key", lambda r: "pplx-" + with_digit(r, ALNUM, 48)),
    "Sentry token": ("Sentry auth token", lambda r: "sntrys_" + with_digit(r, ALNUM, 60)),
    "Figma token": ("Figma token", lambda r: "figd_" + with_digit(r, ALNUM + "_-", 40)),
    "Azure storage key": ("Azure storage key", lambda r: pick(r, ALNUM + "+/", 86) + "=="),
    "card number": ("card number", card),
    "IBAN": ("IBAN", an_iban),
}

# Sentences with {name} (what the kind is called) and {s} (the secret), per language.
TEMPLATES: dict[str, list[str]] = {
    "en": [
        "Here's my {name} so I don't lose it: {s}",
        "My {name} is {s}, please keep it somewhere safe.",
        "I set up the integration yesterday with the {name} {s} and it worked first try.",
        "The {name} for the side project is {s}",
        "Note to self: {name} = {s}",
        "I rotated the {name} last week; the new one is {s}.",
        "Can you remember that the {name} we use at work is {s}?",
        "My partner asked me to store our shared {name}: {s}",
    ],
    "de": [
        "Hier ist mein {name}, damit ich ihn nicht verliere: {s}",
        "Mein {name} ist {s}, bitte gut aufbewahren.",
        "Gestern habe ich die Integration mit dem {name} {s} eingerichtet.",
        "Für das Nebenprojekt nutze ich den {name} {s}",
        "Merk dir bitte: {name} = {s}",
    ],
    "es": [
        "Aquí está mi {name} para no perderlo: {s}",
        "Mi {name} es {s}, guárdalo en un sitio seguro.",
        "Ayer configuré la integración con el {name} {s} y funcionó.",
        "Para el proyecto personal uso el {name} {s}",
        "Recuerda que el {name} del trabajo es {s}.",
    ],
    "fr": [
        "Voici ma {name} pour ne pas la perdre : {s}",
        "Ma {name} est {s}, garde-la en lieu sûr.",
        "Hier j'ai configuré l'intégration avec la {name} {s} et ça a marché.",
        "Pour le projet perso j'utilise la {name} {s}",
        "Souviens-toi que la {name} du boulot est {s}.",
    ],
    "zh": [
        "这是我的{name}，别弄丢了：{s}",
        "我的{name}是{s}，帮我记一下。",
        "昨天我用{name} {s} 配好了集成，一次就成功了。",
        "副业项目用的{name}是 {s}",
        "备忘：{name} = {s}",
    ],
}

# Stated passwords, PINs and codes, and credentials in connection strings, written per language ({s}: the secret).
STATED: dict[str, list[tuple[str, str, Callable[[random.Random], str]]]] = {
    "en": [
        (
            "password",
            "My wifi password is {s}.",
            lambda r: r.choice(["sunshine", "bluebird", "maple"]) + str(r.randint(10, 99)),
        ),
        (
            "password",
            "The password for my laptop is {s}, in case I forget it again.",
            lambda r: "Tr0ub4dor&" + str(r.randint(1, 9)),
        ),
        (
            "password",
            'For the record, my Netflix password is "{s}".',
            lambda r: "popcorn-night-" + str(r.randint(100, 999)),
        ),
        ("password", "The wifi at my parents' place: password {s}", lambda r: "Garden" + str(r.randint(1000, 9999))),
        (
            "password",
            "my email login is me@example.com and the password is {s}",
            lambda r: "Winter" + str(r.randint(2000, 2030)) + "!",
        ),
        ("PIN", "My bank card PIN is {s}.", lambda r: str(r.randint(1000, 9999))),
        ("PIN", "The alarm code at home is {s}, don't tell anyone.", lambda r: str(r.randint(1000, 999999))),
        ("PIN", "The gate code for the building is {s}", lambda r: str(r.randint(1000, 9999))),
        ("PIN", "My phone's PIN code is {s}.", lambda r: str(r.randint(100000, 999999))),
        ("password", "Database is at postgres://app:{s}@db.internal:5432/prod", lambda r: with_digit(r, ALNUM, 14)),
        (
            "password",
            "Our Mongo cluster: mongodb+srv://admin:{s}@cluster0.mongodb.net/app",
            lambda r: with_digit(r, ALNUM, 12),
        ),
        ("password", "I put DB_PASSWORD={s} in the .env file of the blog.", lambda r: with_digit(r, ALNUM, 16)),
        (
            "bearer token",
            "The API call works with the header Authorization: Bearer {s}",
            lambda r: with_digit(r, ALNUM, 40),
        ),
        ("private key", "This is the deploy key for the server:\n{s}", private_key),
        ("credential", "The AWS secret access key is {s}", lambda r: with_digit(r, ALNUM + "/+", 40)),
        (
            "Azure connection string",
            "Storage: DefaultEndpointsProtocol=https;AccountName=myphotos;AccountKey={s};"
            "EndpointSuffix=core.windows.net",
            lambda r: pick(r, ALNUM + "+/", 86) + "==",
        ),
    ],
    "de": [
        ("password", "Mein WLAN-Passwort ist {s}.", lambda r: "Sonnenblume" + str(r.randint(10, 99))),
        ("password", "Das Passwort für meinen Laptop lautet {s}", lambda r: "Kaffee" + str(r.randint(100, 999)) + "!"),
        (
            "password",
            "Mein Kennwort fürs Online-Banking ist {s}, das vergesse ich immer.",
            lambda r: "Berlin" + str(r.randint(1000, 9999)),
        ),
        ("PIN", "Meine PIN ist {s}.", lambda r: str(r.randint(1000, 9999))),
        ("PIN", "Der Türcode im Büro ist {s}", lambda r: str(r.randint(1000, 99999))),
        (
            "password",
            "Die Datenbank läuft unter postgresql://admin:{s}@localhost/shop",
            lambda r: with_digit(r, ALNUM, 12),
        ),
    ],
    "es": [
        ("password", "La contraseña del wifi es {s}.", lambda r: "perrito" + str(r.randint(100, 999))),
        (
            "password",
            "Mi contraseña del correo es {s}, no se la digas a nadie.",
            lambda r: "Playa" + str(r.randint(1000, 9999)),
        ),
        ("password", "La clave del wifi de casa es {s}", lambda r: "mariposa" + str(r.randint(10, 99))),
        ("PIN", "El PIN de mi tarjeta es {s}.", lambda r: str(r.randint(1000, 9999))),
        ("PIN", "El código de la puerta es {s}", lambda r: str(r.randint(1000, 99999))),
        (
            "password",
            "La base de datos está en mysql://root:{s}@127.0.0.1:3306/tienda",
            lambda r: with_digit(r, ALNUM, 12),
        ),
    ],
    "fr": [
        ("password", "Mon mot de passe wifi est {s}.", lambda r: "chocolat" + str(r.randint(10, 99))),
        (
            "password",
            "Le mot de passe de mon ordinateur est {s}, au cas où.",
            lambda r: "Soleil" + str(r.randint(1000, 9999)) + "!",
        ),
        ("password", "Mot de passe du compte Netflix : {s}", lambda r: "cinema" + str(r.randint(100, 999))),
        ("PIN", "Mon code PIN est {s}.", lambda r: str(r.randint(1000, 9999))),
        ("PIN", "Le code de la porte de l'immeuble est {s}", lambda r: str(r.randint(1000, 99999))),
        ("password", "La base tourne sur postgres://paul:{s}@db.local/compta", lambda r: with_digit(r, ALNUM, 12)),
    ],
    "zh": [
        ("password", "我家的wifi密码是{s}", lambda r: "sunshine" + str(r.randint(1000, 9999))),
        ("password", "我的邮箱密码是 {s}，别告诉别人。", lambda r: "Panda" + str(r.randint(100, 999)) + "!"),
        ("password", "公司电脑的开机密码：{s}", lambda r: "Work" + str(r.randint(1000, 9999))),
        ("PIN", "我的银行卡PIN码是{s}", lambda r: str(r.randint(100000, 999999))),
        ("PIN", "门禁密码是{s}，记住了。", lambda r: str(r.randint(1000, 9999))),
        ("password", "数据库连接串是 postgres://dev:{s}@10.0.0.5/app", lambda r: with_digit(r, ALNUM, 12)),
    ],
}

# Look-alikes: (kind, sentence) — numbers and ids that are no secret, and the words of secrets used otherwise.
LOOK_ALIKES: dict[str, list[tuple[str, str]]] = {
    "en": [
        ("words", "I keep my passwords in a notebook, which my brother thinks is crazy."),
        ("words", "Token rings were before my time, but my dad talks about them."),
        ("words", "My API keys are all in the team's vault now, nothing on my laptop."),
        ("order number", "Return label RMA-2024-118823 is in my inbox."),
        ("version", "The firmware on the router is v1.0.0-rc.2+build.5."),
        ("date", "The meeting moved to 2024-11-03T14:30:00Z."),
        ("price", "Flights to Tokyo were ¥128,400 return."),
        ("phone", "The clinic's fax is +44 20 7946 0958."),
        ("short id", "My gym membership id is GYM-20931."),
        ("long number", "My health insurance number is 8027 6000 9123 4."),
        ("uuid", "The ticket id they gave me is 3f2a9c1e-7b8d-4e5f-9a7b-8c9d0e1f2a3b."),
        ("uuid", "My Apple device identifier is 6F9619FF-8B86-D011-B42D-00C04FC964FF."),
        ("git hash", "I reverted commit 9fceb02d0ae598e95dc970b74767f19372d61af8 on the blog repo."),
        ("git hash", "The fix landed in a1b2c3d, so the bug is gone."),
        ("order number", "My Amazon order 112-4839201-5523910 arrives Thursday."),
        ("order number", "Order #A-48213 from the bike shop shipped today."),
        ("tracking number", "The UPS tracking number is 1Z999AA10123456784."),
        ("date", "We got married on 2019-06-15 in Porto."),
        ("date", "My passport expires 08/05/2031."),
        ("version", "I upgraded the laptop to macOS 14.2.1 and Python 3.11.7."),
        ("version", "We run Postgres 18.1 with pgvector 0.8.0 in production."),
        ("price", "The flat costs $1,299.99 a month, utilities included."),
        ("price", "I paid €2.450,00 for the sofa in 2022."),
        ("phone", "My dentist's number is +1 415 555 0132."),
        ("phone", "Call my mum on (617) 555-0199 if I don't answer."),
        ("short id", "My employee number is 004821."),
        ("short id", "My frequent flyer number is LH 992 184 557."),
        ("isbn", "I'm reading ISBN 978-3-16-148410-0, a book about bees."),
        ("account", "My library card number is 21234001234567."),
        ("long number", "My loyalty card is 6278 9400 1234 5678 at the grocery store."),
        ("long number", "The invoice number was 2023-000481-17."),
        ("url", "My blog is at https://anna.example.com/posts and the repo at https://github.com/anna/blog."),
        ("email", "My work email is anna.schmidt@example.org."),
        ("address", "I live at 221B Baker Street, London NW1 6XE."),
        ("hex", "Our brand colour is #1E90FF and the accent is #FF6347."),
        ("words", "My password is too weak, I need to change it this weekend."),
        ("words", "I changed my password yesterday after the phishing email."),
        ("words", "The key is to start small and stay consistent."),
        ("words", "My PIN is easy to remember, which is probably bad."),
        ("words", "The secret to good bread is a long cold proof."),
        ("words", "I forgot my wifi password again, so I reset the router."),
        ("words", "The token economy at my kid's school works well."),
        ("words", "The door code changed last week and nobody told me."),
        ("words", "Password managers are something I keep meaning to try."),
        ("sha", "The Docker image digest is sha256:9b2f0a1c8e7d6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a."),
        ("ip", "My home server is at 192.168.1.42 on port 8080."),
        ("coordinates", "The cabin is at 46.5197, 6.6323 near Lausanne."),
        ("licence plate", "My car's plate is KA-MS 1234."),
        ("serial", "The serial number of my bike frame is WTU123C4567D."),
        ("social handle", "I'm @anna_codes_42 on most sites."),
        ("file", "My thesis lives in ~/Documents/thesis/final_v3_REALLY_final.docx."),
        ("word", "My favourite word is antidisestablishmentarianism."),
    ],
    "de": [
        ("words", "Ich speichere meine Passwörter jetzt im Passwortmanager."),
        ("order number", "Die Rechnungsnummer ist RE-2024-00481."),
        ("version", "Der Router läuft mit FRITZ!OS 7.57."),
        ("phone", "Die Praxis erreichst du unter 089 1234 5678."),
        ("words", "Der Token für die Garderobe liegt in meiner Jacke."),
        ("uuid", "Die Vorgangsnummer lautet 550e8400-e29b-41d4-a716-446655440000."),
        ("git hash", "Der Fehler kam mit Commit 4e1243bd22c66e76c2ba9eddc1f91394e57f9f83."),
        ("order number", "Meine Bestellung 302-8812734-1190023 kommt morgen."),
        ("date", "Wir sind am 15.06.2019 nach Hamburg gezogen."),
        ("version", "Ich nutze Firefox 128.0.3 und Thunderbird 115.12."),
        ("price", "Die Miete beträgt 1.250,00 € im Monat."),
        ("phone", "Meine Nummer ist +49 30 12345678."),
        ("phone", "Ruf mich unter 0170 1234567 an."),
        ("short id", "Meine Kundennummer ist 48213-77."),
        ("tax id", "Meine Steuernummer ist 21/815/08150."),
        ("words", "Mein Passwort ist zu kurz, sagt die Bank."),
        ("words", "Ich habe mein Passwort gestern geändert."),
        ("words", "Die PIN ist neu, ich muss sie mir noch merken."),
        ("words", "Der Schlüssel zum Erfolg ist Geduld."),
        ("address", "Ich wohne in der Hauptstraße 12, 10115 Berlin."),
        ("train", "Mein Zug ist der ICE 1234 um 07:45."),
        ("long number", "Meine Payback-Karte hat die Nummer 3083 1234 5678 9012."),
        ("url", "Mein Blog liegt unter https://blog.example.de/ueber-mich."),
        ("serial", "Die Seriennummer meiner Kamera ist 2051843917."),
        ("hex", "Die Farbe im Logo ist #3A5F0B."),
        ("words", "Ich habe mein WLAN-Passwort vergessen und den Router zurückgesetzt."),
        ("sha", "Die Prüfsumme der Datei ist 5d41402abc4b2a76b9719d911017c592."),
        ("ip", "Das NAS hat die Adresse 10.0.0.17."),
        ("words", "Das Geheimnis eines guten Kuchens ist kalte Butter."),
    ],
    "es": [
        ("words", "Guardo mis contraseñas en un gestor desde el año pasado."),
        ("order number", "La factura es la F-2024-00731."),
        ("version", "El router tiene el firmware 3.4.12."),
        ("phone", "El teléfono de la clínica es 91 123 45 67."),
        ("words", "El token del metro se me perdió otra vez."),
        ("uuid", "El número de incidencia es 123e4567-e89b-12d3-a456-426614174000."),
        ("git hash", "Revertí el commit 2fd4e1c67a2d28fced849ee1bb76e7391b93eb12 ayer."),
        ("order number", "Mi pedido 405-1122334-5566778 llega el jueves."),
        ("date", "Nos casamos el 15/06/2019 en Sevilla."),
        ("version", "Tengo Android 14.0.2 en el móvil nuevo."),
        ("price", "El piso cuesta 950,00 € al mes."),
        ("phone", "Mi número es +34 612 345 678."),
        ("short id", "Mi número de socio es 77-48213."),
        ("dni", "El código postal de mi casa es 28013."),
        ("words", "Mi contraseña es demasiado corta, tengo que cambiarla."),
        ("words", "Cambié la contraseña ayer después del aviso del banco."),
        ("words", "La clave del éxito es la constancia."),
        ("words", "El PIN nuevo todavía no me lo sé."),
        ("address", "Vivo en la calle Mayor 5, 28013 Madrid."),
        ("flight", "Mi vuelo es el IB 3456 a las 9:40."),
        ("long number", "Mi tarjeta de puntos es 6011 0000 0000 0012 3."),
        ("url", "Mi web es https://maria.example.es/sobre-mi."),
        ("serial", "El número de serie del portátil es 5CD1234XYZ."),
        ("hex", "El color de la marca es #FF5733."),
        ("ip", "La impresora está en 192.168.0.50."),
        ("words", "Olvidé la contraseña del wifi y reinicié el router."),
        ("sha", "El hash del archivo es e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855."),
    ],
    "fr": [
        ("words", "Je garde mes mots de passe dans un gestionnaire maintenant."),
        ("order number", "La facture porte le numéro FA-2024-1182."),
        ("version", "La box est en version 4.2.18."),
        ("phone", "Le cabinet répond au 01 23 45 67 89."),
        ("words", "Le jeton du vestiaire est dans ma poche."),
        ("uuid", "Le numéro de dossier est 9b2e6f3a-1c4d-4e8f-a7b6-0d5c3e2f1a9b."),
        ("git hash", "J'ai annulé le commit b6589fc6ab0dc82cf12099d1c2d40ab994e8410c hier."),
        ("order number", "Ma commande 171-9988776-6655443 arrive jeudi."),
        ("date", "On s'est mariés le 15/06/2019 à Lyon."),
        ("version", "J'utilise LibreOffice 24.2.4 au bureau."),
        ("price", "Le loyer est de 1 150,00 € par mois."),
        ("phone", "Mon numéro est le +33 6 12 34 56 78."),
        ("phone", "Appelle-moi au 06 12 34 56 78."),
        ("short id", "Mon numéro d'adhérent est 004-821."),
        ("words", "Mon mot de passe est trop court d'après la banque."),
        ("words", "J'ai changé mon mot de passe hier."),
        ("words", "La clé du succès, c'est la patience."),
        ("words", "Mon code PIN est nouveau, je ne le connais pas encore."),
        ("address", "J'habite au 12 rue de la Paix, 75002 Paris."),
        ("train", "Mon TGV est le 6204 à 8h07."),
        ("long number", "Ma carte de fidélité porte le numéro 2990 0012 3456 7890."),
        ("url", "Mon site est https://luc.example.fr/a-propos."),
        ("social", "Mon numéro de sécurité sociale commence par 1 85 05."),
        ("hex", "La couleur du logo est #2E86C1."),
        ("ip", "Le serveur est sur 172.16.0.3."),
        ("words", "J'ai oublié le mot de passe du wifi, j'ai réinitialisé la box."),
        ("sha", "L'empreinte du fichier est da39a3ee5e6b4b0d3255bfef95601890afd80709."),
    ],
    "zh": [
        ("words", "我现在用密码管理器保存所有密码。"),
        ("order number", "发票号码是 FP20240481。"),
        ("version", "路由器固件版本是 3.0.2.130。"),
        ("phone", "诊所电话是 010-8888 6666。"),
        ("words", "地铁的令牌又丢了。"),
        ("uuid", "工单号是 7c9e6679-7425-40de-944b-e07fc1f90ae7。"),
        ("git hash", "我回滚了提交 356a192b7913b04c54574d18c28d46e6395428ab。"),
        ("order number", "我的淘宝订单号是 3210987654321098。"),
        ("date", "我们是2019年6月15日在杭州结婚的。"),
        ("version", "我把手机升级到了 iOS 17.4.1。"),
        ("price", "房租每月 ¥4,800.00。"),
        ("phone", "我的手机号是 138 0013 8000。"),
        ("phone", "我妈妈的电话是 +86 21 6123 4567。"),
        ("short id", "我的工号是 A10482。"),
        ("id", "我的会员号是 88-4821-07。"),
        ("words", "我的密码太简单了，得改一下。"),
        ("words", "我昨天改了密码。"),
        ("words", "成功的关键是坚持。"),
        ("words", "新的PIN码我还没记住。"),
        ("address", "我住在上海市徐汇区漕溪北路 88 号。"),
        ("train", "我坐的是 G1234 次高铁，早上 8:05 出发。"),
        ("long number", "我的积分卡号是 6228 4800 1234 5678 9。"),
        ("url", "我的博客是 https://wei.example.cn/about。"),
        ("serial", "笔记本的序列号是 PF3ABCDE。"),
        ("ip", "家里的 NAS 地址是 192.168.31.10。"),
        ("words", "我忘了wifi密码，只好重置路由器。"),
        ("sha", "文件的校验值是 a94a8fe5ccb19ba61c4c0873d391e987982fbbd3。"),
        ("express", "顺丰单号是 SF1234567890123。"),
    ],
}


def ssn(rng: random.Random) -> str:
    """A US social security number of a valid shape (area 001-665 or 667-899, group and serial not zero)."""
    area = rng.choice([a for a in range(1, 900) if a != 666])
    return f"{area:03d}-{rng.randint(1, 99):02d}-{rng.randint(1, 9999):04d}"


def steuer_id(rng: random.Random) -> str:
    """A German tax identification number: 11 digits, one digit of the first ten twice, its check digit."""
    from stdnum.de import idnr
    from stdnum.iso7064 import mod_11_10

    while True:
        digits = [str(d) for d in rng.sample(range(10), 9)]
        digits.insert(rng.randint(1, 9), rng.choice(digits[1:]))
        if digits[0] == "0":
            continue
        body = "".join(digits)
        number = body + mod_11_10.calc_check_digit(body)
        if idnr.is_valid(number):
            return f"{number[:2]} {number[2:5]} {number[5:8]} {number[8:]}" if rng.random() < 0.5 else number


def nir(rng: random.Random) -> str:
    """A French social security number: sex, year, month, department, commune, order, then its key."""
    from stdnum.fr import nir as french

    body = f"{rng.choice('12')}{rng.randint(50, 99):02d}{rng.randint(1, 12):02d}{rng.randint(1, 95):02d}"
    body += f"{rng.randint(1, 990):03d}{rng.randint(1, 999):03d}"
    number = body + french.calc_check_digits(body)
    return " ".join([number[0], number[1:3], number[3:5], number[5:7], number[7:10], number[10:13], number[13:]])


def dni(rng: random.Random) -> str:
    from stdnum.es import dni as spanish

    body = f"{rng.randint(10**7, 10**8 - 1)}"
    return body + spanish.calc_check_digit(body)


def resident_id(rng: random.Random) -> str:
    """A Chinese resident identity card number: region, birth date, order, check character."""
    from stdnum.cn import ric

    body = f"{rng.choice(['110105', '310104', '440305', '330106'])}{rng.randint(1960, 2004)}"
    body += f"{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}{rng.randint(1, 999):03d}"
    return body + ric.calc_check_digit(body + "0")  # it reads the number with a place for its check digit


def sin(rng: random.Random) -> str:
    """A Canadian social insurance number (Luhn)."""
    body = str(rng.randint(1, 7)) + pick(rng, string.digits, 7)
    number = body + luhn.calc_check_digit(body)
    return f"{number[:3]} {number[3:6]} {number[6:]}"


def nino(rng: random.Random) -> str:
    """A UK National Insurance number: two letters of the allowed ones, six digits, A to D."""
    first, second = rng.choice("ABCEGHJKLMNOPRSTWXYZ"), rng.choice("ABCEGHJKLMNPRSTWXYZ")
    digits = pick(rng, string.digits, 6)
    return f"{first}{second} {digits[:2]} {digits[2:4]} {digits[4:]} {rng.choice('ABCD')}"


def four_digits(rng: random.Random) -> str:
    return f"{rng.randint(1000, 9999)}"


def env_file(rng: random.Random) -> str:
    return with_digit(rng, HEX, 48)


def openssh_key(rng: random.Random) -> str:
    lines = ["b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"]
    lines += [pick(rng, ALNUM + "+/", 70) for _ in range(4)]
    return "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END OPENSSH PRIVATE KEY-----"


def pgp_key(rng: random.Random) -> str:
    lines = [pick(rng, ALNUM + "+/", 64) for _ in range(4)]
    return (
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n"
        + "\n".join(lines)
        + "\n="
        + pick(rng, ALNUM, 4)
        + "\n-----END PGP PRIVATE KEY BLOCK-----"
    )


# Issue 50: what the first corpus had too little of, written from how people say these things (before any rule
# for them was written): codes to doors, gates and locks told in words; national identity numbers; `.env`
# pastes; whole key blocks; passwords said in passing. Appended, so that the rows above keep their splits.
SAID: dict[str, list[tuple[str, str, Callable[[random.Random], str]]]] = {
    "en": [
        ("code", "the code to the front door is {s}", four_digits),
        ("code", "If you ever need to get into the garage, the code is {s}.", four_digits),
        ("code", "Front door keypad: {s}, then press the star key.", four_digits),
        ("code", "The lockbox with the spare key opens with {s}", four_digits),
        ("code", "Code for the bike lock: {s}", four_digits),
        ("code", "The key safe next to the door opens with {s}.", four_digits),
        ("code", "Our alarm code is {s} and the panel is in the hallway.", four_digits),
        ("code", "The storage unit's keypad code is {s}.", four_digits),
        ("national id", "My SSN is {s}, I need it for the tax form.", ssn),
        ("national id", "For the mortgage they asked for my social security number: {s}", ssn),
        ("national id", "my social is {s} if the bank calls", ssn),
        ("national id", "My National Insurance number is {s}.", nino),
        ("national id", "Canadian SIN for the job paperwork: {s}", sin),
        ("password", "wifi's {s} btw", lambda r: "coffeebreak" + str(r.randint(1990, 2024))),
        ("password", "netflix login: anna.k@example.com pw: {s}", lambda r: "Popcorn#" + str(r.randint(10, 99))),
        ("password", "The router admin login is admin and the password is {s}", lambda r: "R0uter!" + four_digits(r)),
        (".env paste", "Here's the .env for the blog:\nDEBUG=false\nSESSION_SECRET={s}\nPORT=8080", env_file),
        (".env paste", "my .env:\nMAIL_HOST=smtp.example.com\nMAIL_PASSWORD={s}\nMAIL_PORT=587", env_file),
        (".env paste", "export JWT_SECRET={s}\nexport NODE_ENV=production", env_file),
        ("private key", "Keep this for the VPS, it's my ssh key:\n{s}", openssh_key),
        ("private key", "Backup of my signing key:\n{s}", pgp_key),
    ],
    "de": [
        ("code", "Der Code für die Haustür ist {s}.", four_digits),
        ("code", "Das Zahlenschloss vom Fahrrad geht mit {s} auf.", four_digits),
        ("code", "Das Garagentor öffnet sich mit dem Code {s}.", four_digits),
        ("code", "Die Alarmanlage schaltest du mit {s} aus.", four_digits),
        ("national id", "Meine Steuer-ID ist {s}, die brauche ich für die Steuererklärung.", steuer_id),
        ("national id", "Steueridentifikationsnummer: {s}", steuer_id),
        ("password", "Passwort fürs WLAN: {s}", lambda r: "Kaffeetasse" + str(r.randint(10, 99))),
        ("password", "Mein Passwort für die Krankenkassen-App ist {s}", lambda r: "Gesund" + four_digits(r) + "!"),
    ],
    "fr": [
        ("code", "Le digicode de l'immeuble, c'est {s}.", lambda r: four_digits(r) + r.choice("AB")),
        ("code", "Le code du portail est {s}.", four_digits),
        ("code", "Pour le cadenas du vélo, c'est {s}.", four_digits),
        ("code", "Le code de l'alarme : {s}", four_digits),
        ("national id", "Mon numéro de sécurité sociale est le {s}.", nir),
        ("national id", "Numéro de sécu pour la mutuelle : {s}", nir),
        ("password", "le mdp du wifi c'est {s}", lambda r: "soleil" + str(r.randint(1990, 2024))),
        ("password", "Mon mot de passe pour les impôts est {s}", lambda r: "Impots" + four_digits(r) + "?"),
    ],
    "es": [
        ("code", "El código del portal es {s}.", four_digits),
        ("code", "La combinación del candado de la bici es {s}.", four_digits),
        ("code", "Para abrir el garaje, el código es {s}.", four_digits),
        ("code", "La alarma se desactiva con el código {s}.", four_digits),
        ("national id", "Mi DNI es {s}, lo necesito para el contrato.", dni),
        ("national id", "Número de DNI: {s}", dni),
        ("password", "La contraseña de Netflix es {s}", lambda r: "palomitas" + str(r.randint(10, 99))),
        ("password", "mi clave del banco es {s}, no se la digas a nadie", lambda r: "Sevilla" + four_digits(r)),
    ],
    "zh": [
        ("code", "大门密码是{s}。", four_digits),
        ("code", "车库的密码：{s}", four_digits),
        ("code", "自行车锁的密码是{s}", four_digits),
        ("code", "保险箱密码 {s}", lambda r: str(r.randint(100000, 999999))),
        ("national id", "我的身份证号是{s}。", resident_id),
        ("national id", "身份证号码：{s}，办签证要用。", resident_id),
        ("password", "wifi密码 {s}", lambda r: "home" + str(r.randint(10000, 99999))),
        ("password", "我支付宝的登录密码是{s}", lambda r: "Zfb" + four_digits(r) + "!"),
    ],
}

# Issue 50: numbers a user needs, which redaction must never take: flights, rooms, tracking and order numbers,
# versions, commit hashes, postal codes, codes that are no secret.
KEPT: dict[str, list[tuple[str, str]]] = {
    "en": [
        ("flight", "My flight is UA 1523 tomorrow at 6:40."),
        ("room", "We're in room 4417 at the Hilton, top floor."),
        ("tracking number", "USPS tracking number 9400 1000 0000 0000 0000 00 for the package."),
        ("version", "I'm on version 2.14.3 of the app and it still crashes."),
        ("git hash", "Commit 3e4f9a1 fixed the login bug."),
        ("order number", "Order #1002-4417-889 is delayed again."),
        ("postal code", "The zip code is 94110."),
        ("area code", "The area code for Boston is 617."),
        ("error code", "Windows update failed with error code 0x80070005."),
        ("seat", "Gate B22, seat 14C."),
        ("promo code", "I used promo code SPRING25 for 25% off."),
        ("course code", "The course code is CS 4417 and it starts Monday."),
        ("booking", "My booking reference for the hotel is K7XQ2M."),
        ("words", "The code is on GitHub under my account."),
        ("words", "The door code didn't work so I called the landlord."),
        ("date", "My birthday is 1988-04-17."),
        ("case number", "The case number is 123-45-678."),
        ("code", "In the middleware I do const token = req.header('Authorization'); and check it."),
        ("code", "password = request.json.get('password') returns None when the form is empty"),
        ("code", "hashed_password = hash_password(password) runs before the insert"),
        ("code", "I read it with API_KEY = os.getenv('OPENAI_API_KEY') in settings.py"),
        ("code", "const secret = process.env.JWT_SECRET; is undefined in the tests"),
        ("code", "token = jwt.encode(payload, key, algorithm='HS256') gives me bytes on the old version"),
        ("code", "access_token = response.json()['access_token'] fails when the call times out"),
        ("code", "The config has clientSecret: 'YOUR_CLIENT_SECRET', which I still need to fill in."),
        ("code", "In __init__ I set self.password = password and nothing else."),
        ("code", "The workflow passes db_password: ${{ secrets.DB_PASSWORD }} to the job."),
    ],
    "de": [
        ("flight", "Mein Flug ist LH 441 um 7:10."),
        ("room", "Wir haben Zimmer 4417 im dritten Stock."),
        ("tracking number", "Die Sendungsnummer ist 00340434161234567890."),
        ("postal code", "Die Postleitzahl ist 80331."),
        ("error code", "Fehlercode 0x80070005 beim Update."),
        ("words", "Der Code liegt auf GitHub."),
    ],
    "fr": [
        ("flight", "Mon vol est le AF 1234 demain matin."),
        ("room", "Chambre 4417 au quatrième étage."),
        ("postal code", "Le code postal est 69003."),
        ("tracking number", "Numéro de suivi : 6A12345678901."),
        ("words", "Le code est sur GitHub."),
    ],
    "es": [
        ("flight", "Mi vuelo es el IB 3171 el viernes."),
        ("room", "Estamos en la habitación 4417."),
        ("tracking number", "Número de seguimiento: 1Z999AA10123456784"),
        ("error code", "El código del error era 404."),
        ("postal code", "Mi código postal es 41001."),
    ],
    "zh": [
        ("flight", "我的航班是 CA1234。"),
        ("room", "房间号是 4417。"),
        ("postal code", "邮编是 200030。"),
        ("tracking number", "快递单号 YT1234567890123。"),
        ("error code", "错误代码是 404。"),
        ("words", "这个代码在 GitHub 上。"),
    ],
}


# "Secrets said another way": identity numbers named in any spelling the five languages use, with or without
# separators, and the look-alikes a user needs kept beside them — orders, bookings, tracking numbers, number plates,
# a company's tax number, and hashes and ids whose digits hold a run passing Luhn. Written before any rule for them
# and split by an md5 of the sentence (a half held out); the issue's own sentences are dev (they were seen).
def hex_with_card_run(rng: random.Random, length: int) -> str:
    """A hex token (a hash, a commit id, a UUID without hyphens) whose digits hold a 14-16 digit run that passes
    an issuer's prefix and Luhn, letters on both sides of it: what a card rule must not take."""
    while True:
        run_length = rng.choice([14, 15, 16])
        prefix = rng.choice(["36", "38", "4", "51", "37", "6011"])
        body = prefix + pick(rng, string.digits, run_length - len(prefix) - 1)
        run = body + luhn.calc_check_digit(body)
        if (run[0] == "3" and len(run) not in (14, 15)) or (run[0] in "45" and len(run) != 16):
            continue
        at = rng.randint(1, length - len(run) - 1)
        return (
            pick(rng, "abcdef", 1)
            + pick(rng, HEX, at - 1)
            + pick(rng, "abcdef", 1)
            + run
            + pick(rng, "abcdef", 1)
            + pick(rng, HEX, length - at - len(run) - 2)
        )


def base64_with_card_run(rng: random.Random) -> str:
    letters = string.ascii_letters
    body = "4" + pick(rng, string.digits, 14)
    run = body + luhn.calc_check_digit(body)
    return pick(rng, ALNUM, 9) + rng.choice(letters) + run + rng.choice(letters) + pick(rng, ALNUM + "_-", 14)


def ssn_spaced(rng: random.Random) -> str:
    return ssn(rng).replace("-", " ")


def ssn_plain(rng: random.Random) -> str:
    return ssn(rng).replace("-", "")


def itin(rng: random.Random) -> str:
    return f"9{rng.randint(0, 99):02d}-{rng.choice([70, 75, 78, 83, 88, 90, 94, 99])}-{rng.randint(1, 9999):04d}"


def nino_compact(rng: random.Random) -> str:
    return nino(rng).replace(" ", "")


def nhs_number(rng: random.Random) -> str:
    """A UK NHS number: nine digits and a mod-11 check digit, written 3 3 4."""
    while True:
        body = str(rng.randint(4, 9)) + pick(rng, string.digits, 8)
        check = 11 - sum(int(d) * (10 - i) for i, d in enumerate(body)) % 11
        if check == 11:
            check = 0
        if check != 10:
            number = body + str(check)
            return f"{number[:3]} {number[3:6]} {number[6:]}"


def sin_plain(rng: random.Random) -> str:
    return sin(rng).replace(" ", "")


def digits(n: int, groups: tuple[int, ...] = (), sep: str = " ") -> Callable[[random.Random], str]:
    """n random digits (the first not 0), maybe grouped."""

    def make(rng: random.Random) -> str:
        number = str(rng.randint(1, 9)) + pick(rng, string.digits, n - 1)
        if not groups:
            return number
        parts, at = [], 0
        for size in groups:
            parts.append(number[at : at + size])
            at += size
        return sep.join(parts)

    return make


def steuernummer(rng: random.Random) -> str:
    return rng.choice(
        [
            f"{rng.randint(10, 99)}/{rng.randint(100, 999)}/{rng.randint(10000, 99999)}",
            f"{rng.randint(100, 299)}/{rng.randint(100, 999)}/{rng.randint(10000, 99999)}",
        ]
    )


def sv_nummer(rng: random.Random) -> str:
    """A German social insurance number: area, birth date, the initial of the birth name, serial, check."""
    birth = f"{rng.randint(1, 28):02d}{rng.randint(1, 12):02d}{rng.randint(50, 99):02d}"
    return f"{rng.randint(10, 89)} {birth} {rng.choice('ABKMSW')} {rng.randint(0, 49):02d} {rng.randint(0, 9)}"


GERMAN_DOCUMENT = "CFGHJKLMNPRTVWXYZ0123456789"


def german_document(rng: random.Random) -> str:
    """A German passport or identity card number: nine characters of its alphabet, the first a letter."""
    while True:
        rest = pick(rng, GERMAN_DOCUMENT, 8)
        if sum(c.isdigit() for c in rest) >= 3:
            return rng.choice("CFGHJKLMNPRTVWXYZ") + rest


def spanish_passport(rng: random.Random) -> str:
    return pick(rng, string.ascii_uppercase, 3) + pick(rng, string.digits, 6)


def french_passport(rng: random.Random) -> str:
    return pick(rng, string.digits, 2) + pick(rng, string.ascii_uppercase, 2) + pick(rng, string.digits, 5)


def chinese_passport(rng: random.Random) -> str:
    return (
        rng.choice(["E", "G"]) + pick(rng, string.digits, 8)
        if rng.random() < 0.7
        else "EA" + pick(rng, string.digits, 7)
    )


def uk_licence(rng: random.Random) -> str:
    surname = rng.choice(["MORGA", "SMITH", "PATEL", "JONES"])
    born = f"{rng.randint(5, 9)}{rng.randint(0, 1)}{rng.randint(1, 28):02d}{rng.randint(0, 9)}"
    return f"{surname}{born}{pick(rng, 'ABCDJSM', 2)}9{pick(rng, string.ascii_uppercase, 2)}"


def dni_hyphen(rng: random.Random) -> str:
    number = dni(rng)
    return f"{number[:8]}-{number[8]}"


def nie_number(rng: random.Random) -> str:
    from stdnum.es import nie as spanish

    while True:
        body = f"{rng.choice('XYZ')}{rng.randint(10**6, 10**7 - 1)}"
        number = body + spanish.calc_check_digit(body)
        if spanish.is_valid(number):
            return number if rng.random() < 0.5 else f"{number[0]}-{number[1:8]}-{number[8]}"


def nuss(rng: random.Random) -> str:
    """A Spanish social security number: province, serial, two control digits (the first ten mod 97)."""
    body = f"{rng.randint(1, 52):02d}{rng.randint(10**7, 10**8 - 1)}"
    number = body + f"{int(body) % 97:02d}"
    return f"{number[:2]}/{number[2:10]}/{number[10:]}" if rng.random() < 0.5 else number


def cuil(rng: random.Random) -> str:
    from stdnum.ar import cuit

    while True:
        body = f"{rng.choice(['20', '23', '27'])}{rng.randint(10**7, 5 * 10**7)}"
        number = body + cuit.calc_check_digit(body)
        if cuit.is_valid(number):
            return f"{number[:2]}-{number[2:10]}-{number[10]}"


def nir_plain(rng: random.Random) -> str:
    return nir(rng).replace(" ", "")


def french_tax(rng: random.Random) -> str:
    """A French tax number (numéro fiscal, SPI): thirteen digits, the first 0 to 3, the last three a check."""
    from stdnum.fr import nif as french

    body = str(rng.randint(0, 3)) + pick(rng, string.digits, 9)
    number = body + french.calc_check_digits(body)
    return f"{number[:2]} {number[2:4]} {number[4:7]} {number[7:10]} {number[10:]}" if rng.random() < 0.5 else number


def resident_id_x(rng: random.Random) -> str:
    """A Chinese resident identity number, one whose check character is X when the draw gives it."""
    for _ in range(200):
        number = resident_id(rng)
        if number.endswith("X"):
            return number
    return number


def uscc_number(rng: random.Random) -> str:
    """A Chinese company's unified social credit code (public: it is on every invoice the company writes)."""
    from stdnum.cn import uscc

    body = "91" + rng.choice(["110108", "310115", "440300"]) + pick(rng, "0123456789ABCDEFGHJKLMNPQRTUWXY", 9)
    return body + uscc.calc_check_digit(body)


def spanish_company(rng: random.Random) -> str:
    from stdnum.es import cif

    body = rng.choice("AB") + pick(rng, string.digits, 7)
    return body + cif.calc_check_digits(body)[0]


# Look-alikes of the first corpus that the issue of identity numbers said another way counts as secrets: a
# Steuernummer is a person's tax number (it names "Steuernummer" among the tax numbers to redact). Same row, same split.
RELABELLED = {
    "Meine Steuernummer ist 21/815/08150.": ("de", "tax number", "21/815/08150", "Meine Steuernummer ist 21/815/08150.")
}

ISSUE_SENTENCES = ("my ssn is", "SSN: ", "my passport number is 533380006", "my social security number is")

SAID_OTHERWISE: dict[str, list[tuple[str, str, Callable[[random.Random], str]]]] = {
    "en": [
        ("social security number", "my ssn is {s}", lambda r: "423 81 5567"),
        ("social security number", "SSN: {s}", lambda r: "219-09-9999"),
        ("passport number", "my passport number is {s}, expires 2031", lambda r: "533380006"),
        ("social security number", "my social security number is {s}", lambda r: "512-44-7781"),
        ("social security number", "For the W-4, my Social Security no. is {s}.", ssn_plain),
        ("social security number", "SS#: {s} (keep it private)", ssn_spaced),
        ("social security number", "{s} is my SSN, in case the accountant asks", ssn),
        ("social security number", "Wife's SSN for the joint return: {s}", ssn_plain),
        ("tax number", "My ITIN is {s}.", itin),
        ("tax number", "my tax ID number: {s}", ssn),
        ("national insurance number", "NI number {s}, for the new payroll", nino_compact),
        ("national insurance number", "My national insurance no is {s}", nino),
        ("national ID number", "My NHS number is {s}.", nhs_number),
        ("social insurance number", "my social insurance number is {s}", sin_plain),
        ("passport number", "Passport No. {s}, issued in Chicago.", digits(9)),
        ("passport number", "My UK passport number: {s}", digits(9)),
        ("passport number", "Renewed passport, the new number is {s}", digits(9)),
        ("driver's licence number", "My driver's license number is {s}", lambda r: "D" + pick(r, string.digits, 7)),
        ("driver's licence number", "Driving licence no. {s}", uk_licence),
        ("ID card number", "My ID card number is {s}", german_document),
    ],
    "de": [
        ("tax number", "Meine Steuernummer ist {s}.", steuernummer),
        ("tax number", "Steuer-Identifikationsnummer {s} steht auf dem Brief vom Finanzamt.", steuer_id),
        ("tax number", "Meine Steuer-ID lautet {s}", lambda r: steuer_id(r).replace(" ", "")),
        ("social security number", "Meine Sozialversicherungsnummer ist {s}.", sv_nummer),
        ("social security number", "Rentenversicherungsnummer: {s}", lambda r: sv_nummer(r).replace(" ", "")),
        ("passport number", "Meine Reisepassnummer ist {s}.", german_document),
        ("passport number", "Pass-Nr. {s}, gültig bis 2030.", german_document),
        ("ID card number", "Die Nummer von meinem Personalausweis ist {s}", german_document),
        ("ID card number", "Ausweisnummer: {s}", german_document),
        ("ID card number", "Mein Perso hat die Nummer {s}.", german_document),
        ("driver's licence number", "Führerscheinnummer {s}", lambda r: pick(r, "BJ", 1) + pick(r, ALNUM.upper(), 10)),
    ],
    "es": [
        ("ID card number", "Mi número de DNI es el {s}.", dni_hyphen),
        ("ID card number", "dni {s}", lambda r: dni(r).lower()),
        ("ID card number", "Mi NIE es {s}, para el contrato del piso.", nie_number),
        ("tax number", "Mi NIF: {s}", dni),
        ("social security number", "Mi número de la Seguridad Social es {s}.", nuss),
        ("social security number", "Número de afiliación a la Seguridad Social: {s}", nuss),
        ("passport number", "Mi número de pasaporte es {s}", spanish_passport),
        ("passport number", "Pasaporte: {s}, lo renové en marzo.", spanish_passport),
        ("tax number", "Mi CUIL es {s}.", cuil),
        ("driver's licence number", "El número de mi carné de conducir es {s}", dni),
        ("ID card number", "Mi cédula de identidad es {s}.", digits(10)),
    ],
    "fr": [
        ("social security number", "Mon numéro de sécu : {s}", nir_plain),
        ("social security number", "N° de sécurité sociale {s}", nir),
        ("passport number", "Mon numéro de passeport est le {s}.", french_passport),
        ("passport number", "Passeport n° {s}, délivré à Lyon.", french_passport),
        ("ID card number", "Numéro de ma carte d'identité : {s}", digits(12)),
        ("ID card number", "Le numéro de ma CNI est {s}", lambda r: pick(r, string.ascii_uppercase + string.digits, 9)),
        ("tax number", "Mon numéro fiscal est le {s}.", french_tax),
        ("tax number", "Numéro d'identification fiscale : {s}", french_tax),
        ("social insurance number", "Mon NAS est le {s}.", sin),
        ("driver's licence number", "Le numéro de mon permis de conduire est {s}", digits(12)),
    ],
    "zh": [
        ("national ID number", "我的身份证号码：{s}", resident_id_x),
        ("national ID number", "身份证 {s}，复印件在抽屉里。", resident_id),
        ("national ID number", "帮我记住，我老婆的身份证号是{s}", resident_id),
        ("passport number", "我的护照号码是{s}。", chinese_passport),
        ("passport number", "护照号：{s}，明年到期。", chinese_passport),
        ("social security number", "我的社保卡号是{s}", resident_id),
        ("tax number", "我的纳税人识别号是{s}。", resident_id),
        ("driver's licence number", "驾驶证号 {s}", resident_id),
        ("passport number", "港澳通行证号码是{s}", lambda r: "C" + pick(r, string.digits, 8)),
        ("national ID number", "办事员把{s}输错了两次，那是我的身份证。", resident_id),
    ],
}

KEPT_OTHERWISE: dict[str, list[tuple[str, str | Callable[[random.Random], str]]]] = {
    "en": [
        ("hash", lambda r: f"The build is pinned to commit {hex_with_card_run(r, 40)}."),
        ("uuid without hyphens", lambda r: f"The request id in the logs was {hex_with_card_run(r, 32)}"),
        ("hash", lambda r: f"sha256 of the installer: {hex_with_card_run(r, 64)}"),
        ("token in a url", lambda r: f"The shared album is https://photos.example.com/s/{base64_with_card_run(r)}"),
        ("order number", "Amazon order 114-3941689-8772232 is still not here."),
        ("booking", "Booking reference X7K2LQ for the Lisbon flight."),
        ("booking", "Our Airbnb confirmation code is HMQ4ZT9KXB."),
        ("tracking number", "FedEx tracking 7749 1234 5678 arrives Friday."),
        ("licence plate", "My licence plate is KX19 VFA."),
        ("phone", "The passport office's number is 0300 222 0000."),
        ("words", "I never give my SSN over the phone."),
        ("date", "My passport expires in March 2031, I should renew it early."),
        ("words", "Passport photos cost me $16.99 at the pharmacy."),
        ("imei", "My phone's IMEI is 490154203237518."),
        ("employee id", "My employee ID number is 4821930."),
        ("words", "The SSN field on the form only takes 9 digits."),
    ],
    "de": [
        ("hash", lambda r: f"Der Commit {hex_with_card_run(r, 40)} hat den Fehler behoben."),
        ("uuid without hyphens", lambda r: f"Die Geräte-ID ist {hex_with_card_run(r, 32)}."),
        ("booking", "Die Buchungsnummer für das Hotel ist 4711-2231-88."),
        ("order number", "Bestellnummer 302-5582910-1134 ist unterwegs."),
        ("tracking number", "Sendungsnummer JJD0001234567890 bei DHL."),
        ("licence plate", "Mein Kennzeichen ist M-AB 1234."),
        ("customer number", "Meine Kundennummer bei den Stadtwerken ist 100234567."),
        ("date", "Mein Reisepass läuft im März 2029 ab."),
        ("company tax", "Unsere USt-IdNr. lautet DE136695976."),
        ("words", "Die Steuer-ID kommt in vier Wochen per Post."),
    ],
    "es": [
        ("hash", lambda r: f"El hash del archivo es {hex_with_card_run(r, 32)}."),
        ("booking", "El localizador de la reserva es 9M4TQX."),
        ("order number", "El número de pedido es 405-1234567-7654321."),
        ("tracking number", "Número de envío de Correos: PQ4F6P0700123450128001S."),
        ("licence plate", "La matrícula de mi coche es 1234 BCD."),
        ("date", "Mi DNI caduca el 12 de mayo de 2031."),
        ("company tax", lambda r: f"El NIF de la empresa es {spanish_company(r)}."),
        ("words", "Tengo que renovar el pasaporte antes del viaje."),
    ],
    "fr": [
        ("hash", lambda r: f"L'identifiant du fichier est {hex_with_card_run(r, 32)}."),
        ("booking", "La référence de ma réservation SNCF est QXZ4LM."),
        ("order number", "Numéro de commande : 1094-8832-6621."),
        ("tracking number", "Numéro de suivi Colissimo 6A18765432109."),
        ("licence plate", "Mon immatriculation est AB-123-CD."),
        ("case number", "Numéro de dossier CAF : 1234567."),
        ("date", "Ma carte d'identité est valable jusqu'en 2033."),
        ("company tax", "Le numéro de TVA de ma boîte est FR40303265045."),
    ],
    "zh": [
        ("hash", lambda r: f"这次提交的哈希是 {hex_with_card_run(r, 40)}。"),
        ("uuid without hyphens", lambda r: f"设备 ID：{hex_with_card_run(r, 32)}"),
        ("order number", "京东订单号 289473610582。"),
        ("tracking number", "中通快递单号 78912345678901。"),
        ("licence plate", "我的车牌号是京A12345。"),
        ("company tax", lambda r: f"我们公司的税号是{uscc_number(r)}，开发票用。"),
        ("words", "身份证丢了，补办要二十天。"),
        ("date", "我的护照2030年到期。"),
        ("booking", "酒店预订号 HX20481937。"),
    ],
}


def said_otherwise(rng: random.Random) -> list[tuple[str, str, str, str, str]]:
    """The batch's rows (lang, kind, split, secret, sentence): secrets, then look-alikes."""
    rows: list[tuple[str, str, str, str, str]] = []
    for lang, said in SAID_OTHERWISE.items():
        for kind, template, make in said:
            secret = make(rng)
            rows.append((lang, kind, "", secret, template.format(s=secret)))
    for lang, alikes in KEPT_OTHERWISE.items():
        for kind, sentence in alikes:
            rows.append((lang, "not:" + kind, "", "", sentence if isinstance(sentence, str) else sentence(rng)))
    return [
        (lang, kind, _split_by_hash(sentence) if not template_of_issue(sentence) else "dev", secret, sentence)
        for lang, kind, _, secret, sentence in rows
    ]


def template_of_issue(sentence: str) -> bool:
    """One of the issue's own sentences (seen before the rules were written: never held out)."""
    return any(sentence.startswith(start) for start in ISSUE_SENTENCES)


def _split_by_hash(sentence: str) -> str:
    return "test" if int(hashlib.md5(sentence.encode()).hexdigest(), 16) % 2 else "dev"


def main() -> None:
    rng = random.Random(20261127)
    rows: list[tuple[str, str, str, str]] = []  # lang, kind, secret, sentence
    kinds = list(SECRETS)
    # Each kind in every language, each time with another template: 37 kinds x 5 languages.
    for n, (lang, templates) in enumerate(TEMPLATES.items()):
        for i, kind in enumerate(kinds):
            name, make = SECRETS[kind]
            secret = make(rng)
            template = templates[(i + n) % len(templates)]
            rows.append((lang, kind, secret, template.format(name=name, s=secret)))
    for lang, stated in STATED.items():
        for kind, template, make in stated:
            secret = make(rng)
            rows.append((lang, kind, secret, template.format(s=secret)))
    for lang, alikes in LOOK_ALIKES.items():
        for kind, sentence in alikes:
            rows.append((lang, "not:" + kind, "", sentence) if sentence not in RELABELLED else RELABELLED[sentence])
    for lang, said in SAID.items():
        for kind, template, make in said:
            secret = make(rng)
            rows.append((lang, kind, secret, template.format(s=secret)))
    for lang, alikes in KEPT.items():
        for kind, sentence in alikes:
            rows.append((lang, "not:" + kind, "", sentence))
    later = said_otherwise(rng)
    lines = ["# engrain secret corpus (bench/make_secret_corpus.py; tests/data/README.md): " + ", ".join(COLUMNS)]
    for i, (lang, kind, secret, sentence) in enumerate(rows):
        split = "test" if i % 3 == 2 else "dev"  # a third held out
        escaped = sentence.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")
        lines.append("\t".join((lang, kind, split, secret.replace("\n", "\\n"), escaped)))
    for lang, kind, split, secret, sentence in later:
        escaped = sentence.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")
        lines.append("\t".join((lang, kind, split, secret, escaped)))
    rows += [(lang, kind, secret, sentence) for lang, kind, _, secret, sentence in later]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    secrets = sum(1 for r in rows if r[2])
    print(
        json.dumps({"secrets": secrets, "kinds": len({r[1] for r in rows if r[2]}), "look_alikes": len(rows) - secrets})
    )


if __name__ == "__main__":
    main()
