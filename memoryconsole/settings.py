"""Settings, all from the environment, with safe defaults for one person running it locally.

MEMORY_CONSOLE_HOME  the data folder (VAR_DIR, its older name, wins): default ./var in a
               checkout, else ./var where the command runs
DATABASE_URL   any PostgreSQL (pgvector used when present); unset: embedded Postgres in the
               data folder, started on the first database connection (never by importing settings)
MEMORY_ROOT    the Markdown memory folder (default ./var/memory)
MEMORY_FILE_MODE  0600 (default: files 0600, folders 0700) or 0640 (0640/0750: a shared
               volume's group may read memory)
SECRET_KEY     unset: a random key kept in ./var/secret_key
DEBUG          default off
ALLOWED_HOSTS  comma-separated, default localhost,127.0.0.1
HTTPS          1: served by an HTTPS proxy (secure cookies, HSTS, X-Forwarded-Proto trusted)
"""

import ipaddress
import os
import re
from datetime import timedelta
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from memoryconsole.config import (
    assets_dir,
    database_from_url,
    embedded_database,
    env_bool,
    env_choice,
    env_list,
    env_number,
    env_path,
    home_dir,
    secret_key,
)
from memstore.rules.sensitive_default import SENSITIVE_DEFAULT

BASE_DIR = Path(__file__).resolve().parent.parent
# templates/ and static/: the repository's in a checkout, the package's own in an installed wheel
ASSETS_DIR = assets_dir(Path(__file__).resolve().parent)
VAR_DIR = home_dir(BASE_DIR)

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = secret_key(VAR_DIR)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

MEMORY_ROOT = env_path("MEMORY_ROOT", VAR_DIR / "memory")
MEMORY_FILE_MODE = int(env_choice("MEMORY_FILE_MODE", "0600", ("0600", "0640")), 8)

# Unset DATABASE_URL: the embedded server starts on the first connection, not here.
_DATABASE_URL = os.environ.get("DATABASE_URL")
DATABASES = {
    "default": database_from_url(_DATABASE_URL) if _DATABASE_URL else embedded_database(VAR_DIR)
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "django_htmx",
    "ninja",  # the API docs page serves its Swagger UI files locally
    "procrastinate.contrib.django",
    "memstore",
    "memoryconsole.web",
]

MIDDLEWARE = [
    # Counts and times every request for /metrics (first, so it sees them all).
    "memoryconsole.metrics.RequestMetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # A view that loses the database answers a styled 503 page.
    "memoryconsole.web.errors.DatabaseUnavailableMiddleware",
]

ROOT_URLCONF = "memoryconsole.urls"
WSGI_APPLICATION = "memoryconsole.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [ASSETS_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.csp",
                "memoryconsole.web.context.manage_spelling",
                "memoryconsole.web.context.bot_navigation",
            ],
        },
    },
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/login/"

# --- console: Content Security Policy -------------------------------------------
# Scripts only from our own static files, each tag carrying the per-response nonce; no inline
# scripts, styles or event handlers anywhere, so an injected <script> in a fact could not run.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "object-src": [CSP.NONE],
}
# --- end console ---------------------------------------------------------------------------

LANGUAGE_CODE = "en-us"
TIME_ZONE = os.environ.get("TIME_ZONE", "UTC")
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATICFILES_DIRS = [ASSETS_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True

# /metrics (Prometheus text): staff in the console, or a scraper sending this bearer token.
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "").strip()

# --- bots' API (memoryconsole/api) ---
# Largest request body the API reads; bigger ones get 413 before anything parses them. The
# largest legitimate body is a prompt/changes call carrying a previous section (~50k chars).
API_MAX_BODY_BYTES = env_number("API_MAX_BODY_BYTES", 256 * 1024)
# --- end bots' API ---

# --- MCP clients' OAuth (memoryconsole/mcp/oauth.py) ---
# OAUTH_RATE_<ENDPOINT>  requests one client address may send an open OAuth endpoint per window
# (register: an hour; token and revoke: a minute); more get 429 with Retry-After. A client
# registers once per connection and refreshes about hourly, so these are far above real use;
# a hosted connector (Claude.ai, ChatGPT) registers from its own servers, so a whole team adding
# it in one hour counts against one address: the registration limit leaves room for that.
# The address is read as for log-in throttling (TRUSTED_PROXIES below).
OAUTH_RATE_LIMITS = {
    "register": (int(env_number("OAUTH_RATE_REGISTER", 60)), 3600),
    "token": (int(env_number("OAUTH_RATE_TOKEN", 60)), 60),
    "revoke": (int(env_number("OAUTH_RATE_REVOKE", 60)), 60),
}
# --- end MCP clients' OAuth ---

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}

