"""Shared helpers for the AWS tests: recorded fixtures and pages (parse takes them as
`connectors.kit.page.pages_frame(pages)`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime

import pytest

from connectors.kit.page import Page
from tests.conftest import FIXTURES

AWS_FIXTURES = FIXTURES / "aws"
FETCHED_AT = datetime(2026, 11, 20, 2)


@pytest.fixture
def aws_fixture() -> Callable[[str], dict]:
    def load(name: str) -> dict:
        return json.loads((AWS_FIXTURES / name).read_text())

    return load


def page(endpoint: str, body: dict, region: str = "us-east-1", at: datetime = FETCHED_AT) -> Page:
    return Page("aws", endpoint, at, {"region": region} if region else {}, body=body)


@pytest.fixture
def make_page() -> Callable[..., Page]:
    return page
