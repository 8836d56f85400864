"""Prometheus metrics of a server process (served at /metrics over HTTP).

Per-tool and per-resource calls, errors and latency (observed by `tools.common`), scheduled job
runs and durations (observed by the scheduler), and the database pool, read at scrape time.
One registry per process: everything in the process reports into it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from sqlalchemy.pool import Pool

REGISTRY = CollectorRegistry()
_LATENCY_BUCKETS = (0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


@dataclass(frozen=True)
class Surface:
    """Calls, errors by kind and latency of one kind of request (tools, resources), by name."""

    calls: Counter
    errors: Counter
    latency: Histogram

    def observe(self, name: str, kind: str, seconds: float) -> None:
        self.calls.labels(name).inc()
        self.latency.labels(name).observe(seconds)
        if kind != "ok":
            self.errors.labels(name, kind).inc()


def _surface(what: str, noun: str) -> Surface:
    """engrain_<what>_calls / _errors / _duration_seconds, labelled by the <what>'s name."""
    return Surface(
        Counter(f"engrain_{what}_calls", f"MCP {noun}.", [what], registry=REGISTRY),
        Counter(
            f"engrain_{what}_errors", f"MCP {noun} that answered an error, by kind.", [what, "kind"], registry=REGISTRY
        ),
        Histogram(
            f"engrain_{what}_duration_seconds",
            f"Time to answer MCP {noun}.",
            [what],
            buckets=_LATENCY_BUCKETS,
            registry=REGISTRY,
        ),
    )


TOOLS = _surface("tool", "tool calls")
RESOURCES = _surface("resource", "resource reads")
JOB_RUNS = Counter("engrain_job_runs", "Scheduled job runs, by result.", ["job", "status"], registry=REGISTRY)
JOB_DURATION = Histogram(
    "engrain_job_duration_seconds",
    "Duration of scheduled job runs.",
    ["job"],
    buckets=(0.01, 0.05, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 300.0),
    registry=REGISTRY,
)


class PoolCollector(Collector):
    """Connections of the SQLAlchemy pool of one database, read when scraped (a leaf module: it is handed
    the pool, and knows nothing of the storage layer)."""

    def __init__(self, pool_if_open: Callable[[], Pool | None]) -> None:
        self.pool_if_open = pool_if_open

    def collect(self) -> Iterator[GaugeMetricFamily]:
        pool = self.pool_if_open()
        gauges = {
            "engrain_db_pool_size": ("Connections the pool keeps.", "size"),
            "engrain_db_pool_checked_out": ("Connections in use.", "checkedout"),
            "engrain_db_pool_overflow": ("Connections open beyond the pool size.", "overflow"),
        }
        for name, (doc, method) in gauges.items():
            family = GaugeMetricFamily(name, doc)
            if pool is not None and hasattr(pool, method):
                # SQLAlchemy counts overflow from minus the pool size (-10 with nothing open): a gauge of
                # connections beyond the pool starts at 0.
                value = float(getattr(pool, method)())
                family.add_metric([], max(0.0, value) if method == "overflow" else value)
            yield family


_pool_collector: PoolCollector | None = None


def watch_pool(pool_if_open: Callable[[], Pool | None]) -> None:
    """Report this pool (the HTTP server has exactly one database); None while the database is not open."""
    global _pool_collector
    if _pool_collector is not None:
        REGISTRY.unregister(_pool_collector)
    _pool_collector = PoolCollector(pool_if_open)
    REGISTRY.register(_pool_collector)


def render() -> tuple[bytes, str]:
    """The exposition text and its content type."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