# --- Recall and the prompt's memory section ---
# SEARCH_LANGUAGE: the Postgres text search configuration of the word index and of queries
# (english, french, german, spanish, simple, ...; `SELECT cfgname FROM pg_ts_config`), with
# unaccent where that extension exists. A change takes effect after
# `manage.py search_language --apply` (./dev serve runs it at start).
SEARCH_LANGUAGE = os.environ.get("SEARCH_LANGUAGE", "english")
# EMBEDDINGS: "bge-small" (the bundled ONNX model; falls back to words only when it is not
# installed), "openai:<model>" (any OpenAI-compatible /v1/embeddings server at
# EMBEDDINGS_BASE_URL), or "none" (recall by words only).
EMBEDDINGS = os.environ.get("EMBEDDINGS", "bge-small")
EMBEDDINGS_BASE_URL = os.environ.get("EMBEDDINGS_BASE_URL") or None
EMBEDDINGS_API_KEY = os.environ.get("EMBEDDINGS_API_KEY") or None
# The worker's backfill embeds new facts on this many threads (the same vectors whatever the
# number; 1 leaves a core to the web workers on a small box), retrying a failure after
# EMBEDDINGS_RETRY_WAIT seconds, doubled per attempt.
EMBEDDINGS_BACKFILL_THREADS = env_number("EMBEDDINGS_BACKFILL_THREADS", 1)
EMBEDDINGS_RETRY_WAIT = env_number("EMBEDDINGS_RETRY_WAIT", 5)
# A webhook delivery the receiver refused is retried after WEBHOOK_RETRY_WAIT seconds, doubled
# per attempt, WEBHOOK_RETRY_ATTEMPTS tries in all (5 s .. about 21 minutes), then marked failed.
WEBHOOK_RETRY_WAIT = env_number("WEBHOOK_RETRY_WAIT", 5, float)
WEBHOOK_RETRY_ATTEMPTS = env_number("WEBHOOK_RETRY_ATTEMPTS", 9)
# The static tier (bundled model only): facts waiting for their vector are ranked meanwhile by a
# token table distilled once from the model (about 2 minutes of one core, by the worker on first
# need or `manage.py recall_static`), cached in RECALL_STATIC_DIR. RECALL_STATIC=0 turns it off.
RECALL_STATIC = env_bool("RECALL_STATIC", True)
RECALL_STATIC_DIR = env_path("RECALL_STATIC_DIR", VAR_DIR / "static")
RECALL_DEFAULT_RESULTS = 20
RECALL_MAX_RESULTS = 50
RECALL_MAX_CHARS = 4000
# Per block: (facts, characters) for the profile and for the recent log facts.
PROMPT_BUDGETS = {
    "bot": {"profile": (100, 20_000), "recent": (30, 4_000)},
    "user": {"profile": (50, 4_000), "recent": (15, 2_000)},
    "project": {"profile": (25, 2_500), "recent": (10, 1_500)},
}
# The section's shape (memstore.prompt.shape; docs/configuration.md): `blocks` (the budgets
# above) or `seed`: each block one category of at most PROMPT_SHAPE_ENTRIES entries, each cut to
# PROMPT_SHAPE_ENTRY_CHARS characters; personal memory by recency, workspace memory by weight.
PROMPT_SHAPE = env_choice("PROMPT_SHAPE", "blocks", ("blocks", "seed"))
PROMPT_SHAPE_ENTRIES = env_number("PROMPT_SHAPE_ENTRIES", 20)
PROMPT_SHAPE_ENTRY_CHARS = env_number("PROMPT_SHAPE_ENTRY_CHARS", 200)
if PROMPT_SHAPE_ENTRIES < 1 or PROMPT_SHAPE_ENTRY_CHARS < 20:
    raise ImproperlyConfigured(
        "PROMPT_SHAPE_ENTRIES must be at least 1 and PROMPT_SHAPE_ENTRY_CHARS at least 20, not "
        f"{PROMPT_SHAPE_ENTRIES} and {PROMPT_SHAPE_ENTRY_CHARS}."
    )
