"""The failures every connector raises (under common.errors.PricingError).

Connectors raise the specific type low; flows decide whether to skip, retry or fail.
Messages name the provider, the endpoint and the offending value, never a credential:
every message is redacted (common.redact) when the exception is built, and an
error excerpt is cut from the redacted text.
"""

from __future__ import annotations

from common.errors import PricingError
from common.redact import redact


class ConnectorError(PricingError):
    def __init__(self, provider: str, endpoint: str, message: str) -> None:
        self.provider = provider
        self.endpoint = endpoint
        super().__init__(f"{provider}/{endpoint}: {message}")


class MissingCredentials(ConnectorError):
    """No credentials in the standard chain: the provider (or endpoint) is skipped, not failed."""


class SourceUnavailable(ConnectorError):
    """Retryable: timeouts, connection errors, 5xx, 429 and throttling."""


class UnexpectedResponse(ConnectorError):
    """Not retryable: the response does not have the shape we parse (schema drift, 4xx)."""

    def __init__(self, provider: str, endpoint: str, message: str, excerpt: str = "") -> None:
        # redacted first, then cut: a cut never leaves half a credential unmasked
        self.excerpt = redact(excerpt)[:300]
        detail = f"{message}; excerpt: {self.excerpt}" if excerpt else message
        super().__init__(provider, endpoint, detail)


