"""engrain: a long-term memory of the user for MCP clients, on PostgreSQL + pgvector."""

__version__ = "0.1.0"
