"""A Django database backend: PostgreSQL, with the embedded server (pgserver) started on the first
connection rather than at settings import. Used when DATABASE_URL is unset (see settings.py)."""