RECALL_COSINE_FLOOR = None  # None: the model's measured floor (memstore.recall.fusion)
# Reranking the top of recall (memstore.recall.rerank; docs/benchmarks.md, "Reranking"):
# RECALL_RERANK  off (the default) | local (the bundled cross-encoder, runs here) |
#                late (the bundled late-interaction encoder, runs here: memstore.recall.late_interaction) |
#                openai:<model> (a /v1/rerank-style endpoint at RECALL_RERANK_URL; private,
#                user-scope and hidden facts are never sent to it)
# RECALL_RERANK_TOP_N        how many of the fusion's first facts are reranked
# RECALL_RERANK_TIMEOUT_MS   past this the fusion's order stands
# RECALL_RERANK_DAILY_TOKENS a remote reranker's own daily cap (the learner's is apart)
RECALL_RERANK = os.environ.get("RECALL_RERANK", "off").strip() or "off"
if not re.fullmatch(r"off|local|late|(openai|remote):\S+", RECALL_RERANK):
    raise ImproperlyConfigured(
        f"RECALL_RERANK={RECALL_RERANK!r}: use off, local, late, or openai:<model> (with RECALL_RERANK_URL)."
    )
RECALL_RERANK_URL = os.environ.get("RECALL_RERANK_URL", "").strip()
RECALL_RERANK_API_KEY = os.environ.get("RECALL_RERANK_API_KEY", "")
RECALL_RERANK_TOP_N = env_number("RECALL_RERANK_TOP_N", 10)
RECALL_RERANK_TIMEOUT_MS = env_number("RECALL_RERANK_TIMEOUT_MS", 400)
RECALL_RERANK_DAILY_TOKENS = env_number("RECALL_RERANK_DAILY_TOKENS", 200_000)
# A prompt that never waits: reading memory for a prompt or a recall gives the sync
# this many milliseconds (lock and statements included); past it, the answer comes from the
# index as it stands ("stale") or without memory ("unavailable").
MEMORY_READ_BUDGET_MS = env_number("MEMORY_READ_BUDGET_MS", 500)
# Always-on notes: at most this many characters each, and their share of the prompt.
NOTE_MAX_CHARS = 1500
NOTES_PROMPT_CHARS = env_number("NOTES_PROMPT_CHARS", 4500)

# --- Room tickets: the chat platform vouches for every call ---------------------
# ROOM_TICKET_KEY  when set, every memory call must carry X-Room-Ticket, an HMAC-SHA256 over
#                  bot, room, kind, person, projects and expiry made with this key (docs/api.md)
ROOM_TICKET_KEY = os.environ.get("ROOM_TICKET_KEY", "")

