"""Secrets are never stored: credentials in a text become typed placeholders (`[secret: OpenAI API key]`)
before the text is embedded, indexed, logged or written (docs/SPEC.md §5, "Secrets").

What counts, and who finds it:
- Provider keys and tokens with a known shape: detect-secrets' plugins (AWS, GitHub, GitLab, Slack,
  Stripe, Twilio, SendGrid, JWT, …), run on each candidate token, and engrain's own shapes for the
  providers those plugins do not know (model providers, source hosting, clouds: `_SHAPES`).
- Private keys (the whole PEM/OpenSSH block), bearer tokens, the password of a connection string or an
  `X_PASSWORD=` assignment, and a key, token, password or PIN the user states ("my wifi password is
  sunshine42", "我的密码是…", "mein Passwort ist …") in English, Chinese, German, Spanish and French.
- Payment card numbers (an issuer's prefix and length, and the Luhn check; a token of their own, never a run of
  digits inside a hash) and IBANs (their check digits): python-stdnum validates both.
- Identity numbers (social security, identity card, passport, personal tax and driving licence numbers) named in
  five languages, or checked by their issuers' rules: reading/identity_numbers.py.
- With ENGRAIN_REDACT=secrets+contact, also e-mail addresses and phone numbers (`phonenumbers`).
Ordinary personal facts (an address, a phone number, an e-mail) are the user's memory and stay by default.

Every rule is linear in the text: the patterns that scan the whole text are anchored on a boundary and
bounded, and the plugins, whose patterns backtrack, only ever see one token of at most MAX_TOKEN characters.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, cast

from detect_secrets.plugins.artifactory import ArtifactoryDetector
from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.mailchimp import MailchimpDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.square_oauth import SquareOAuthDetector
from detect_secrets.plugins.stripe import StripeDetector
from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
from detect_secrets.plugins.twilio import TwilioKeyDetector
from stdnum import iban, luhn

from engrain.config import RedactMode
from engrain.reading import identity_numbers as identity
from engrain.reading.stated_secrets import NOT_A_VALUE, code_or_example, stated

MAX_TOKEN = 512  # the longest token a plugin sees: their patterns backtrack, so each token's cost is bounded
_MIN_TOKEN = 16  # shorter tokens hold no provider key (the stated and structured rules find short secrets)

# detect-secrets' plugins that recognise a provider's token by its shape alone. Left out: the keyword
# and high-entropy plugins, written for source code (in prose they take git hashes and UUIDs for keys),
# and the public-IP one (an address is no secret).
_PLUGINS: tuple[tuple[RegexBasedDetector, str], ...] = (
    (AWSKeyDetector(), "AWS access key"),
    (ArtifactoryDetector(), "Artifactory token"),
    (AzureStorageKeyDetector(), "Azure storage key"),
    (DiscordBotTokenDetector(), "Discord bot token"),
    (GitHubTokenDetector(), "GitHub token"),
    (GitLabTokenDetector(), "GitLab token"),
    (JwtTokenDetector(), "JSON web token"),
    (MailchimpDetector(), "Mailchimp API key"),
    (OpenAIDetector(), "OpenAI API key"),
    (PypiTokenDetector(), "PyPI token"),
    (SendGridDetector(), "SendGrid API key"),
    (SlackDetector(), "Slack token"),
    (SquareOAuthDetector(), "Square OAuth secret"),
    (StripeDetector(), "Stripe API key"),
    (TelegramBotTokenDetector(), "Telegram bot token"),
    (TwilioKeyDetector(), "Twilio API key"),
)

_TOKEN_CHARS = r"A-Za-z0-9_\-.~+/=:@%"
# A candidate token: a run of the characters keys are made of, of MIN_TOKEN or more, with a digit in it.
_TOKEN = re.compile(rf"(?<![{_TOKEN_CHARS}])[{_TOKEN_CHARS}]{{{_MIN_TOKEN},}}+")


def _shape(prefix: str, body: str) -> re.Pattern[str]:
    """A provider's token: its prefix at a token boundary, then its body (possessive: no backtracking)."""
    return re.compile(rf"(?<![A-Za-z0-9_\-]){prefix}{body}(?![A-Za-z0-9_\-])")


