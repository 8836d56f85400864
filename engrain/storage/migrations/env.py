"""Alembic environment: runs on the connection engrain hands over (see storage/db.py)."""

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, transactional_ddl=True)
with context.begin_transaction():
    context.run_migrations()
