"""Settings, read once from ENGRAIN_* environment variables (pydantic-settings).

Every knob a user can turn lives here so that the CLI, the server and the tests
agree on names and defaults.
"""

from __future__ import annotations

import difflib
import getpass
import re
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

# The retention rules are pure (rules/ imports nothing of engrain), so this leaf may use them.
from engrain.home import default_home
from engrain.rules import retention
from engrain.rules.retention import ProfileName

# What ENGRAIN_REDACT replaces before a text is stored (reading/redaction.py): credentials, also contact details, or
# nothing.
RedactMode = Literal["secrets", "secrets+contact", "off"]
_SECRET_FIELDS = {"database_url", "tokens", "llm_api_key", "embedder_api_key"}  # never echoed in an error
_POSTGRES_SCHEME = re.compile(r"^postgres(?:ql)?(?:\+[a-z0-9_]+)?$")


def describe_settings_error(error: ValidationError) -> str:
    """A settings error as one line that names each environment variable and what it accepts."""
    parts: list[str] = []
    for err in error.errors():
        field = str(err["loc"][0]) if err["loc"] else "settings"
        message = str(err["msg"]).removeprefix("Value error, ")
        given = err.get("input")
        echo = isinstance(given, str) and field not in _SECRET_FIELDS and not message.startswith(repr(given))
        shown = f"={given!r}" if echo else ""
        parts.append(f"ENGRAIN_{field.upper()}{shown}: {message}")
    return "; ".join(parts)


def unknown_settings(environ: Mapping[str, str]) -> list[str]:
    """A line for each ENGRAIN_* variable that is no setting ("ENGRAIN_TIMEZON"), with the setting it most
    likely meant: such a variable was ignored without a word, and the server ran on the default."""
    names = sorted(n for n in environ if n.startswith("ENGRAIN_"))
    return [f"{line}; it is ignored" for name in names if (line := unknown_setting(name))]


def unknown_setting(name: str) -> str | None:
    """Why `name` is no setting of engrain, with the setting it most likely meant; None for a setting."""
    known = {f"ENGRAIN_{field.upper()}" for field in Settings.model_fields}
    if name in known:
        return None
    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
    return f"{name} is not a setting of engrain" + (f" (did you mean {close[0]}?)" if close else "")


def os_user() -> str:
    """The OS user's name: what older engrains used as the default user outside mcp.json
    (services/memories/local_user.py)."""
    try:
        return getpass.getuser()
    except Exception:  # no passwd entry (containers): fall back to a stable name
        return "default"