# --- Learning: the background learner ---------------------------------------------
# LEARNING_BASE_URL  an OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1
# LEARNING_MODEL     the model name; learning stays off until both are set
# LEARNING_API_KEY   sent as a bearer token (local servers usually need none)
# LEARNING_MODE      off | report (decide and record, write nothing; the default) | write
# LEARNING_DAILY_TOKENS  the workspace's daily token budget (prompt + completion)
# LEARNING_TIMEOUT, LEARNING_RETRY_ATTEMPTS, LEARNING_RETRY_WAIT (seconds, doubled per retry)
LEARNING_BASE_URL = os.environ.get("LEARNING_BASE_URL", "").strip()
LEARNING_MODEL = os.environ.get("LEARNING_MODEL", "").strip()
LEARNING_API_KEY = os.environ.get("LEARNING_API_KEY", "")
LEARNING_MODE = env_choice("LEARNING_MODE", "report", ("off", "report", "write"))
LEARNING_DAILY_TOKENS = env_number("LEARNING_DAILY_TOKENS", 500_000)
LEARNING_TIMEOUT = env_number("LEARNING_TIMEOUT", 60.0, float)
LEARNING_RETRY_ATTEMPTS = max(1, env_number("LEARNING_RETRY_ATTEMPTS", 5))
LEARNING_RETRY_WAIT = env_number("LEARNING_RETRY_WAIT", 10.0, float)
# LEARNING_EPISODE_EVERY  every Nth eligible exchange in a room also gets an episode call
# LEARNING_EPISODE_CHARS  the episode call's quoted turns, whole, newest first, within this size
# LEARNING_SMALL_TALK_CHARS and LEARNING_SMALL_TALK: the free filter
LEARNING_EPISODE_EVERY = max(1, env_number("LEARNING_EPISODE_EVERY", 6))
# LEARNING_MAX_AGE_DAYS  an exchange still queued this many days after it was reported (a
#                        stopped worker) is skipped, not learned; the learning log says why
LEARNING_MAX_AGE_DAYS = max(1, env_number("LEARNING_MAX_AGE_DAYS", 14))
LEARNING_EPISODE_CHARS = env_number("LEARNING_EPISODE_CHARS", 12_000)
LEARNING_SMALL_TALK_CHARS = env_number("LEARNING_SMALL_TALK_CHARS", 40)
LEARNING_SMALL_TALK = (
    "hi", "hey", "hello", "yo", "sup", "thanks", "thank you", "ty", "thx", "ok", "okay",
    "k", "kk", "cool", "nice", "great", "awesome", "perfect", "yes", "yep", "yeah", "no",
    "nope", "sure", "got it", "gotcha", "lol", "haha", "np", "done", "good", "bye",
)  # fmt: skip
# SENSITIVE_KEYWORDS: the default list of words and phrases (comma-separated; any case; a
# keyword's plural, past and -ing forms match, never a word made from it) that keep a memory out
# of shared memory (a bot's own, team-wide; project; workspace): such a save is refused there and
# allowed only in the person's own user memory. Staff may replace it with the workspace's own
# list in the console (Sensitive keywords); until they do, this one is in force. The built-in
# default, by category, and the matching rule: memstore/rules/sensitive_default.py. Set it
# empty to turn the check off.
SENSITIVE_KEYWORDS = env_list("SENSITIVE_KEYWORDS", list(SENSITIVE_DEFAULT))
# Workers (`manage.py procrastinate worker`) drop finished jobs: the exchange rows are the record.
PROCRASTINATE_WORKER_DEFAULTS = {"delete_jobs": "successful"}
# The tasks are imported by a worker when it starts (and by whatever defers one), not by every
# process at start: `manage` and a stdio MCP call skip the learner's and recall's imports.
PROCRASTINATE_AUTODISCOVER_MODULE_NAME = ""
PROCRASTINATE_IMPORT_PATHS = ["memstore.tasks"]
# --- end of learning settings ------------------------------------------------------------------

# --- A console that resists guessing: log-in throttling and HTTPS ----------------
# django-axes counts failed console log-ins; memoryconsole/web/lockout.py decides what they lock.
# LOGIN_FAILURE_LIMITS  failures allowed for (one account from one address, one account from
#                       anywhere, one address for any account) before log-in answers with the
#                       "locked" page (HTTP 429) until AXES_COOLOFF_TIME has passed. The address
#                       limit is generous: a few wrong names never lock out everyone behind a
#                       shared address, but an address trying many accounts is still slowed.
# A successful log-in clears the account's counts (not the address's). Staff unlock with
# `manage.py axes_reset_username <name>`, `axes_reset_ip <address>` or `axes_reset` (everyone).
# TRUSTED_PROXIES  the proxies in front (addresses or networks, e.g. 10.0.0.5,10.1.0.0/16): a
#                  request from one of them is counted against the last X-Forwarded-For entry
#                  that is not a trusted proxy. Unset: REMOTE_ADDR, or with HTTPS=1 the last
#                  X-Forwarded-For entry (the one proxy in front appended it).
INSTALLED_APPS += ["axes"]
MIDDLEWARE += ["axes.middleware.AxesMiddleware"]  # axes must come last
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_FAILURE_LIMITS = tuple(
    int(env_number(name, default))
    for name, default in (
        ("LOGIN_FAILURES_ACCOUNT_ADDRESS", 5),
        ("LOGIN_FAILURES_ACCOUNT", 10),
        ("LOGIN_FAILURES_ADDRESS", 50),
    )
)
if min(LOGIN_FAILURE_LIMITS) < 1:
    raise ImproperlyConfigured("LOGIN_FAILURES_* must be at least 1.")
AXES_FAILURE_LIMIT = LOGIN_FAILURE_LIMITS[0]
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "username", "ip_address"]
AXES_HANDLER = "memoryconsole.web.lockout.AccountFirstHandler"
AXES_CLIENT_IP_CALLABLE = "memoryconsole.web.lockout.request_client_address"
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "web/locked_out.html"
AXES_ENABLE_ADMIN = False  # the console has no Django admin; the commands above unlock

