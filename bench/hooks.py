"""How long Claude Code waits for engrain's hooks (issue 62), as JSON: each hook run as Claude Code runs it (the
plugin's command, the input JSON on stdin, CLAUDE_PLUGIN_ROOT and CLAUDE_PROJECT_DIR set) on a new home with the
embedded Postgres, timed from the spawn to the exit.

- `cold_session_start_s`: the first hook of a home, which starts the hook worker and adds nothing meanwhile, and
  `worker_listening_s`, when the worker answers;
- `stop_s`: a Stop that keeps a short transcript (the worker running);
- `prompt_words_s`: UserPromptSubmit, median of WORDS_RUNS, while the worker's model loads (recall by words: a
  few seconds, so a few runs); `prompt_meaning_s`: median and 95th percentile of `--runs` once it serves; each
  for a prompt that brings a memory and one that brings none;
- `session_start_s`: a warm SessionStart, median and 95th percentile of `--runs`;
- `worker_prompt_s`: the worker's share of a warm prompt — the same request sent straight to its socket, no hook
  process — so that what the hook's own process costs (a Python start and its imports) is the difference.

    python bench/hooks.py [--runs 20] [--embedder auto]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.homes import scratch_home
from bench.latency import machine
from engrain.server.hooks import lock_path, socket_path

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "claude-plugin"
BRINGS = "which database do we use here?"
NOTHING = "what is 17 times 23?"
READY_WAIT_S = 300.0
WORDS_RUNS = 3


def run(env: dict[str, str], event: str, **fields: Any) -> tuple[float, str]:
    """One hook, as Claude Code runs it: its time and the context it added."""
    command = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"][event][0]["hooks"][0]["command"]
    data = {"session_id": "bench", "cwd": env["CLAUDE_PROJECT_DIR"], "hook_event_name": event, **fields}
    start = time.perf_counter()
    done = subprocess.run(command, shell=True, input=json.dumps(data), env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    assert done.returncode == 0, done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"] if done.stdout.strip() else ""
    return took, context


def timing(env: dict[str, str], runs: int, event: str, **fields: Any) -> dict[str, Any]:
    """The hook run `runs` times: its median and 95th percentile (the nearest rank), and whether it added context."""
    timed = [run(env, event, **fields) for _ in range(runs)]
    took = sorted(t for t, _ in timed)
    return {"median_s": round(statistics.median(took), 3), "p95_s": percentile95(took), "added": bool(timed[-1][1])}


def percentile95(ordered: list[float]) -> float:
    """The nearest-rank 95th percentile of times in ascending order, rounded to the millisecond."""
    return round(ordered[max(0, -(-95 * len(ordered) // 100) - 1)], 3)


def asked(home: Path, env: dict[str, str], prompt: str) -> float:
    """One prompt's request sent straight to the worker's socket, as the hook sends it: the time to its answer."""
    request = {
        "session_id": "bench",
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
        "project_dir": env["CLAUDE_PROJECT_DIR"],
        "user": env["ENGRAIN_USER"],
    }
    start = time.perf_counter()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(str(socket_path(home)))
        conn.sendall(json.dumps(request).encode() + b"\n")
        received = b""
        while not received.endswith(b"\n"):
            received += conn.recv(65536)
    return time.perf_counter() - start


def model_served(home: Path) -> bool:
    log = home / "logs" / "hooks.log"
    return log.exists() and "serves:" in log.read_text()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--embedder", default="auto")
    args = parser.parse_args()
    home = Path(scratch_home("engrain-bench-hooks-"))
    project = home / "project"
    project.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAIN_") or k == "ENGRAIN_MODEL_DIR"}
    env |= {
        "ENGRAIN_HOME": str(home),
        "ENGRAIN_EMBEDDER": args.embedder,
        "ENGRAIN_USER": "bench",
        "ENGRAIN_SCHEDULER": "off",
        "ENGRAIN_LLM": "none",
        "ENGRAIN_FETCH_MODELS": "false",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
        "CLAUDE_PLUGIN_ROOT": str(PLUGIN),
        "CLAUDE_PROJECT_DIR": str(project),
    }
    report: dict[str, Any] = {"machine": machine(), "embedder": args.embedder, "runs": args.runs}
    try:
        start = time.perf_counter()
        report["cold_session_start_s"] = round(run(env, "SessionStart", source="startup")[0], 3)
        while not socket_path(home).exists():
            time.sleep(0.05)
        report["worker_listening_s"] = round(time.perf_counter() - start, 3)
        transcript = home / "bench.jsonl"
        words = "We use PostgreSQL 16 with pgvector. I prefer short answers."
        said = {"type": "user", "timestamp": "2026-12-01T10:00:00Z", "cwd": str(project), "message": {"content": words}}
        transcript.write_text(json.dumps(said) + "\n")
        report["stop_s"] = round(run(env, "Stop", transcript_path=str(transcript))[0], 3)
        if not model_served(home):
            report["prompt_words_s"] = {
                "brings": timing(env, WORDS_RUNS, "UserPromptSubmit", prompt=BRINGS),
                "nothing": timing(env, WORDS_RUNS, "UserPromptSubmit", prompt=NOTHING),
            }
        deadline = time.perf_counter() + READY_WAIT_S
        while not model_served(home) and time.perf_counter() < deadline:
            time.sleep(0.5)
        report["model_served_s"] = round(time.perf_counter() - start, 3) if model_served(home) else None
        report["prompt_meaning_s"] = {
            "brings": timing(env, args.runs, "UserPromptSubmit", prompt=BRINGS),
            "nothing": timing(env, args.runs, "UserPromptSubmit", prompt=NOTHING),
        }
        report["session_start_s"] = timing(env, args.runs, "SessionStart", source="resume")
        direct = sorted(asked(home, env, prompt) for _ in range(args.runs) for prompt in (BRINGS, NOTHING))
        report["worker_prompt_s"] = {"median_s": round(statistics.median(direct), 3), "p95_s": percentile95(direct)}
    finally:
        pid = int(lock_path(home).read_text().strip()) if lock_path(home).exists() else None
        if pid is not None:
            os.kill(pid, signal.SIGTERM)  # the worker this run started: it releases the embedded Postgres
            while subprocess.run(["kill", "-0", str(pid)], capture_output=True).returncode == 0:
                time.sleep(0.1)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
