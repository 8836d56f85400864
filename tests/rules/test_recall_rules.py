"""The recall score and memory retention are written twice in rules/ (Python, and the SQL storage runs);
evaluated in PostgreSQL on the same values, the two agree."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from engrain.rules import recall as rules
from engrain.rules import retention
from engrain.storage.sqltext import safe_exp
from tests.conftest import scalar

pytestmark = pytest.mark.anyio

TERMS = (
    "vector",
    "text",
    "lexical",
    "temporal",
    "slot",
    "standing",
    "recency",
    "importance",
    "trait_boost",
    "penalty",
)


async def test_the_sql_score_agrees_with_the_python_score(session):
    _, app = session
    cases: list[dict[str, Any]] = [
        dict(zip(TERMS, values, strict=True), bridge=bridge)
        for values, bridge in zip(
            itertools.product(
                (0.0, 0.97),
                (False, True),
                (0.0, 0.6),
                (0.0, 0.15),
                (0.0, 0.3),
                (0.0, 0.5),
                (1.0, 0.2),
                (0.5,),
                (0.25,),
                (1.0, 0.5),
            ),
            itertools.cycle((0.0, 0.1)),
        )
    ]
    for case in cases:
        columns = ", ".join(f"CAST(:{t} AS {'boolean' if t == 'text' else 'float8'}) AS {t}" for t in TERMS)
        sql = f"SELECT {rules.score_sql(':bridge')} FROM (SELECT {columns}) t"
        got = await scalar(app, sql, **{k: v for k, v in case.items()})
        assert got == pytest.approx(rules.score(**case), rel=1e-12), case


async def test_the_sql_recency_and_redundancy_agree_with_python(session):
    _, app = session
    for age, decay, arousal in itertools.product((-3600.0, 0.0, 86400.0 * 40, 86400.0 * 365 * 60), (2.6e6,), (0, 0.8)):
        exponent = rules.recency_exponent_sql(
            "CAST(:age AS float8)", "CAST(:decay AS float8)", "CAST(:arousal AS float8)"
        )
        got = await scalar(app, f"SELECT {safe_exp(exponent)}", age=age, decay=decay, arousal=arousal)
        assert got == pytest.approx(rules.recency(age, decay, arousal), rel=1e-12, abs=1e-300)
    for first, closest in itertools.product((0.4, 1.3), (0.2, 0.5, 0.8, 1.0)):
        sql = rules.redundancy_sql("CAST(:first AS float8)", "CAST(:closest AS float8)")
        got = await scalar(app, f"SELECT {sql}", first=first, closest=closest)
        assert got == pytest.approx(rules.redundancy(first, closest), rel=1e-12, abs=1e-15)


async def test_the_sql_retention_agrees_with_python(session):
    _, app = session
    for days, uses, lam in itertools.product((0.0, 3.0, 40.0, 9000.0), (0, 1, 25), (0.02, 0.3)):
        exponent = retention.idle_exponent_sql(":lam", "CAST(:days AS float8)")
        sql = retention.retention_sql(safe_exp(exponent), "CAST(:uses AS int)")
        got = await scalar(app, f"SELECT {sql}", lam=lam, days=days, uses=uses)
        assert got == pytest.approx(retention.retention(days, uses, lam), rel=1e-12, abs=1e-300)
    assert retention.params("sensitive") == (0.3, 0.2) and retention.params("fast", 0.5) == (0.5, 0.15)