# HTTPS=1: the console is served over HTTPS by a proxy in front (nginx, Caddy, a load balancer)
# that sets X-Forwarded-Proto and appends the client's address to X-Forwarded-For. Cookies are
# then sent over HTTPS only, browsers are told to use HTTPS for a year (HSTS), and a plain-HTTP
# request is redirected.
HTTPS = env_bool("HTTPS", False)
_proxies = os.environ.get("TRUSTED_PROXIES")
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", []) if _proxies is not None or not HTTPS else None
for _proxy in TRUSTED_PROXIES or ():
    try:
        ipaddress.ip_network(_proxy, strict=False)
    except ValueError:
        raise ImproperlyConfigured(
            f"TRUSTED_PROXIES: {_proxy!r} is not an address or a network (e.g. 10.0.0.5, 10.1.0.0/16)."
        ) from None
if HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = 365 * 24 * 3600
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
# --- end of log-in throttling and HTTPS ----------------------------------------------------

# --- Upkeep and synthesis: memory that keeps itself clean --------------------------
# UPKEEP_MODE       off (the default) | report (record proposals for the console) | write
# UPKEEP_CRON       when the periodic job queues one upkeep pass per bot (procrastinate cron)
# UPKEEP_STALE_DAYS a learned, low-importance fact unused this long is archived
# UPKEEP_MAX_PAIRS  candidate contradiction pairs judged per bot per pass (model calls / 10)
# SYNTHESIS_MODE    off (the default) | report | write; SYNTHESIS_MAX_FACTS facts shown per call
# HEALTH_UNUSED_DAYS  the health report's "never used" age
# Model calls go to the learning model and share LEARNING_DAILY_TOKENS.
UPKEEP_MODE = env_choice("UPKEEP_MODE", "off", ("off", "report", "write"))
UPKEEP_CRON = os.environ.get("UPKEEP_CRON", "17 3 * * *")
UPKEEP_STALE_DAYS = env_number("UPKEEP_STALE_DAYS", 90)
UPKEEP_MAX_PAIRS = env_number("UPKEEP_MAX_PAIRS", 200)
SYNTHESIS_MODE = env_choice("SYNTHESIS_MODE", "off", ("off", "report", "write"))
# AGENT_LESSONS  off (the default) | propose: `manage.py upkeep --all --lessons` proposes a bot's
#                recurring lessons (type=learning facts) for its About me note, in its Proposals
#                inbox; applied only when someone who may edit the bot accepts.
AGENT_LESSONS = env_choice("AGENT_LESSONS", "off", ("off", "propose"))
SYNTHESIS_MAX_FACTS = env_number("SYNTHESIS_MAX_FACTS", 150)
HEALTH_UNUSED_DAYS = env_number("HEALTH_UNUSED_DAYS", 60)
# HEALTH_INLINE_FACTS  a store up to this size gets its health report inline, larger in the worker
HEALTH_INLINE_FACTS = env_number("HEALTH_INLINE_FACTS", 5_000)
# UPKEEP_SIMILAR_COSINE / _WORDS  how alike two facts must be (by meaning / by words) to be
#                offered as likely duplicates
UPKEEP_SIMILAR_COSINE = env_number("UPKEEP_SIMILAR_COSINE", 0.90, float)
UPKEEP_SIMILAR_WORDS = env_number("UPKEEP_SIMILAR_WORDS", 0.65, float)
# USAGE_FLUSH_NOTES / _SECONDS  recall and prompt uses are counted in memory and written when
#                this many distinct facts wait, or this long after the last write
USAGE_FLUSH_NOTES = env_number("USAGE_FLUSH_NOTES", 20_000)
USAGE_FLUSH_SECONDS = env_number("USAGE_FLUSH_SECONDS", 30.0, float)
# SOURCES_KEEP_DAYS  a served prompt section's digest and fact ids are kept this long, for the
#                exchange that reports it (docs/api.md, "Memory sources")
# SOURCES_RECALL_WINDOW_SECONDS  a recall counts as retrieved for the next exchange reported in
#                the same bot and room within this long (and since the exchange before it)
SOURCES_KEEP_DAYS = env_number("SOURCES_KEEP_DAYS", 7)
SOURCES_RECALL_WINDOW_SECONDS = env_number("SOURCES_RECALL_WINDOW_SECONDS", 600)
# --- end of upkeep settings ----------------------------------------------------------------------
