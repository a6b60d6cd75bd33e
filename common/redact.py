"""Redaction: the one step every outward text passes through.

Log records (a filter on the root logger and every handler, and a log-record factory, so
handlers that Prefect or Apprise create later are covered too), exception messages
(`common.errors.PricingError` redacts its message when it is built, so an error
excerpt is cut from redacted text), command-line output, stored failure reasons, Prefect
artifacts and alert payloads all go through `redact()`.

What is masked (as `***`):
- every credential value the process knows: the values of CREDENTIAL_ENV_VARS, of any
  environment variable whose name says it holds a secret (`*_API_KEY`, `*_SECRET*`,
  `*_TOKEN`, `*PASSWORD*`, `*WEBHOOK*` ...), of the notification targets' `url_env`
  variables (`register_env`), and values handed to `register()` (a Prefect Secret block's
  URL, the keys boto3 resolved from a profile). URL-shaped values are registered with
  their parts (user, password, path segments, query values), so an echo of one part is
  masked too; each value also in its URL-encoded and JSON-escaped forms;
- credential-shaped text: URL user info (`scheme://user:password@`), query or form
  parameters named `key`, `api_key`, `sig`, `signature`, `token`, `code`, `password`,
  `secret`, `X-Amz-*` ..., `Authorization` / `X-Api-Key` header values, `Bearer` and
  `Basic` credentials, AWS SigV4 `Credential=` scopes, JSON fields named like secrets,
  and the shapes of AWS access key ids (`AKIA...`, `ASIA...`) and Google API keys
  (`AIza...`).
"""

from __future__ import annotations

import io
import logging
import os
import re
import threading
from typing import Any
from urllib.parse import quote, quote_plus, unquote, urlsplit

MASK = "***"

# The environment variables of the platform's own credentials (Prefect Cloud). Each
# connector declares the variables it reads its credentials from (`Connector.credentials`,
# connectors/<provider>/__init__.py), registered here when the connector is built
# (`register_env`); the flow, and every command that runs a connector, load the registry
# before their first line, so every connector's are known by then.
CREDENTIAL_ENV_VARS = ("PREFECT_API_KEY",)
# Any other variable whose name says it holds a secret; its value is masked when it is at
# least SECRET_NAME_MIN_LEN long (so a flag such as FOO_TOKEN=1 does not mask every "1").
_SECRET_NAME = re.compile(r"API_?KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL|WEBHOOK", re.I)
SECRET_NAME_MIN_LEN = 8
# Parts of a URL-shaped secret shorter than this are not masked on their own (a path
# segment such as "hooks" is not a secret; tokens are longer).
PART_MIN_LEN = 6

_lock = threading.Lock()
_env_names: set[str] = set(CREDENTIAL_ENV_VARS)
_registered: set[str] = set()
_compiled: dict[frozenset[str], re.Pattern[str] | None] = {}

