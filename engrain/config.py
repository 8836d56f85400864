"""Settings, read once from ENGRAIN_* environment variables (pydantic-settings).

Every knob a user can turn lives here so that the CLI, the server and the tests
agree on names and defaults.
"""

from __future__ import annotations

import getpass
import os
from functools import cached_property
from pathlib import Path
from zoneinfo import ZoneInfo

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


def _default_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no passwd entry (containers): fall back to a stable name
        return "default"


def _default_home() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "engrain"


class Settings(BaseSettings):
    """Runtime configuration. Field `x` is set by the environment variable `ENGRAIN_X`."""

    model_config = SettingsConfigDict(env_prefix="ENGRAIN_", extra="ignore")

    database_url: str | None = Field(
        default=None, description="PostgreSQL URL (>= 15 with pgvector). Unset: embedded Postgres in home."
    )
    home: Path = Field(default_factory=_default_home, description="Data dir: embedded Postgres, models.")
    user: str = Field(default_factory=_default_user, description="The user of a stdio session.")
    timezone: str | None = Field(default=None, description="IANA zone for relative dates; default local.")
    embedder: str = Field(default="auto", description="auto | hash | fastembed:<m> | sentence-transformers:<m> "
                          "| openai-compatible:<base_url>:<model>")
    embedder_api_key: str | None = Field(default=None, description="Bearer key for openai-compatible.")
    llm: str = Field(default="auto", description="auto | none | sampling | anthropic[:model] "
                     "| openai-compatible:<base_url>[:model]")
    llm_api_key: str | None = Field(default=None, description="Bearer key for an openai-compatible LLM.")
    fetch_models: bool = Field(default=True, description="auto: try to fetch a better model in the background.")
    recall_timeout_ms: int = Field(default=2000, ge=50, description="Statement timeout of one recall.")
    decay_rate_days: float = Field(default=30.0, gt=0, description="Recency half-scale of recall, in days.")
    log_level: str = "INFO"

    @cached_property
    def tz(self) -> ZoneInfo | None:
        """The user's zone; None means the machine's local zone."""
        return ZoneInfo(self.timezone) if self.timezone else None

    @property
    def models_dir(self) -> Path:
        return self.home / "models"

    @property
    def pgdata(self) -> Path:
        return self.home / "pgdata"
