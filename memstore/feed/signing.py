"""How a webhook delivery is signed, and how a receiver checks it: HMAC-SHA256 with the
endpoint's secret over `<timestamp>.<body>`, sent as

    Memory-Console-Signature: t=<unix seconds>,v1=<hex digest>

Pure functions: no I/O, no clock unless one is passed in. A receiver rejects a signature whose
timestamp is further than `TOLERANCE_S` from its own clock (a replayed old delivery) and
deduplicates by `Memory-Console-Event-Id`, which every redelivery of an event repeats.
"""

import hashlib
import hmac
import secrets
import time

SIGNATURE_HEADER = "Memory-Console-Signature"
EVENT_HEADER = "Memory-Console-Event-Id"
TOLERANCE_S = 300
SECRET_PREFIX = "whsec_"


def secret_new() -> str:
    """A fresh endpoint secret (shown to staff once, kept to sign with)."""
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def signature_of(*, secret: str, timestamp: int, body: bytes) -> str:
    """The hex HMAC-SHA256 of `<timestamp>.<body>` under the secret."""
    signed = str(timestamp).encode() + b"." + body
    return hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()


def signature_header(*, secret: str, body: bytes, now: float | None = None) -> str:
    """The Memory-Console-Signature value for a body sent now."""
    timestamp = int(time.time() if now is None else now)
    return f"t={timestamp},v1={signature_of(secret=secret, timestamp=timestamp, body=body)}"


def signature_valid(
    *, secret: str, header: str, body: bytes, now: float | None = None, tolerance=TOLERANCE_S
) -> bool:
    """Whether the header signs this body with this secret, within `tolerance` seconds."""
    parts = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    try:
        timestamp = int(parts.get("t", ""))
    except ValueError:
        return False
    if abs((time.time() if now is None else now) - timestamp) > tolerance:
        return False
    expected = signature_of(secret=secret, timestamp=timestamp, body=body)
    return hmac.compare_digest(expected, parts.get("v1", ""))
