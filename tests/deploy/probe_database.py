"""Run only inside the focused suite that test_external_postgres.py starts against a separate
Postgres (pytest does not collect this file by itself: its name does not start with `test_`).

It checks the run really is on that server, as an unprivileged role, and that the embedding
column took the form the test expects: pgvector's `vector`, or `bytea` (exact scan) when the
extension is not installed and the role may not install it.
"""

import os

import pytest
from django.db import connection

from memstore.recall import vectors


@pytest.mark.django_db
def test_the_suite_runs_on_the_separate_server_as_expected():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_user, rolsuper, (SELECT count(*) FROM pg_extension "
            "WHERE extname = 'vector') FROM pg_roles WHERE rolname = current_user"
        )
        user, superuser, pgvector = cursor.fetchone()
    expected = os.environ["DEPLOY_EXPECT_STORAGE"]
    assert (user, superuser) == (os.environ["DEPLOY_EXPECT_USER"], False)
    assert (pgvector, vectors._storage()) == (int(expected == "vector"), expected)
