"""Reflection cycles (docs/SPEC.md §7), in the order a cycle runs them:

- `triggers.py`: when a user's new memories call for a reflection;
- `planning.py`: what the model is shown and asked (read-only: the plan, the prompts, the evidence);
- `applying.py`: the one transaction that applies an answer (or none) with the code-only steps;
- `cycle.py`: `Reflection`, which runs them under the user's lock with whichever model answers.

A cycle is split this way so that the same code serves a direct provider (simply awaited), MCP
sampling (the client's model is asked by resolvers before the tool body runs, and the body then finds
each answer by its prompt) and host tasks (the calling model answers through later tool calls).
"""
