"""Write and recall speed at 10,000 and 100,000 memories of one user, as JSON.

Generates varied, realistic memories (people, places, dated events, preferences, plans, workflows),
stores them with batched `remember_many`, then measures single `remember` and `recall` latency in
the service layer (apart for questions that name a period) and through an in-process MCP client,
reports the query-embedding time apart, and checks with EXPLAIN that the recall statement can use the HNSW
and GIN indexes and, for the user's standing instructions (one memory in 400), their partial index.

    python bench/recall.py                       # hash embedder, 10k and 100k
    python bench/recall.py --embedder minilm-int8 --sizes 10000
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import anyio
from mcp import Client
from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.homes import bench_settings, scratch_home
from engrain.server.app import create_server
from engrain.server.state import AppState
from engrain.services.memories.requests import RememberRequest
from engrain.services.recall.search import RecallRequest
from engrain.storage.recall import RecallFilter, RecallQuery
from engrain.storage.vector_index import vector_index_name
from engrain.text.fulltext import query_form

NAMES = [
    "Anna",
    "Ben",
    "Carla",
    "Dmitri",
    "Elena",
    "Farid",
    "Grace",
    "Hiro",
    "Ines",
    "Jonas",
    "Keiko",
    "Luca",
    "Maya",
    "Nils",
    "Olga",
    "Pedro",
    "Quinn",
    "Rosa",
    "Sven",
    "Tariq",
    "Uma",
    "Victor",
    "Wen",
    "Ximena",
    "Yusuf",
    "Zoe",
    "Marta",
    "Oskar",
    "Priya",
    "Tomás",
]
RELATIONS = [
    "sister",
    "brother",
    "colleague",
    "manager",
    "neighbour",
    "old friend",
    "cousin",
    "dentist",
    "mentor",
    "landlord",
    "teammate",
    "piano teacher",
]
CITIES = [
    "Lisbon",
    "Berlin",
    "Kyoto",
    "Oslo",
    "Porto",
    "Vienna",
    "Seville",
    "Montreal",
    "Hanoi",
    "Tallinn",
    "Valencia",
    "Edinburgh",
    "Ljubljana",
    "Marrakesh",
    "Bergen",
    "Cork",
    "Lyon",
    "Gdansk",
    "Bologna",
    "Cusco",
]
FOODS = [
    "ramen",
    "sushi",
    "pho",
    "paella",
    "dumplings",
    "tacos",
    "falafel",
    "risotto",
    "curry",
    "pierogi",
    "shakshuka",
    "bibimbap",
]
HOBBIES = [
    "bouldering",
    "sourdough baking",
    "trail running",
    "chess",
    "watercolour painting",
    "sailing",
    "birdwatching",
    "pottery",
    "salsa dancing",
    "woodworking",
    "astronomy",
    "kayaking",
]
JOBS = ["nurse", "architect", "data engineer", "teacher", "carpenter", "lawyer", "chef", "pilot", "translator"]
TASKS = [
    "release the app",
    "onboard a new hire",
    "close the month",
    "renew the certificates",
    "publish the blog",
    "back up the NAS",
    "prepare the sprint review",
    "rotate the API keys",
]
STEPS = [
    "run the tests",
    "tag the commit",
    "update the changelog",
    "notify the team",
    "check the dashboards",
    "export the report",
    "archive the old files",
    "ask for a review",
    "merge the branch",
    "deploy to staging",
]
# Standing instructions and preferences for answers, as users give them: a few dozen in 10,000 memories.
STANDING = [
    "Always answer with TypeScript examples, never plain JavaScript",
    "I prefer short answers with the key point first",
    "Please use metric units when you give me measurements",
    "Don't suggest recipes with peanuts, I'm allergic",
    "From now on, cite your sources when you state a fact",
]
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]


def memory(rng: random.Random, i: int) -> str:
    name, other, city = rng.choice(NAMES), rng.choice(NAMES), rng.choice(CITIES)
    year, month = rng.randint(2015, 2026), rng.choice(MONTHS)
    day = rng.randint(1, 28)
    choice = i % 9
    if i % 400 == 11:
        return f"{rng.choice(STANDING)} (note {i})"
    if choice == 0:
        return f"{name} is my {rng.choice(RELATIONS)} and works as a {rng.choice(JOBS)} in {city}"
    if choice == 1:
        return f"Went to {city} with {name} on {year}-{MONTHS.index(month) + 1:02d}-{day:02d} for {other}'s wedding"
    if choice == 2:
        return f"I really love {rng.choice(FOODS)}, especially the one {name} makes (note {i})"
    if choice == 3:
        return f"Planning to visit {city} in {month} {year + 1} to go {rng.choice(HOBBIES)}"
    if choice == 4:
        steps = rng.sample(STEPS, 3)
        return f"To {rng.choice(TASKS)} (v{i % 97}): {steps[0]} → {steps[1]} → {steps[2]}"
    if choice == 5:
        return f"Started {rng.choice(HOBBIES)} in {month} {year} after {name} recommended it"
    if choice == 6:
        return f"{name}'s birthday is on {month} {day}; they like {rng.choice(FOODS)} and {rng.choice(HOBBIES)}"
    if choice == 7:
        return f"Meeting with {name} about the {city} project next {rng.choice(['Monday', 'Tuesday', 'Friday'])}"
    return f"Moved from {city} to {rng.choice(CITIES)} in {year} because of {name}'s new job as a {rng.choice(JOBS)}"


PERIODS = ["what's coming up next week in", "what did I do last March in", "plans for next month in"]


def query(rng: random.Random) -> str:
    return rng.choice(
        [
            f"where does {rng.choice(NAMES)} work",
            f"when did I go to {rng.choice(CITIES)}",
            f"what food does {rng.choice(NAMES)} like",
            f"how do I {rng.choice(TASKS)}",
            f"trips planned to {rng.choice(CITIES)}",
            f"{rng.choice(HOBBIES)} with {rng.choice(NAMES)}",
            f"{rng.choice(NAMES)}'s birthday",
            "who is my dentist",
        ]
    )


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)

    def pick(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000, 2)

    return {"p50_ms": pick(0.50), "p95_ms": pick(0.95), "p99_ms": pick(0.99), "n": len(ordered)}


async def explain(app: AppState, user: str, q: str) -> dict[str, bool]:
    model = await app.embeddings.ready()
    _, [vector] = await app.embeddings.embed([q])
    db = await app.database()
    sql, params = RecallQuery(
        user_id=user,
        query=query_form(q),
        vector=vector,
        embedder_id=model.id,
        dim=model.dim,
        flt=RecallFilter(),
        now=datetime.now(UTC),
        decay_seconds=2592000.0,
        limit=10,
        pool=50,
    ).statement()
    async with db.sessions.begin() as s:
        plan = "\n".join((await s.execute(text("EXPLAIN " + sql), params)).scalars())
    return {
        "hnsw_index_used": vector_index_name(model.id) in plan,
        "gin_index_used": "ix_memories_tsv" in plan,
        "standing_index_used": "ix_memories_instructions" in plan,
    }


async def run_size(size: int, embedder: str, queries: int, singles: int) -> dict:
    rng = random.Random(size)
    home = scratch_home("engrain-bench-recall-")
    settings = bench_settings(home, embedder, user="bench")
    app = AppState(settings)
    server = create_server(app)
    result: dict = {"memories": size, "embedder": embedder}
    async with Client(server) as client:
        await app.embeddings.ready()
        texts = [memory(rng, i) for i in range(size)]
        started = time.perf_counter()
        limiter = anyio.Semaphore(3)  # batches in flight: Python enriches one while Postgres indexes others

        async def store(chunk: list[str]) -> None:
            async with limiter:
                await app.memories.remember_many("bench", [RememberRequest(content=t) for t in chunk])

        async with anyio.create_task_group() as tg:
            for start in range(0, size, 1000):
                tg.start_soon(store, texts[start : start + 1000])
        elapsed = time.perf_counter() - started
        result["batched_remember"] = {"per_second": round(size / elapsed), "seconds": round(elapsed, 2)}
        db = await app.database()
        # Steady state, as autovacuum leaves a running server: statistics and the GIN pending list merged.
        async with db.engine.connect() as conn:
            await conn.execution_options(isolation_level="AUTOCOMMIT")
            await conn.execute(text("VACUUM ANALYZE memories"))

        single = []
        for i in range(singles):
            t0 = time.perf_counter()
            await app.memories.remember("bench", RememberRequest(content=memory(rng, size + i) + f" (single {i})"))
            single.append(time.perf_counter() - t0)
        result["remember_single_service"] = percentiles(single)

        qs = [query(rng) for _ in range(queries)]
        embed_times = []
        for q in qs:  # query-embedding time on its own (uncached model call)
            t0 = time.perf_counter()
            await app.embeddings.embed([q])
            embed_times.append(time.perf_counter() - t0)
        result["query_embedding"] = percentiles(embed_times)
        service = []
        for q in qs:
            t0 = time.perf_counter()
            await app.recall.recall("bench", RecallRequest(q, track_access=False))
            service.append(time.perf_counter() - t0)
        result["recall_service"] = percentiles(service)
        # Questions that name a period: read on the user's clock, one index probe before the statement.
        period = []
        for i in range(queries):
            q = f"{PERIODS[i % len(PERIODS)]} {rng.choice(CITIES)}"
            t0 = time.perf_counter()
            await app.recall.recall("bench", RecallRequest(q, track_access=False))
            period.append(time.perf_counter() - t0)
        result["recall_period_service"] = percentiles(period)
        through_mcp = []
        for q in qs:
            t0 = time.perf_counter()
            out = await client.call_tool("recall", {"query": q})
            through_mcp.append(time.perf_counter() - t0)
            assert not out.is_error
        result["recall_mcp_in_process"] = percentiles(through_mcp)
        result["explain"] = await explain(app, "bench", "when did I go to Lisbon with Anna")
        await app.drain()
    return result


async def main(args: argparse.Namespace) -> None:
    sizes = [int(s) for s in args.sizes.split(",")]
    runs = [await run_size(size, args.embedder, args.queries, args.singles) for size in sizes]
    print(json.dumps({"date": datetime.now(UTC).date().isoformat(), "runs": runs}, indent=2))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--singles", type=int, default=200)
    anyio.run(main, parser.parse_args())
