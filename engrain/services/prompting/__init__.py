"""How a prompt reaches a model, for reflection and ingestion alike.

Three routes exist: the server's own provider (ENGRAIN_LLM, `direct`), the client's model through MCP
sampling (asked by the tool's resolvers before its body runs, answered here by prompt), and the calling
model itself through a host task (the domain hands out a task the model answers in a later tool call).
`routes.ModelRoutes` picks one per request; the domains only ask the `Route` they are given.
"""
