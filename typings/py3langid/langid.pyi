from collections.abc import Sequence
from pathlib import Path

MODEL_DIR: Path
MODEL_FILE: str

class LanguageIdentifier:
    @classmethod
    def from_modelpath(cls, path: str | Path, norm_probs: bool = True) -> LanguageIdentifier: ...
    def set_languages(self, langs: Sequence[str] | None = None) -> None: ...
    def classify(self, instance: str) -> tuple[str, float]: ...
