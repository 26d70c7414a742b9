#!/bin/sh
# First start: create the cluster with POSTGRES_USER / POSTGRES_PASSWORD and the POSTGRES_DB
# database (as the registry's postgres images do), then run the server in the foreground.
set -eu
: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set (the app connects with it)}"
user=${POSTGRES_USER:-postgres}
database=${POSTGRES_DB:-$user}
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  passwords=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$passwords"
  initdb -D "$PGDATA" -U "$user" --pwfile="$passwords" --auth-host=scram-sha-256 \
    --auth-local=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  rm -f "$passwords"
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  if [ "$database" != postgres ]; then
    psql -v ON_ERROR_STOP=1 -q -U "$user" -d postgres -c "CREATE DATABASE \"$database\""
  fi
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec postgres -D "$PGDATA"