# Providers the plugins do not know (or only in an older form): label → the token's shape.
_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("Anthropic API key", _shape(r"sk-ant-(?:api|admin|oat|sid)\d\d-", r"[A-Za-z0-9_\-]{20,}+")),
    ("OpenAI API key", _shape(r"sk-(?:proj|svcacct|admin|None)-", r"[A-Za-z0-9_\-]{20,}+")),
    ("OpenAI API key", _shape(r"sk-", r"[A-Za-z0-9]{32,}+")),
    ("Google API key", _shape(r"AIza", r"[0-9A-Za-z_\-]{35}")),
    ("Google OAuth client secret", _shape(r"GOCSPX-", r"[A-Za-z0-9_\-]{20,}+")),
    ("Hugging Face token", _shape(r"hf_", r"[A-Za-z0-9]{30,}+")),
    ("GitHub token", _shape(r"github_pat_", r"[A-Za-z0-9_]{22,}+")),
    ("GitHub token", _shape(r"gh[pousr]_", r"[A-Za-z0-9_]{30,}+")),
    ("Groq API key", _shape(r"gsk_", r"[A-Za-z0-9]{40,}+")),
    ("xAI API key", _shape(r"xai-", r"[A-Za-z0-9]{40,}+")),
    ("Replicate API token", _shape(r"r8_", r"[A-Za-z0-9]{30,}+")),
    ("Perplexity API key", _shape(r"pplx-", r"[A-Za-z0-9]{40,}+")),
    ("DigitalOcean token", _shape(r"do[opr]_v1_", r"[a-f0-9]{64}")),
    ("Shopify access token", _shape(r"shp(?:at|ca|pa|ss)_", r"[a-fA-F0-9]{32}")),
    ("npm token", _shape(r"npm_", r"[A-Za-z0-9]{36}")),
    ("Stripe API key", _shape(r"(?:sk|rk)_(?:test|live)_", r"[0-9a-zA-Z]{16,}+")),
    ("Stripe webhook secret", _shape(r"whsec_", r"[A-Za-z0-9]{24,}+")),
    ("Slack token", _shape(r"xapp-\d-", r"[A-Za-z0-9\-]{20,}+")),
    ("Databricks token", _shape(r"dapi", r"[a-f0-9]{32}(?:-\d)?")),
    ("HashiCorp Vault token", _shape(r"hv[sb]\.", r"[A-Za-z0-9_\-]{24,}+")),
    ("Docker Hub token", _shape(r"dckr_pat_", r"[A-Za-z0-9_\-]{20,}+")),
    ("Sentry token", _shape(r"sntr[yu]s?_", r"[A-Za-z0-9+/=_\-]{30,}+")),
    ("Linear API key", _shape(r"lin_api_", r"[A-Za-z0-9]{30,}+")),
    ("Notion token", _shape(r"(?:secret|ntn)_", r"[A-Za-z0-9]{40,}+")),
    ("Atlassian API token", _shape(r"ATATT3", r"[A-Za-z0-9_=\-]{60,}+")),
    ("Figma token", _shape(r"figd_", r"[A-Za-z0-9_\-]{30,}+")),
    ("Postman API key", _shape(r"PMAK-", r"[a-f0-9]{24}-[a-f0-9]{34}")),
    ("Supabase token", _shape(r"sbp_", r"[a-f0-9]{40}")),
    ("Mailgun API key", _shape(r"key-", r"[a-f0-9]{32}")),
    ("Cloudflare API token", _shape(r"(?:cfat|cfut)_", r"[A-Za-z0-9_\-]{30,}+")),
    ("Azure storage key", _shape(r"(?<![A-Za-z0-9+/])(?<!sha512-)", r"[A-Za-z0-9+/]{86}==")),
    ("JSON web token", _shape(r"eyJ", r"[A-Za-z0-9_\-]{8,}+\.eyJ[A-Za-z0-9_\-]{8,}+\.[A-Za-z0-9_\-]{8,}+")),
)

