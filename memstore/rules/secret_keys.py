"""Our own key shapes (the ones detect-secrets lacks): each a
kind (what a refusal names), a pattern, an optional check of the match, and a gate. Used by
`memstore.rules.secrets`, which adds detect-secrets' plugins and the prose rules; texts arrive
folded (`memstore.rules.normalise`). A gate is searched in the lower-cased text: a rule is tried
only when its gate is there (most texts hold no run of 16 key characters, so most key rules
are skipped); a gate must match every text its rule can match.
"""

import base64
import math
import re
from collections.abc import Callable

from memstore.rules.secret_prose import NOT_A_VALUE

# Every rule gated by LONG_RUN matches a run of at least 16 of these characters; texts without one
# (most of them) skip those rules.
LONG_RUN = re.compile(r"[\w.+/=$~-]{16,}")
URL = re.compile(r"://")
PEM = re.compile(r"private|putty")
_ENV = re.compile(r"(?:_|api|app|access|secret)(?:key|token|secret|pass|pwd|auth|credential)")


def _luhn_ok(digits: str) -> bool:
    total = 0
    for i, char in enumerate(reversed(digits)):
        n = int(char)
        if i % 2:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


def _card_ok(match: re.Match[str]) -> bool:
    # Issuers' numbers start with 2-6 (ISBNs start 97, order numbers rarely pass all three).
    # Written in groups, a card number starts with a group of four (4-4-4-4, 4-6-5): an order
    # number 268-7435715-4766267 does not.
    text = match.group()
    digits = re.sub(r"\D", "", text)
    seps = set(re.sub(r"\d", "", text))
    grouped = not seps or re.match(r"\d{4}\D", text) is not None
    return (
        13 <= len(digits) <= 19
        and digits[0] in "23456"
        and len(seps) <= 1
        and grouped
        and _luhn_ok(digits)
    )


def _entropy(value: str) -> float:
    counts = {c: value.count(c) for c in set(value)}
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _random_key(match: re.Match[str]) -> bool:
    # A long run of letters and digits mixing all three classes, like a key, not a word or a
    # hex digest (commit hashes are lower-case only).
    value = match.group("value")
    classes = sum(bool(re.search(p, value)) for p in ("[a-z]", "[A-Z]", "[0-9]"))
    return classes == 3 and _entropy(value) > 3.5