class Settings(BaseSettings):
    """Runtime configuration. Field `x` is set by the environment variable `ENGRAIN_X`."""

    model_config = SettingsConfigDict(env_prefix="ENGRAIN_", extra="ignore")

    database_url: str | None = Field(
        default=None, description="PostgreSQL URL (>= 15 with pgvector). Unset: embedded Postgres in home."
    )
    home: Path = Field(default_factory=default_home, description="Data dir: embedded Postgres, models.")
    model_dir: Path | None = Field(
        default=None,
        description="Where models are kept (downloads, the ONNX export of the packaged model); default "
        "ENGRAIN_HOME/models. Several homes may share one.",
    )
    pg_shared_buffers: str = Field(
        default="512MB",
        pattern=r"^[1-9][0-9]*(kB|MB|GB)$",
        description="shared_buffers of the embedded Postgres (applied at its start).",
    )
    user: str = Field(
        default="",
        description="The user of a local session (stdio, the CLI, the page); unset: the machine's one local user "
        "(`me`, or the OS user's name where an older engrain stored memories under it: "
        "services/memories/local_user.py); empty is unset.",
    )
    timezone: str | None = Field(default=None, description="IANA zone for relative dates; default local.")
    embedder: str = Field(
        default="auto",
        description="auto | hash | use-multilingual | minilm-int8 | fastembed:<m> | sentence-transformers:<m>[@int8]"
        " | openai-compatible:<base_url>:<model>",
    )
    embedder_api_key: str | None = Field(default=None, description="Bearer key for openai-compatible.")
    llm: str = Field(
        default="auto",
        description="auto | none | sampling | host | anthropic[:model] | openai-compatible:<base_url>[:model]",
    )
    llm_base_url: str | None = Field(
        default=None,
        description="auto: an openai-compatible server to use when no "
        "Anthropic key is set, e.g. http://localhost:11434/v1 (with ENGRAIN_LLM_MODEL).",
    )
    llm_model: str | None = Field(default=None, description="The model of ENGRAIN_LLM_BASE_URL.")
    host_task_ttl: float = Field(
        default=3600.0, gt=0, description="Seconds a task handed to the calling model stays answerable."
    )
    llm_api_key: str | None = Field(default=None, description="Bearer key for an openai-compatible LLM.")
    fetch_models: bool = Field(
        default=True,
        description="fastembed:<model>: fetch the named model from the model hub on first use (false: only a "
        "model already in the cache loads). `auto` never fetches: it serves the models inside pip packages.",
    )
    recall_timeout_ms: int = Field(default=2000, ge=50, description="Statement timeout of one recall.")
    decay_rate_days: float = Field(default=30.0, gt=0, description="Recency half-scale of recall, in days.")
    scheduler: Literal["on", "off"] = Field(default="on", description="off: no job loop inside the server.")
    scheduler_interval: float = Field(default=900.0, ge=1.0, description="Seconds between runs of each job.")
    session_end_timeout: float = Field(
        default=1.0,
        ge=0.0,
        description="Bound of the end-of-session digest (s). Clients kill a server that takes a few seconds to "
        "exit; what is not digested then, the next session or the worker digests.",
    )
    forget_mode: Literal["archive", "delete"] = Field(
        default="archive", description="What retention does to a faded memory."
    )
    retention: Literal["on", "off"] = Field(default="on", description="off: memories never fade (traits still decay).")
    retention_profile: ProfileName = "default"
    retention_lambda: float | None = Field(default=None, gt=0, description="Overrides the profile's λ (per day).")
    retention_threshold: float | None = Field(
        default=None, gt=0, lt=1, description="Overrides the profile's threshold."
    )
    retention_min_age_days: float = Field(default=7.0, ge=0, description="Younger memories never fade.")
    log_level: str = "INFO"
    tokens: str | None = Field(
        default=None,
        description="HTTP/SSE bearer tokens: a file, or an inline mapping "
        "'token:user,token:user' / a JSON object {token: user}.",
    )
    metrics_public: bool = Field(default=False, description="Serve /metrics without a token.")
    http_max_connections: int = Field(
        default=1000, ge=1, description="HTTP/SSE: open connections at most (kept below the open-file limit)."
    )
    http_head_timeout: float = Field(
        default=10.0, gt=0, description="HTTP/SSE: seconds a connection has to send a whole request head."
    )
    http_body_timeout: float = Field(
        default=60.0, gt=0, description="HTTP/SSE: seconds a request has to send its whole body."
    )
    http_idle_timeout: float = Field(
        default=5.0, gt=0, description="HTTP/SSE: seconds an idle keep-alive connection stays open."
    )
    allowed_hosts: str | None = Field(
        default=None,
        description="HTTP/SSE: Host header values accepted besides loopback, comma-separated "
        "(`name:*` for any port), e.g. 'memory.example.com,10.0.0.5:8765'.",
    )
    allowed_origins: str | None = Field(
        default=None,
        description="HTTP/SSE: browser Origins accepted besides loopback ones, comma-separated "
        "(`http://name:*` for any port).",
    )
    max_memories_per_user: int | None = Field(
        default=None, ge=1, description="Quota of live memories per user (traits not counted); unset: no quota."
    )
    llm_timeout: float = Field(default=60.0, gt=0, description="Seconds before an LLM call is abandoned.")
    redact: RedactMode = Field(
        default="secrets",
        description="What is replaced by a placeholder before a text is stored: secrets (keys, tokens, "
        "passwords, card numbers, IBANs), secrets+contact (also e-mail addresses and phone numbers), or off.",
    )

    @field_validator("user")
    @classmethod
    def _named_user(cls, value: str) -> str:
        return value.strip()

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        try:
            ZoneInfo(value.strip())
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(
                f"{value!r} is not a known IANA time zone; use a name such as Europe/Lisbon, "
                "America/New_York or UTC, or leave it unset for the machine's zone"
            ) from None
        return value.strip()

    @field_validator("database_url")
    @classmethod
    def _postgres_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        parts = urlsplit(value.strip())
        if not _POSTGRES_SCHEME.match(parts.scheme) or not (parts.hostname or "host=" in parts.query):
            raise ValueError(
                "is not a PostgreSQL URL; use postgresql://user:password@host:5432/dbname, "
                "or leave it unset for the embedded database"
            )
        return value.strip()

    @field_validator("llm_base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        parts = urlsplit(value.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("is not an http(s) URL; use for example http://localhost:11434/v1")
        return value.strip()

    @cached_property
    def tz(self) -> ZoneInfo | None:
        """The user's zone; None means the machine's local zone."""
        return ZoneInfo(self.timezone) if self.timezone else None

    @property
    def retention_params(self) -> tuple[float, float]:
        """(λ per day, threshold): the profile's, with explicit settings winning."""
        return retention.params(self.retention_profile, self.retention_lambda, self.retention_threshold)

    @property
    def models_dir(self) -> Path:
        return self.model_dir or self.home / "models"

    @property
    def pgdata(self) -> Path:
        return self.home / "pgdata"
