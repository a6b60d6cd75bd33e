"""Alert delivery: the changes of state `services.alerts` recorded in `alert_events`,
delivered through Apprise. Nothing here reads prices or decides a rule.

Every undelivered event is delivered, oldest first: the new ones and those a previous run
failed to deliver. `pending_targets` holds, per target name, the error of each target that
has not accepted the event yet (a JSON object); only those targets are retried, so a target
that took the event does not get it twice. An event is `delivered` once every target took
it. Delivery is at least once: a crash after sending and before publishing sends again next
run.

Secrets: a target's Apprise URL is read from its environment variable or Prefect Secret
block at delivery time and kept only in memory. Apprise's own log lines stay inside the
send (its DEBUG lines print URLs): captured at WARNING and scrubbed of every part of the
URL before they become a delivery error. The URL is also registered with the process-wide
redaction (common.redact), so no log line, output or stored error shows it.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from common.redact import redact, register
from models import alert_rules as rules
from warehouse import db, queries

if TYPE_CHECKING:  # annotations only: importing the API does not load the config models
    from services.config import Target

log = logging.getLogger(__name__)

APP_ID = "gpu-pricing"


@dataclass
class Delivery:
    rule: str
    state: str
    fired_at: datetime
    target: str
    delivered: bool
    error: str | None = None


def _pending(con) -> list[dict[str, Any]]:
    """Undelivered events that still have targets to try, oldest first."""
    rows = queries.read_rows(con, "alert_events_pending").to_dicts()
    out = []
    for row in rows:
        try:
            pending = json.loads(row["pending_targets"])
        except json.JSONDecodeError:
            pending = None
        if isinstance(pending, dict) and pending:
            out.append({**row, "pending": pending})
    return out


# -- delivery -----------------------------------------------------------------------------


class DeliveryError(Exception):
    """A target could not take a notification; the message never holds the URL."""


def resolve_url(target: Target) -> str:
    """The target's Apprise URL from its environment variable or Prefect Secret block."""
    if target.url_env:
        url = os.environ.get(target.url_env, "").strip()
        if not url:
            raise DeliveryError(f"environment variable {target.url_env} is not set")
        register(url)  # masked in every log line, error and output from now on
        return url
    try:
        from prefect.blocks.system import Secret

        url = str(Secret.load(target.secret_block).get()).strip()
    except Exception as exc:
        raise DeliveryError(
            f"Prefect Secret block {target.secret_block!r} could not be read ({type(exc).__name__})"
        ) from None
    if not url:
        raise DeliveryError(f"Prefect Secret block {target.secret_block!r} is empty")
    register(url)
    return url


def _secret_parts(url: str) -> list[str]:
    """Every piece of a URL that could be a secret (Apprise puts tokens in the host, the
    path, the user info or the query), longest first, for scrubbing."""
    parts = {url}
    try:
        split = urlsplit(url)
        pieces = [split.netloc, split.username, split.password, split.hostname, split.query]
        pieces += split.path.split("/") + re.split(r"[&=]", split.query)
    except ValueError:
        pieces = re.split(r"[/:@?&=]", url)
    for p in pieces:
        if p and len(p) >= 4:
            parts.update({p, unquote(p)})
    return sorted(parts, key=len, reverse=True)


def scrub(text: str, url: str) -> str:
    """What Apprise said about a send, without any part of the target's URL, and through
    the process-wide redaction (every other known credential)."""
    for part in _secret_parts(url):
        text = text.replace(part, "***")
    return redact(text)


# Loggers that print a target's URL (Apprise at DEBUG, urllib3 for every request it makes;
# some Apprise services keep a token in the host, which its warnings name).
_URL_LOGGERS = ("apprise", "urllib3", "requests")


@contextmanager
def _url_logs_kept_in() -> Iterator[None]:
    """While sending, those loggers stop at WARNING and keep their records to themselves:
    what Apprise said reaches our log only scrubbed, through DeliveryError."""
    loggers = [logging.getLogger(name) for name in _URL_LOGGERS]
    saved = [(lg.level, lg.propagate) for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.WARNING)
        lg.propagate = False
    try:
        yield
    finally:
        for lg, (level, propagate) in zip(loggers, saved, strict=True):
            lg.setLevel(level)
            lg.propagate = propagate


def send(target: Target, title: str, body: str, state: str) -> None:
    """One notification to one target; raises DeliveryError with a scrubbed reason."""
    import apprise

    url = resolve_url(target)
    notifier = apprise.Apprise(asset=apprise.AppriseAsset(app_id=APP_ID))
    with _url_logs_kept_in(), apprise.LogCapture(level=logging.WARNING) as captured:
        if not notifier.add(url):
            raise DeliveryError(f"its URL ({target.source}) is not a valid Apprise URL")
        kind = apprise.NotifyType.FAILURE if state == rules.ALARM else apprise.NotifyType.SUCCESS
        ok = notifier.notify(body=redact(body), title=redact(title), notify_type=kind)
        detail = captured.getvalue()
    if not ok:
        lines = [ln.split(" - ", 2)[-1] for ln in detail.strip().splitlines() if ln.strip()]
        reason = scrub("; ".join(lines), url) or "Apprise reported a failure"
        raise DeliveryError(reason[:500])


def title_for(rule: str, state: str) -> str:
    return f"[gpu-pricing] {state} {rule}"


def body_for(event: dict[str, Any], now: datetime) -> str:
    # an event from an earlier run is a retry: say when the state really changed
    late = event["fired_at"] < now
    suffix = f"\n(state changed at {event['fired_at']:%Y-%m-%d %H:%M:%S} UTC)" if late else ""
    return event["message"] + suffix


def deliver_pending(con, targets: tuple[Target, ...], now: datetime) -> list[Delivery]:
    by_name = {t.name: t for t in targets}
    out: list[Delivery] = []
    for event in _pending(con):
        remaining: dict[str, str] = {}
        for name, previous_error in event["pending"].items():
            target = by_name.get(name)
            if target is None:
                log.warning(
                    "alert %s: target %r is no longer configured; not retried (last error: %s)",
                    event["rule"],
                    name,
                    previous_error,
                )
                continue
            try:
                send(
                    target,
                    title_for(event["rule"], event["state"]),
                    body_for(event, now),
                    event["state"],
                )
            except Exception as exc:  # a delivery failure is recorded, never fatal
                error = redact(str(exc) if isinstance(exc, DeliveryError) else type(exc).__name__)
                remaining[name] = error
                log.warning("alert %s: delivery to %s failed: %s", event["rule"], name, error)
                out.append(
                    Delivery(event["rule"], event["state"], event["fired_at"], name, False, error)
                )
            else:
                out.append(Delivery(event["rule"], event["state"], event["fired_at"], name, True))
        delivered = not remaining and any(n in by_name for n in event["pending"])
        db.run(
            con,
            queries.sql("alert_event_delivered"),
            {
                "delivered": delivered,
                "pending_targets": json.dumps(remaining, sort_keys=True) if remaining else None,
                "rule": event["rule"],
                "fired_at": event["fired_at"],
            },
        )
    return out
