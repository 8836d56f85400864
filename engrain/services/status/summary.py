"""`engrain status` for a person: the status report (`status.report.Status`, whose JSON `--json` and
`engrain://status` give whole) in a dozen lines. A pure function of the report, section by section: a new
fact about the home is a field of the report and a line of one section here (or a section of its own in
`SECTIONS`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from engrain.services.status.report import JobSchedule, Status

ROUTES = {
    "direct": "the server's own model",
    "sampling": "the client's model, by sampling",
    "host": "the client's model, through host tasks",
    "none": "no model (the rules alone)",
}


def summary(status: Status, user_source: str | None = None) -> list[str]:
    """The report's lines; `user_source` says where the user came from (--user, ENGRAIN_USER, the default)."""
    who = f"user {status['user']!r}" + (f" (from {user_source})" if user_source else "")
    lines = [f"engrain status: {who}", *([f"  {status['user_note']}"] if "user_note" in status else [])]
    for section in SECTIONS:
        lines += section(status)
    return [*lines, *_warnings(status), "(engrain status --json: the whole report)"]


def _database(status: Status) -> list[str]:
    db = status["database"]
    where = ("embedded PostgreSQL at " if db.get("embedded") else "external PostgreSQL ") + db.get("location", "?")
    if not db["ok"]:
        return [f"database: {where}: UNREACHABLE ({db.get('error', 'no error given')})"]
    return [f"database: {where}, reachable, {db.get('size', '?')}"]


def _counts(status: Status) -> list[str]:
    if "counts" not in status:
        return []
    counts = status["counts"]
    kinds = {kind: n for kind, n in counts["by_kind"].items() if kind != "trait"}
    stages = counts["traits_by_stage"]
    return [
        f"memories: {sum(kinds.values()):,}{_parts(kinds)}; {counts['inactive']:,} archived or replaced",
        f"traits: {sum(stages.values()):,}{_parts(stages)}" if stages else "traits: none yet",
    ]


def _embedder(status: Status) -> list[str]:
    embedder = status["embedder"]
    line = f"embedder: {embedder['id'] or embedder['configured']}"
    if embedder["state"] not in ("ready", "not started"):
        line += f", {embedder['state']}"
    if embedder["reason"]:
        line += f" ({embedder['reason']})"
    if embedder["message"] and embedder["state"] != "failed":  # a failure is a warning
        line += f"; {embedder['message']}"
    if "counts" in status and (vectors := status["counts"]["by_embedder"]):
        line += "; vectors stored: " + ", ".join(f"{n:,} by {name}" for name, n in vectors.items())
    return [line]


def _llm(status: Status) -> list[str]:
    llm = status["llm"]
    route = llm["route"]
    with_sampling, without = ROUTES.get(route["client_samples"], "?"), ROUTES.get(route["client_does_not_sample"], "?")
    reads = with_sampling if with_sampling == without else f"{with_sampling}, else {without}"
    return [f"LLM: {llm['provider']} (ENGRAIN_LLM={llm['configured']}); reflection and extraction by {reads}"]


def _jobs(status: Status) -> list[str]:
    if "scheduler" not in status:
        return []
    scheduler = status["scheduler"]
    lines = [f"jobs (every {scheduler['interval_s'] / 60:g} min, by whichever server or worker runs them):"]
    lines += [f"  {name:<7} {_job(schedule)}" for name, schedule in scheduler["jobs"].items()]
    return lines


def _job(schedule: JobSchedule) -> str:
    last = schedule["last_run"] or schedule["last_any_run"]
    ran = f"last run {_when(last['started_at'])}, {last['status']}" if last else "never run"
    due = schedule["next_run"]
    return f"{ran}; next {'now' if due == 'now' else _when(due)}"


def _waiting(status: Status) -> list[str]:
    """What waits for a model to read it: imported chat history, and memories no reflection has seen."""
    if "reflection" not in status:
        return []
    parts: list[str] = []
    if "imports" in status and (imports := status["imports"])["pieces_waiting"]:
        oldest = f", oldest {_when(imports['oldest'])}" if imports["oldest"] else ""
        parts.append(
            f"{imports['pieces_waiting']:,} pieces of imported chat history "
            f"({imports['conversations_waiting']:,} conversations{oldest})"
        )
    if pending := status["reflection"]["memories_pending"]:
        parts.append(f"{pending:,} memories not yet reflected on")
    last = status["reflection"]["last_cycle"]
    reflected = f"last reflection {_when(last['started_at'])}, {last['status']}" if last else "no reflection yet"
    return [f"waiting for a model: {'; '.join(parts) if parts else 'nothing'} ({reflected})"]


def _warnings(status: Status) -> list[str]:
    embedder = status["embedder"]
    lines = [f"warning: {embedder['message']}"] if embedder["state"] == "failed" and embedder["message"] else []
    if "scheduler" in status:
        for name, schedule in status["scheduler"]["jobs"].items():
            if (last := schedule["last_run"]) and last["status"] == "failed":
                lines.append(f"warning: the last {name} run failed: {last.get('error') or 'no error recorded'}")
    return lines


def _parts(counts: dict[str, int]) -> str:
    """`{"fact": 2, "episodic": 1}` as "(2 fact, 1 episodic)", largest first; "" when empty."""
    if not counts:
        return ""
    text = ", ".join(f"{n:,} {name}" for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return f" ({text})"


def _when(iso: str) -> str:
    """An ISO 8601 instant as a person reads it, in UTC to the minute."""
    moment = datetime.fromisoformat(iso)
    return (moment if moment.tzinfo is None else moment.astimezone(UTC)).strftime("%Y-%m-%d %H:%M UTC")


SECTIONS: tuple[Callable[[Status], list[str]], ...] = (_database, _counts, _embedder, _llm, _jobs, _waiting)
