"""A snapshot file's body is taken byte for byte, found by its offsets (never decoded and
re-encoded, never copied more than once); a file laid out otherwise is decoded whole."""

from __future__ import annotations

import pytest

from connectors.kit.snapshot import _split

META = b'{"fetched_at": "2026-11-20T02:00:00Z", "request": {"q": "\\"body\\""}'


@pytest.mark.parametrize(
    ("tail", "body"),
    [
        (b', "body": {"a": 1}}', b'{"a": 1}'),
        (b',"body":[1, 2]}\n\n', b"[1, 2]"),
        (b', "body" :\t {"a": [ ]}  \n}\n', b'{"a": [ ]}'),
        (b',\n "body": []}', b"[]"),
    ],
)
def test_the_body_is_the_bytes_between_its_key_and_the_closing_brace(tail, body):
    meta, got = _split(META + tail)
    assert got == body and type(got) is bytes
    assert meta == {"fetched_at": "2026-11-20T02:00:00Z", "request": {"q": '"body"'}}


@pytest.mark.parametrize(
    "tail",
    [
        b', "body": {"a": 1}, "z": 2}',  # a key after the body
        b', "body": 5}',  # not an object or array
        b', "body": "text"}',
        b', "body": }',
        b', "body":}',
        b', "body"',
        b', "body": {"a": 1}',  # no closing brace
        b', "body": {}',
        b', "body"}',
        b"}",
    ],
)
def test_any_other_layout_is_left_to_the_whole_decode(tail):
    assert _split(META + tail) is None


def test_a_body_key_without_the_envelope_keys_is_not_split():
    assert _split(b'{"body": {"a": 1}}') is None
    assert _split(b" ") is None
