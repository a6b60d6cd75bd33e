"""A snapshot file's body is taken byte for byte, found by its offsets (never decoded and
re-encoded, never copied more than once); a file laid out otherwise is decoded whole."""

from __future__ import annotations

import pytest

from common.errors import InvalidInput
from connectors.kit.snapshot import read_provider

META = b'{"fetched_at": "2026-11-20T02:00:00Z", "request": {"q": "\\"body\\""}'


def _page(tmp_path, raw: bytes):
    folder = tmp_path / "p" / "e"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "e-0001.json").write_bytes(raw)
    (page,) = read_provider(tmp_path, "p")
    assert page.request == {"q": '"body"'}
    return page


@pytest.mark.parametrize(
    ("tail", "body"),
    [
        (b', "body": {"a": 1}}', b'{"a": 1}'),
        (b',"body":[1, 2]}\n\n', b"[1, 2]"),
        (b', "body" :\t {"a": [ ]}  \n}\n', b'{"a": [ ]}'),
        (b',\n "body": []}', b"[]"),
        (b', "body":  {"a" : 1} }', b'{"a" : 1}'),  # kept as written, spaces and all
    ],
)
def test_the_body_is_the_bytes_between_its_key_and_the_closing_brace(tmp_path, tail, body):
    page = _page(tmp_path, META + tail)
    assert page.data == body and type(page.data) is bytes


@pytest.mark.parametrize(
    ("tail", "decoded"),
    [
        (b', "body": {"a": 1}, "z": 2}', b'{"a":1}'),  # a key after the body
        (b', "body": 5}', b"5"),  # not an object or array
        (b', "body": "text"}', b'"text"'),
    ],
)
def test_any_other_layout_is_decoded_whole(tmp_path, tail, decoded):
    assert _page(tmp_path, META + tail).data == decoded


@pytest.mark.parametrize(
    "tail", [b', "body": }', b', "body"', b', "body": {"a": 1}', b', "body": {}', b', "body"}']
)
def test_a_file_that_is_not_json_is_one_clear_error(tmp_path, tail):
    with pytest.raises(InvalidInput, match="not valid JSON"):
        _page(tmp_path, META + tail)