def _basic_auth(match: re.Match[str]) -> bool:
    # "Basic <base64 of user:password>", as in an Authorization header.
    try:
        decoded = base64.b64decode(match.group("value"), validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return False
    return ":" in decoded


def _mixed(match: re.Match[str]) -> bool:
    # Upper case, lower case and digits all present: a key, not a word run together.
    value = match.group()
    return bool(
        re.search("[a-z]", value) and re.search("[A-Z]", value) and re.search("[0-9]", value)
    )


_PLACEHOLDER = re.compile(
    r"^[$<{%]|\$\{|\.\.\.|^\*+$|x{4,}|environ|getenv\(|process\.env|^(?:none|null|nil|true|false|empty|changeme|change_me|secret|password|"
    r"redacted|hidden|todo|tbd|placeholder|example|your[_-].*|.*[_-]here)$",
    re.I,
)
_ENV_PASSWORD = re.compile(r"(?:PASSWORD|PASSWD|PWD|PASS|PASSPHRASE|SECRET)$", re.I)
# Names the quoted-key rule takes as plain words ("token", "api_key"): a value needs the
# shape of a key, as for an environment name ending in KEY or TOKEN.


def _env_ok(match: re.Match[str]) -> bool:
    # `DB_PASSWORD=…`, `DD_API_KEY=…`: a value, not a placeholder or a reference to one.
    value = match.group("value").rstrip(";,")
    if _PLACEHOLDER.search(value):
        return False
    if _ENV_PASSWORD.search(match.group("name")):
        return len(value) >= 3 and value.lower() not in NOT_A_VALUE
    classes = sum(bool(re.search(p, value)) for p in ("[a-z]", "[A-Z]", "[0-9]", r"[^A-Za-z0-9]"))
    return len(value) >= 8 and (classes >= 2 or len(value) >= 20)


_ENV_NAME = (
    r"(?P<name>[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*_(?:"
    r"(?:API|APP|SECRET|ACCESS|PRIVATE|MASTER|ENCRYPTION|SIGNING|LICENSE|CLIENT|ADMIN|SERVICE|"
    r"AUTH|WRITE|READ|INGEST|INSERT|ROOT|DEPLOY|ACCOUNT|GLOBAL|USER)_?KEY|TOKEN|SECRET|PASSWORD|"
    r"PASSWD|PWD|PASS|PASSPHRASE|CREDENTIALS?|AUTH)|(?:API|APP|ACCESS|SECRET)_?KEY|"
    r"(?:AUTH|ACCESS|API|BEARER|REFRESH|BOT)_TOKEN|CLIENT_SECRET)"
)

_NO_GATE = None
# Our own key shapes: (kind, pattern, extra check of the match or None, regex flags, gate).
_SHAPES: list[tuple[str, str, Callable[[re.Match[str]], bool] | None, int, re.Pattern | None]] = [
    ("a Memory Console token", r"\bmct_[A-Za-z0-9_-]{20,}", None, 0, LONG_RUN),
    ("a private key", r"-----(?:BEGIN|END) [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----", None, 0, PEM),
    ("a PuTTY private key", r"PuTTY-User-Key-File-\d|\bPrivate-(?:Lines|MAC):", None, 0, PEM),
    ("an age secret key", r"\bAGE-SECRET-KEY-1[0-9A-Z]{50,}", None, 0, LONG_RUN),
    (
        # The base64 body of a key without its PEM lines: DER of a private key starts with a
        # SEQUENCE and version 0 (PKCS#1, PKCS#8, DSA) or 1 (EC); OpenSSH's with its magic.
        "a private key",
        r"\b(?:MII[A-Za-z0-9+/]{3}IBA(?:AK|DAN)|MIG[A-Za-z0-9+/]AgE[AB]|M[GH][A-Za-z0-9+/]CAQEE"
        r"|MC4CAQAwBQYDK2Vw|b3BlbnNzaC1rZXktdjE)[A-Za-z0-9+/]{16,}",
        None,
        0,
        LONG_RUN,
    ),
    (
        "a GitHub token",
        r"\b(?:github_pat_[A-Za-z0-9_]{22,}|gh[pousr]_[A-Za-z0-9]{30,})",
        None,
        0,
        LONG_RUN,
    ),
    (
        "an OpenAI or Anthropic API key",
        r"\bsk-(?:proj-|svcacct-|admin-|ant-(?:api\d\d-)?)?[A-Za-z0-9_-]{20,}",
        None,
        0,
        LONG_RUN,
    ),
    ("an API key", r"\b(?:sk|pk|rk)-[A-Za-z0-9]{2,16}-[A-Za-z0-9_-]{16,}", None, 0, LONG_RUN),
    (
        "a Stripe key",
        r"\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}|\bwhsec_[A-Za-z0-9]{24,}",
        None,
        0,
        LONG_RUN,
    ),
    ("an npm token", r"\bnpm_[A-Za-z0-9]{30,}", None, 0, LONG_RUN),
    ("a Hugging Face token", r"\bhf_[A-Za-z0-9]{30,}", None, 0, LONG_RUN),
    (
        "a Slack token",
        r"\bxox[abposrce]-[A-Za-z0-9-]{10,}|\bxapp-\d-[A-Za-z0-9-]{10,}",
        None,
        0,
        LONG_RUN,
    ),
    (
        "a Slack webhook",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/]{16,}",
        None,
        0,
        LONG_RUN,
    ),
    (
        "a Discord webhook",
        r"discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{20,}",
        None,
        0,
        LONG_RUN,
    ),
    ("a Google API key", r"\bAIza[0-9A-Za-z_-]{35}", None, 0, LONG_RUN),
    ("a Google OAuth secret", r"\bGOCSPX-[A-Za-z0-9_-]{20,}", None, 0, LONG_RUN),
    ("an AWS access key", r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b", None, 0, LONG_RUN),
    ("a HashiCorp Vault token", r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}", None, 0, LONG_RUN),
    ("a HashiCorp Vault token", r"(?<![\w.])s\.[A-Za-z0-9]{24}\b", _mixed, 0, LONG_RUN),
    ("a Databricks token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b", None, 0, LONG_RUN),
    ("a Pulumi token", r"\bpul-[a-f0-9]{40}\b", None, 0, LONG_RUN),
    ("a Postman API key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b", None, 0, LONG_RUN),
    ("a Sentry token", r"\bsntry[us]_[A-Za-z0-9+/=_-]{40,}", None, 0, LONG_RUN),
    ("an Airtable token", r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b", None, 0, LONG_RUN),
    ("an Airtable token", r"\bkey[A-Za-z0-9]{14}\b", _mixed, 0, LONG_RUN),  # the old API keys
    (
        "a Grafana token",
        r"\bglsa_[A-Za-z0-9]{32}_[a-f0-9]{8}\b|\bgl(?:c|sa)_[A-Za-z0-9+/=_-]{32,}"
        r"|\beyJrIjoi[A-Za-z0-9+/=]{30,}",  # an old API key: base64 of {"k":"…
        None,
        0,
        LONG_RUN,
    ),
    (
        "a New Relic key",
        r"\bNR(?:AK|AA|II|JS|RA|SP)-[A-Za-z0-9]{19,}|\b[a-f0-9]{36}NRAL\b",
        None,
        0,
        LONG_RUN,
    ),
    (
        "a Square access token",
        r"\bEAAA[A-Za-z0-9_-]{40,}|\bsq0(?:atp|csp|idp)-[A-Za-z0-9_-]{20,}",
        None,
        0,
        LONG_RUN,
    ),
    ("a Facebook access token", r"\bEAA[A-Za-z0-9]{30,}", _mixed, 0, LONG_RUN),
    (
        "a Braintree access token",
        r"\baccess_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}\b",
        None,
        0,
        LONG_RUN,
    ),
    (
        # HS256 and RS256 alike: a header and a payload that are JSON objects, and a signature.
        "a JSON Web Token",
        r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        None,
        0,
        LONG_RUN,
    ),
    (
        "an AWS secret key",
        r"(?<![A-Za-z0-9/+=])(?P<value>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        _random_key,
        0,
        LONG_RUN,
    ),
    ("a DigitalOcean token", r"\bdo[pro]_v1_[a-f0-9]{64}", None, 0, LONG_RUN),
    ("a Shopify token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}", None, 0, LONG_RUN),
    ("a Twilio or Mailgun key", r"\bkey-[a-f0-9]{32}\b", None, 0, LONG_RUN),
    (
        "a bearer token",
        r"\b(?:bearer|token)\s+(?=[A-Za-z0-9._~+/-]*\d)[A-Za-z0-9._~+/-]{20,}=*",
        None,
        re.I,
        LONG_RUN,
    ),
    (
        "a secret in an environment line",
        rf"(?<![\w$])[\"']?{_ENV_NAME}[\"']?\s*(?::=|=|:)\s*[\"']?(?P<value>[^\s\"'`]{{3,}})",
        _env_ok,
        re.I,
        _ENV,
    ),
    (
        # JSON or YAML with a quoted key: "password": "…", 'api_key': '…'.
        "a secret in an environment line",
        r"[\"'](?P<name>password|passwd|pwd|pass|passphrase|secret|token|api[_-]?key|apikey|"
        r"access[_-]?token|auth[_-]?token|client[_-]?secret|private[_-]?key)[\"']\s*:\s*"
        r"[\"'](?P<value>[^\"'\s]{3,})[\"']",
        _env_ok,
        re.I,
        re.compile(r"[\"']\s*:"),
    ),
    (
        "an Azure connection string",
        r"\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)\s*=\s*[^;\s]{8,}",
        None,
        re.I,
        re.compile("accountkey|sharedaccess"),
    ),
    (
        "a password in a connection string",
        r"(?:^|[;\s])(?:Password|Pwd)\s*=\s*[^;\s]{3,}",
        None,
        re.I,
        re.compile("password|pwd"),
    ),
    (
        "credentials in a URL",
        r"\b[a-z][a-z0-9+.-]{1,30}://[^\s/@:]*:[^\s/@]+@[^\s/@]",
        None,
        re.I,
        URL,
    ),
    (
        "a secret in a URL",
        r"[?&;](?:password|passwd|pwd|pass|secret|client_secret|token|access_token|auth_token|api_?key|apikey|sig|signature|key)=[^&\s#]{8,}",
        None,
        re.I,
        re.compile("="),
    ),
    (
        "a basic-auth header",
        r"\bbasic\s+(?P<value>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])",
        _basic_auth,
        re.I,
        re.compile("basic"),
    ),
    (
        "a payment card number",
        # Not inside a run of letters and digits (a commit hash holds long digit runs).
        r"\d(?<![A-Za-z\d+]\d)(?<![\d+][ .-]\d)(?:[ .-]?\d){12,18}(?![A-Za-z\d])",
        _card_ok,
        0,
        _NO_GATE,
    ),
]


KEY_SHAPES: list[
    tuple[str, re.Pattern[str], Callable[[re.Match[str]], bool] | None, re.Pattern | None]
] = [
    (kind, re.compile(pattern, flags), check, gate) for kind, pattern, check, flags, gate in _SHAPES
]
"""(kind, pattern, check, gate) of each of our key shapes, in the order they are tried."""