# A PEM or OpenSSH private key, header to footer (or to the end of the text when it was cut).
_PRIVATE_KEY = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[A-Za-z0-9+/=\s:,\-]*+"
    r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)?"
    r"|PuTTY-User-Key-File-\d: [^\n]*+(?:\n[A-Za-z\-]+: [^\n]*+|\n[A-Za-z0-9+/=]++)*+"
)
# `Authorization: Bearer <token>`, `Basic <credentials>`.
_BEARER = re.compile(r"(?i)(?<![A-Za-z])(?:bearer|basic|token)\s++([A-Za-z0-9_\-.~+/]{16,}+=*+)")
# The password of a URL (`postgres://app:s3cret@db/app`): from after the user's colon to the last @.
_URL_PASSWORD = re.compile(r"(?i)\b[a-z][a-z0-9+.\-]{1,20}+://[^\s:/@?#\[\]]{1,128}+:([^\s/?#\[\]@]{1,256}+)@")
# An assignment whose name says what it holds: `DB_PASSWORD=…`, `"api_key": "…"`, `Password=…;`.
_ASSIGNED = re.compile(
    r"(?i)(?<![A-Za-z])(?P<name>passw(?:or)?d|passwd|pwd|secret|api[_\-]?key|access[_\-]?key|private[_\-]?key|"
    r"auth[_\-]?token|access[_\-]?token|refresh[_\-]?token|client[_\-]?secret|token|accountkey|sharedaccesskey)"
    r"[A-Za-z0-9_]{0,20}+[\"']?\s{0,3}+(?:=|:=|:|=>)\s{0,3}+[\"']?(?P<value>[^\s\"',;]{4,256}+)"
)
# A card number: 13–19 digits, maybe grouped by spaces or hyphens, a token of its own: not part of a longer number,
# nor of a word of letters and digits (a hash, a commit id, a UUID without hyphens whose digits hold a run that
# passes Luhn: "75f…cdbf5444de84a00" lost its middle).
_CARD = re.compile(r"(?<![A-Za-z0-9_\-])\d(?:[ \-]?\d){12,18}(?![A-Za-z0-9_]|-\d)")
_CARD_PREFIXES = re.compile(
    r"^(?:4|5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720)|3[47]|3(?:0[0-5]|[68])|6(?:011|5|4[4-9]|2)|35)"
)
_CARD_LENGTHS = {"3": (14, 15, 16, 19), "4": (13, 16, 19), "5": (16,), "2": (16,), "6": (16, 17, 18, 19)}
# An IBAN: country, check digits, then 11–30 letters and digits, maybe grouped by spaces.
_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])")
_EMAIL = re.compile(r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]{1,64}+@[A-Za-z0-9\-]{1,63}+(?:\.[A-Za-z0-9\-]{1,63}+)+")


@dataclass
class Redaction:
    """A text with its secrets replaced, and how many of each kind were (label → count)."""

    text: str
    kinds: dict[str, int] = field(default_factory=dict[str, int])

    @property
    def count(self) -> int:
        return sum(self.kinds.values())


_PLACEHOLDER = re.compile(r"\[(?:secret|contact): [^\[\]\n]{1,60}+\]")


def placeholder(label: str, contact: bool = False) -> str:
    return f"[{'contact' if contact else 'secret'}: {label}]"


@dataclass(frozen=True)
class _Hit:
    start: int
    end: int
    label: str
    contact: bool = False


def _token_hits(text: str) -> Iterator[_Hit]:
    """Provider keys, token by token: engrain's shapes first, then detect-secrets' plugins (on tokens of at
    most MAX_TOKEN characters: their patterns backtrack, so a token's cost is bounded). A plugin's finding
    is widened to its whole token."""
    for token in _TOKEN.finditer(text):
        word, at = token.group().rstrip(".,:;!?"), token.start()
        found = False
        for label, pattern in _SHAPES:
            for m in pattern.finditer(word):
                if label != "JSON web token" or JwtTokenDetector.is_formally_valid(m.group()):
                    found = True
                    yield _Hit(at + m.start(), at + m.end(), label)
        if found or len(word) > MAX_TOKEN or not any(c.isdigit() for c in word):
            continue
        for plugin, label in _PLUGINS:
            if any(True for _ in plugin.analyze_string(word)):
                yield _Hit(at, at + len(word), label)
                break


def _structured_hits(text: str, lower: str) -> Iterator[_Hit]:
    """Private keys, bearer tokens, passwords in URLs and in assignments, each looked for only when a word
    it needs is in the text."""
    if "private key" in lower or "putty-user-key" in lower:
        for m in _PRIVATE_KEY.finditer(text):
            yield _Hit(m.start(), m.end(), "private key")
    if "bearer" in lower or "basic" in lower or "token" in lower:
        for m in _BEARER.finditer(text):
            if any(c.isdigit() for c in m.group(1)):
                yield _Hit(m.start(1), m.end(1), "bearer token")
    if "://" in text:
        for m in _URL_PASSWORD.finditer(text):
            yield _Hit(m.start(1), m.end(1), "password")
    if any(cue in lower for cue in ("pass", "pwd", "secret", "key", "token")):
        for m in _ASSIGNED.finditer(text):
            value, name = m.group("value"), m.group("name").lower()
            if value.startswith(("[secret:", "[contact:", "$", "{", "<", "%")) or value.lower() in NOT_A_VALUE:
                continue  # a placeholder, a variable, a template
            if code_or_example(value):
                continue
            label = (
                "password" if "pass" in name or "pwd" in name else "access token" if "token" in name else "credential"
            )
            yield _Hit(m.start("value"), m.end("value"), label)


