"""Redaction: no secret, nor any prefix of one, reaches a file, a log line or an error message.

Secrets reach the harness three ways: an API key from the environment, credentials written
into a URL (``http://user:KEY@proxy/v1``, ``…/v1?api_key=KEY``), and a server that echoes a key
back (in an error body, or in the model's own text).  So the rule is not "do not print the key
variable" but "every text that leaves the process passes through :func:`redact`", which masks

* every value registered with :func:`register` (the run's key, a URL's password), and every
  prefix of one that is at least :data:`MIN_PREFIX` characters long, so a server or a
  truncation that cut the key short still leaks nothing;
* the userinfo of every URL in the text (``scheme://***@host``);
* the value of every query parameter whose name says it is a credential (``key``, ``token``,
  ``sig``, ``password``, …).

Masking always happens on the whole text *before* anything shortens it: callers that clip a
text for display call :func:`redact` first (``clip(redact(text))``), never the reverse.

The registry is process-wide on purpose: a secret registered by the backend that read it is
then masked by every writer in the process (records, ``run.json``, the response cache, the CLI's
error line), without threading it through each.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

MASK = "***"
MIN_PREFIX = 6  # shorter prefixes ("sk-", "Bear") are not secret and would mask ordinary text
MIN_SECRET = 8

_SECRET_PARAM = re.compile(
    r"(key|token|secret|passw|pwd|sig|auth|credential|session|bearer)", re.IGNORECASE
)
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s'\"<>`]+")
_USERINFO = re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.\-]*://)[^/\s@'\"<>`]*@")
_BEARER = re.compile(r"(\bBearer\s+)[A-Za-z0-9._~+/=\-]{8,}", re.IGNORECASE)

_lock = threading.Lock()
_secrets: set[str] = set()
_pattern: re.Pattern[str] | None = None


def register(*values: str | None) -> None:
    """Mask these values (and their prefixes) in everything :func:`redact` sees from now on."""
    global _pattern
    # Placeholder keys of self-hosted servers ("EMPTY", "none", "dummy") are no secrets, and
    # masking them would rewrite ordinary words in answers: real keys are far longer.
    fresh = {v for v in values if v and len(v) >= MIN_SECRET}
    # A URL-encoded form travels in URLs and headers too.
    fresh |= {quote(v, safe="") for v in fresh}
    with _lock:
        if fresh <= _secrets:
            return
        _secrets.update(fresh)
        _pattern = _compile(_secrets)


def register_url(url: str | None) -> None:
    """Register the credentials a URL carries: its userinfo and its credential parameters."""
    for value in url_secrets(url):
        register(value)


def url_secrets(url: str | None) -> list[str]:
    if not url or "://" not in url:
        return []
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    out = []
    netloc = parts.netloc
    if "@" in netloc:
        userinfo = netloc.rsplit("@", 1)[0]
        user, _, password = userinfo.partition(":")
        # user:password puts the secret in the password; a lone token stands as the user
        out.append(unquote(password) if password else unquote(user))
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if _SECRET_PARAM.search(name) and value:
            out.append(value)
    return [v for v in out if v]


def _compile(values: Iterable[str]) -> re.Pattern[str]:
    """One alternation of every secret and every prefix of it down to MIN_PREFIX, longest first."""
    forms: set[str] = set()
    for v in values:
        if len(v) <= MIN_PREFIX:
            forms.add(v)
            continue
        forms.update(v[:n] for n in range(MIN_PREFIX, len(v) + 1))
    ordered = sorted(forms, key=len, reverse=True)
    return re.compile("|".join(re.escape(f) for f in ordered))


def redact_url(url: str) -> str:
    """The URL without userinfo, and with credential query values masked."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return _USERINFO.sub(rf"\1{MASK}@", url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{MASK}@" + netloc.rsplit("@", 1)[1]
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(_SECRET_PARAM.search(k) for k, _ in pairs):
            query = urlencode(
                [(k, MASK if _SECRET_PARAM.search(k) and v else v) for k, v in pairs], safe="*"
            )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact(text: str) -> str:
    """``text`` with every registered secret (or prefix), URL credential and bearer token
    masked.  Apply it to the whole text before clipping it, never after."""
    if not text:
        return text
    pattern = _pattern
    if pattern is not None:
        text = pattern.sub(MASK, text)
    if "://" in text:
        text = _URL.sub(lambda m: redact_url(m.group(0)), text)
    if "earer" in text:
        text = _BEARER.sub(rf"\1{MASK}", text)
    return text


def redact_obj(value: Any) -> Any:
    """Every string inside a JSON-like value (dict keys included) passed through :func:`redact`."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact_obj(k): redact_obj(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_obj(v) for v in value]
    return value


def clip(text: str, limit: int) -> str:
    """Redact, then shorten to ``limit`` characters: the only order that leaks no prefix."""
    text = " ".join(redact(text).split())
    return text if len(text) <= limit else text[:limit] + "…"


class RedactingFilter(logging.Filter):
    """A logging filter that passes every record's message through :func:`redact` (httpx
    logs each request's full URL, userinfo and query included, at INFO)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, ()
        return True


def guard_logger(name: str) -> None:
    """Install :class:`RedactingFilter` on logger ``name`` (once)."""
    logger = logging.getLogger(name)
    if not any(isinstance(f, RedactingFilter) for f in logger.filters):
        logger.addFilter(RedactingFilter())


__all__ = [
    "MASK",
    "RedactingFilter",
    "clip",
    "guard_logger",
    "redact",
    "redact_obj",
    "redact_url",
    "register",
    "register_url",
]