CREDENTIAL_PARAM_NAMES = (
    r"x-amz-[a-z-]+|api[_-]?key|apikey|key|sig|signature|token|access_token|id_token|"
    r"refresh_token|client_secret|secret|password|passwd|pwd|code|auth|credential"
)
# A masked value ends at a quote or a backslash: in JSON text (the --json output) the
# quote closing a value is escaped (\"), and masking its backslash would break the JSON.
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # user info in a URL: scheme://user:password@host
    (re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^\s/@'\"<>]+@"), r"\1" + MASK + "@"),
    # header values: Authorization: AWS4-HMAC-SHA256 Credential=..., X-Api-Key: ...
    (
        re.compile(
            r"(?i)\b(authorization|proxy-authorization|x-api-key|x-goog-api-key|api-key|"
            r"x-amz-security-token|cookie|set-cookie)(['\"]?\s*[:=]\s*['\"]?)[^'\"\\\r\n,;}]+"
        ),
        r"\1\2" + MASK,
    ),
    (re.compile(r"(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=\-]{4,}"), r"\1\2" + MASK),
    # AWS SigV4 credential scope: Credential=AKIA.../20260101/us-east-1/ec2/aws4_request
    (re.compile(r"(?i)\b(credential=)[^\s,&'\"\\<>]+"), r"\1" + MASK),
    # query or form parameters: ?key=..., &sig=..., Signature=..., X-Amz-Signature=...
    (
        re.compile(rf"(?i)(?<![A-Za-z0-9_\-])((?:{CREDENTIAL_PARAM_NAMES})=)[^&\s'\"\\<>#,;]+"),
        r"\1" + MASK,
    ),
    # JSON or Python-repr fields named like secrets: "api_key": "...", also inside a JSON
    # string (\"api_key\": \"...\")
    (
        re.compile(
            r"(?i)(['\"](?:api[_-]?key|apikey|key|token|access_token|secret|client_secret|"
            r"password|authorization|sig|signature)\\?['\"]\s*:\s*\\?['\"])[^'\"\\]+"
        ),
        r"\1" + MASK,
    ),
    # shapes: AWS access key ids, Google API keys
    (re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"), MASK),
    (re.compile(r"\bAIza[0-9A-Za-z_\-]{35}"), MASK),
)


def register_env(*names: str) -> None:
    """Mask the values of these environment variables too (e.g. a notify target's
    `url_env`), whatever they are named."""
    with _lock:
        _env_names.update(n for n in names if n)


def register(value: str | None) -> None:
    """Mask this value (and, for a URL, its secret parts) from now on."""
    if value and value.strip():
        with _lock:
            _registered.update(secret_forms(value.strip()))


def secret_forms(value: str) -> set[str]:
    """The value, its parts when it is a URL, and the encoded forms an echo may carry."""
    parts = {value}
    if "://" in value:
        try:
            split = urlsplit(value)
            pieces = [split.netloc, split.username, split.password, split.query]
            host = split.hostname or ""
            if host and "." not in host and host != "localhost":  # a token in host position
                pieces.append(host)
            pieces += split.path.split("/") + re.split(r"[&=]", split.query)
        except ValueError:
            pieces = re.split(r"[/:@?&=]", value)
        parts.update(p for p in pieces if p and len(p) >= PART_MIN_LEN)
    forms = set()
    for p in parts:
        forms |= {p, unquote(p), quote(p, safe=""), quote_plus(p, safe=""), p.replace("/", "\\/")}
    return {f for f in forms if len(f) >= 4}


def known_values() -> frozenset[str]:
    """Every credential value this process knows right now."""
    values = set(_registered)
    for name, value in os.environ.items():
        value = value.strip()
        if not value:
            continue
        if name in _env_names or (len(value) >= SECRET_NAME_MIN_LEN and _SECRET_NAME.search(name)):
            values |= secret_forms(value)
    return frozenset(values)


def credential_values() -> frozenset[str]:
    """The whole values of the credentials this process holds (environment and
    registered), each also JSON-escaped: what `mask_credentials` masks in data. Parts of a
    URL-shaped secret are left out: a path segment such as "services" is also data. Walks
    the environment on every call: a landing reads them once for all its pages
    (`Page.stored_bytes`)."""
    values = {v.strip() for v in _registered}
    for name, value in os.environ.items():
        value = value.strip()
        if name in _env_names or _SECRET_NAME.search(name):
            values.add(value)
    values = {v for v in values if len(v) >= SECRET_NAME_MIN_LEN}
    return frozenset(values | {v.replace("/", "\\/") for v in values})


_data_compiled: dict[frozenset[str], re.Pattern[str] | None] = {}


def mask_credentials(text: str) -> str:
    """`text` (a page's body) with every credential value this process holds replaced by
    MASK, and nothing else changed: a provider that echoes a key inside a price document
    stores, stages and publishes `***`, never the key. A regex search, ~0.1 s per 50 MB."""
    values = credential_values()
    if not values:
        return text
    pattern = _data_compiled.get(values)
    if pattern is None:
        ordered = sorted(values, key=len, reverse=True)
        pattern = re.compile("|".join(map(re.escape, ordered)))
        if len(_data_compiled) > 16:
            _data_compiled.clear()
        _data_compiled[values] = pattern
    return pattern.sub(MASK, text) if pattern.search(text) else text


def _known_pattern() -> re.Pattern[str] | None:
    values = known_values()
    pattern = _compiled.get(values)
    if pattern is None and values and values not in _compiled:
        ordered = sorted(values, key=len, reverse=True)  # longest first: no half-masked value
        pattern = re.compile("|".join(map(re.escape, ordered)))
        if len(_compiled) > 64:
            _compiled.clear()
        _compiled[values] = pattern
    return pattern


_TRIGGER_WORDS = ("bearer", "basic", "akia", "asia", "aiza")


def _may_hold_credential(text: str) -> bool:
    """Text with none of these cannot hold a credential-shaped part, so the patterns are
    skipped (most strings of a price document: names, regions, numbers). Plain substring
    tests: ~20x faster than one case-insensitive regex."""
    if "=" in text or ":" in text or "@" in text:
        return True
    low = text.lower()
    return any(word in low for word in _TRIGGER_WORDS)


def _scrubber() -> Any:
    """A function that redacts one string, with the credentials known now compiled once
    (a document of 100k strings is redacted in well under a second)."""
    known = _known_pattern()

    def scrub(text: str) -> str:
        if known is not None:
            text = known.sub(MASK, text)
        if _may_hold_credential(text):
            for regex, replacement in _PATTERNS:
                text = regex.sub(replacement, text)
        return text

    return scrub


def redact(text: Any) -> str:
    """`text` (made a string) with every known credential and credential-shaped part
    masked."""
    text = text if isinstance(text, str) else str(text)
    return _scrubber()(text) if text else text


def redact_doc(doc: Any) -> Any:
    """A JSON-like document with every string in it redacted (keys kept)."""
    scrub = _scrubber()

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return scrub(value) if value else value
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [walk(v) for v in value]
        return value

    return walk(doc)


def masked_value(value: Any) -> Any:
    """How a configuration value may be shown in an error: a URL as its scheme and host
    only (`json://***@example.com/***`), a key-shaped string as its length, containers
    member by member; anything else as it is (redacted)."""
    if isinstance(value, dict):
        return {k: masked_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [masked_value(v) for v in value]
    if not isinstance(value, str):
        return value
    text = value.strip()
    if "://" in text:
        try:
            split = urlsplit(text)
            host = split.hostname or ""
            port = f":{split.port}" if split.port else ""
        except ValueError:
            return f"<a URL, masked: {len(text)} characters>"
        user = f"{MASK}@" if "@" in split.netloc else ""
        rest = f"/{MASK}" if split.path.strip("/") or split.query else ""
        return f"{split.scheme}://{user}{host}{port}{rest}"
    if looks_like_key(text):
        return f"<a key, masked: {len(text)} characters>"
    return redact(value)


def looks_like_key(text: str) -> bool:
    """A long unbroken token mixing letters and digits (an API key, a secret)."""
    return (
        len(text) >= 16
        and re.fullmatch(r"[A-Za-z0-9_\-+/=.~]+", text) is not None
        and re.search(r"[A-Za-z]", text) is not None
        and re.search(r"\d", text) is not None
    ) or text != redact(text)


# -- logging ------------------------------------------------------------------------------


def redact_record(record: logging.LogRecord) -> logging.LogRecord:
    """The record with its message, exception text and stack redacted (in place)."""
    if getattr(record, "_gpu_pricing_redacted", False):
        return record
    try:
        message = record.getMessage()
    except Exception:  # a bad format string: keep what there is, redacted
        message = f"{record.msg} {record.args}"
    record.msg, record.args = redact(message), None
    if record.exc_info and not record.exc_text:
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        record.exc_text = redact(record.exc_text)
        record.exc_info = None  # handlers that render exc_info themselves see no raw text
    if record.stack_info:
        record.stack_info = redact(record.stack_info)
    record._gpu_pricing_redacted = True
    return record


class RedactingFilter(logging.Filter):
    """Redacts every record it sees; drops none."""

    def filter(self, record: logging.LogRecord) -> bool:
        redact_record(record)
        return True


_FILTER = RedactingFilter()
_factory_installed = False


def env_names() -> frozenset[str]:
    """The names of the environment variables whose values are masked whatever they are
    called (the platform's, every built connector's, and registered ones)."""
    with _lock:
        return frozenset(_env_names)


def install_logging() -> None:
    """Redact every log record of this process: a factory that redacts each record when
    it is made (covering handlers configured later, e.g. Prefect's API log handler that
    writes to Prefect's database), plus the filter on the root logger and on every handler
    that exists now. Idempotent. The flow, and every command that runs a connector, load
    the connector registry before their first line, so every connector's credential
    variables (`Connector.credentials`) are known by then."""
    global _factory_installed
    with _lock:
        if not _factory_installed:
            previous = logging.getLogRecordFactory()

            def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
                return redact_record(previous(*args, **kwargs))

            logging.setLogRecordFactory(factory)
            _factory_installed = True
    loggers = [logging.getLogger()] + [
        lg for lg in logging.Logger.manager.loggerDict.values() if isinstance(lg, logging.Logger)
    ]
    for lg in loggers:
        if _FILTER not in lg.filters:
            lg.addFilter(_FILTER)
        for handler in lg.handlers:
            if _FILTER not in handler.filters:
                handler.addFilter(_FILTER)


class RedactingStream(io.TextIOBase):
    """A text stream that redacts what is written to it before passing it on."""

    def __init__(self, raw: Any) -> None:
        self._raw = raw

    def write(self, text: str) -> int:
        # a text stream takes text only: Click probes with write(b"") to tell binary from
        # text streams, and must see the TypeError a real text stream raises
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self._raw.write(redact(text))
        return len(text)

    def flush(self) -> None:
        self._raw.flush()

    def isatty(self) -> bool:
        return self._raw.isatty()

    def fileno(self) -> int:
        return self._raw.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._raw, "encoding", "utf-8")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)
