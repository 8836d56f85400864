"""What engrain tells a model about using it: the server instructions and the `memory-guide` prompt."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from engrain.text.quoting import DATA_NOTICE

INSTRUCTIONS = """\
engrain is the user's long-term memory. It persists across sessions and clients.
- Before answering anything that depends on the user (their preferences, history, plans, projects, how
  they like things done), call `recall` with a short query.
- When the user states something durable about themselves (a fact, preference, decision, plan, event
  or workflow), call `remember` with one self-contained sentence. Do not store secrets or chit-chat.
- When a fact changes, `remember` the new one with `supersedes=<old id>`; use `link` to connect related
  memories; `forget` deletes a memory for good when the user asks.
- `get_user_traits` lists what engrain has learned about the user; `reflect` digests new memories into
  traits (it also runs by itself); `ingest_conversation` stores a whole conversation at once.
- When `reflect` answers status "needs_model", you are the model: do what its `task` says (call `recall`
  to check older evidence if needed), then call `reflect` with its `task_id` and your `answer`.
- Resources: engrain://profile (who the user is), engrain://traits, engrain://memories/recent,
  engrain://intentions (upcoming plans), engrain://status."""


def with_profile(summary: str) -> str:
    """The instructions plus what engrain currently knows about the user."""
    return f"{INSTRUCTIONS}\n\nWhat engrain knows about the user now ({DATA_NOTICE}):\n{summary}"


MEMORY_GUIDE = """\
You have a long-term memory of the user through the engrain tools.

Recall first. At the start of a task, and whenever the answer depends on who the user is, call
`recall` with a focused query (names, topics, "when did…" questions work). Use what comes back
quietly; do not recite it unless asked.

Remember what lasts. Store one self-contained statement per memory, in the user's terms:
- facts and preferences ("Prefers TypeScript over JavaScript for new projects"),
- events with their dates ("Moved to Lisbon in March 2025"),
- plans and appointments ("Dentist appointment next Tuesday at 9") — they become intentions,
- workflows as steps ("Release: bump version → tag → push → publish").
Skip small talk, one-off requests, and anything secret (passwords, keys, health details unless asked).

Keep it true. When something changes, remember the new fact with `supersedes` set to the old id.
Link memories that explain each other. When the user asks you to forget something, use `forget`.

Help it learn. When engrain says memories wait for a reflection, call `reflect` when the conversation
allows. If engrain has no model of its own, `reflect` returns status "needs_model" with a `task` and a
`task_id`: read the task, call `recall` when a pattern needs checking against older memories, then call
`reflect(task_id=…, answer={…})` with the JSON the task describes, citing only the [m1]/[t1] ids it
shows. A malformed answer is refused with what to fix, and nothing is applied until it is right.
"""


def register(server: MCPServer) -> None:
    @server.prompt(
        name="memory-guide",
        title="How to use engrain memory",
        description="When to remember and when to recall, for a model using engrain.",
    )
    def memory_guide() -> str:
        return MEMORY_GUIDE