def _card_hits(text: str) -> Iterator[_Hit]:
    for m in _CARD.finditer(text):
        digits = re.sub(r"[ \-]", "", m.group())
        if (
            _CARD_PREFIXES.match(digits)
            and len(digits) in _CARD_LENGTHS.get(digits[0], ())
            and luhn.is_valid(digits)
            and len(set(digits)) > 1
        ):
            yield _Hit(m.start(), m.end(), "card number")


def _iban_hits(text: str) -> Iterator[_Hit]:
    for m in _IBAN.finditer(text):
        candidate = m.group()
        # Grouped by four, a trailing word may have been taken in: try the longest valid prefix.
        while candidate:
            if iban.is_valid(candidate):
                yield _Hit(m.start(), m.start() + len(candidate), "IBAN")
                break
            cut = candidate.rfind(" ")
            candidate = candidate[:cut] if cut > 0 else ""


def _contact_hits(text: str) -> Iterator[_Hit]:
    import phonenumbers  # only ENGRAIN_REDACT=secrets+contact needs it (tens of milliseconds to import)

    for m in _EMAIL.finditer(text):
        yield _Hit(m.start(), m.end(), "e-mail address", contact=True)
    for region in ("US", "GB", "DE", "FR", "ES", "CN"):
        for match in phonenumbers.PhoneNumberMatcher(text, region, leniency=phonenumbers.Leniency.VALID):
            yield _Hit(match.start, match.end, "phone number", contact=True)


def redact(text: str, mode: RedactMode = "secrets") -> Redaction:
    """`text` with every secret (and, in `secrets+contact`, every e-mail and phone number) replaced by its
    placeholder. Overlapping findings are one: the earliest, longest. A placeholder is never redacted again."""
    if mode == "off" or not text:
        return Redaction(text)
    lower = text.lower()
    hits = [
        *_token_hits(text),
        *_structured_hits(text, lower),
        *(_Hit(start, end, label) for start, end, label in stated(text, lower)),
        *(_Hit(start, end, label) for start, end, label in identity.identity_numbers(text)),
        *_card_hits(text),
        *_iban_hits(text),
    ]
    if mode == "secrets+contact":
        hits += _contact_hits(text)
    # A placeholder is never redacted again ("[secret: GitHub token]" holds "secret: GitHub").
    kept = [(m.start(), m.end()) for m in _PLACEHOLDER.finditer(text)] if "[" in text else []
    hits = [h for h in hits if not any(h.start < end and start < h.end for start, end in kept)]
    if not hits:
        return Redaction(text)
    hits.sort(key=lambda h: (h.start, -h.end))
    parts: list[str] = []
    kinds: Counter[str] = Counter()
    at = 0
    for hit in hits:
        if hit.start < at:
            continue  # inside a finding already replaced
        parts += [text[at : hit.start], placeholder(hit.label, hit.contact)]
        kinds[hit.label] += 1
        at = hit.end
    parts.append(text[at:])
    return Redaction("".join(parts), dict(kinds))


def redact_value(value: Any, mode: RedactMode, kinds: Counter[str]) -> Any:
    """Every string inside a JSON value (a memory's metadata) redacted; the counts are added to `kinds`."""
    if isinstance(value, str):
        done = redact(value, mode)
        kinds.update(done.kinds)
        return done.text
    if isinstance(value, list):
        return [redact_value(v, mode, kinds) for v in cast(list[Any], value)]
    if isinstance(value, dict):
        return {k: redact_value(v, mode, kinds) for k, v in cast(dict[str, Any], value).items()}
    return value


def summary(kinds: dict[str, int]) -> str:
    """ "2 secrets (OpenAI API key, password)" for a tool's text; "" when nothing was redacted."""
    total = sum(kinds.values())
    if not total:
        return ""
    named = ", ".join(f"{n} × {label}" if n > 1 else label for label, n in sorted(kinds.items()))
    return f"{total} secret{'s' if total != 1 else ''} ({named})"


# Bumped whenever the rules above change what they find: the stored rows are then read again (a server runs
# the pass once per version and mode, services/memories/redacting.StoredSecrets).
RULES_VERSION = 3  # 3: identity numbers by their names in five languages; a card is a token of its own
