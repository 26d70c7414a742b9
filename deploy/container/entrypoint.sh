#!/bin/sh
# The image's commands (the entrypoint, also on PATH as `memory-console`):
#   web              migrate (MIGRATE=0 skips it), the first staff login when
#                    DJANGO_SUPERUSER_USERNAME/_PASSWORD are set, then gunicorn on 0.0.0.0:$PORT
#   worker           the learning worker (procrastinate), as many as you like, on any host
#   manage ARGS...   any management command: manage bots create scout, manage reindex, ...
set -eu
cd /app

if [ -z "${DATABASE_URL:-}" ]; then
  echo "DATABASE_URL is not set: the container needs a PostgreSQL (pgvector is used when it" >&2
  echo "has it), e.g. postgresql://memory:secret@db:5432/memory. deploy/compose.yaml runs one." >&2
  exit 2
fi
case "$DATABASE_URL" in
  *:memory-try-out@*)
    echo "The database password is the compose file's sample one: set POSTGRES_PASSWORD (any" >&2
    echo "long random string) in deploy/.env or the environment, then start again." >&2
    exit 2
    ;;
esac
mkdir -p "${VAR_DIR:-/data/var}/staticfiles" 2>/dev/null || true  # WhiteNoise looks there
if [ -z "${SECRET_KEY:-}" ] && [ ! -w "${VAR_DIR:-/data/var}" ]; then
  echo "SECRET_KEY is not set and ${VAR_DIR:-/data/var} is not writable to keep a generated one." >&2
  exit 2
fi

# Wait for the database (compose starts everything at once; a restart finds it busy).
wait_seconds=${DATABASE_WAIT:-90}
until python3 -c 'import os, psycopg; psycopg.connect(os.environ["DATABASE_URL"], connect_timeout=3).close()' 2>/dev/null; do
  wait_seconds=$((wait_seconds - 2))
  if [ "$wait_seconds" -le 0 ]; then
    echo "The database at DATABASE_URL does not answer; giving up (DATABASE_WAIT=${DATABASE_WAIT:-90} s)." >&2
    exit 1
  fi
  sleep 2
done

command=${1:-web}
[ $# -gt 0 ] && shift
case "$command" in
  web)
    if [ "${MIGRATE:-1}" != 0 ]; then
      python3 manage.py migrate --no-input -v0
    fi
    # The first staff login from the environment (createsuperuser reads these), once.
    if [ -n "${DJANGO_SUPERUSER_USERNAME:-}" ] && [ -n "${DJANGO_SUPERUSER_PASSWORD:-}" ]; then
      python3 manage.py createsuperuser --noinput 2>&1 | grep -v "already taken" || true
    fi
    exec gunicorn memoryconsole.wsgi --config gunicorn.conf.py \
      --bind "0.0.0.0:${PORT:-8000}" --workers "${GUNICORN_WORKERS:-2}" --access-logfile - "$@"
    ;;
  worker)
    exec python3 manage.py learning_worker "$@"
    ;;
  manage)
    exec python3 manage.py "$@"
    ;;
  *)
    echo "Unknown command '$command': use web, worker or manage ARGS..." >&2
    exit 2
    ;;
esac
