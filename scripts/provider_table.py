"""Write docs/providers.md's provider table from the registry.

    uv run python scripts/provider_table.py           # rewrite the table in place
    uv run python scripts/provider_table.py --check   # exit 1 when the table is stale

One row per registered connector, in the registry's order. Its source and what it gives
are the connector's own words (`Connector.doc`, in its package's `__init__.py`); its auth
is derived from its kit JSON endpoints' declared credentials and auth steps
(connectors.kit.auth), or, for a connector with a fetch of its own (an SDK's credential
chain, or none), is its `doc.auth`. A connector without a `doc` fails the script, so a
new provider documents itself in its folder and nothing else is edited by hand.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from connectors import registry
from connectors.kit.auth import Credential, OAuth2ClientCredentials, Signed
from connectors.kit.connector import Connector

DOC = Path(__file__).resolve().parent.parent / "docs" / "providers.md"
START = "<!-- provider table: written by scripts/provider_table.py from the registry -->"
END = "<!-- end of provider table -->"


def _names(env: tuple[str, ...]) -> str:
    first = f"`{env[0]}`"
    return first if len(env) == 1 else f"{first} (or {', '.join(f'`{n}`' for n in env[1:])})"


def _credential(c: Credential) -> str:
    where = (
        f" in the path `{{{c.path}}}`" if c.path
        else f" as `?{c.query}=`" if c.query
        else f" as `Authorization: {c.scheme.strip()}`" if c.header == "Authorization" and c.scheme
        else f" in the `{c.header}` header" if c.header else ""
    )  # fmt: skip
    return f"{'optional ' if c.optional else ''}{_names(c.env)}{where}"


def auth_cell(connector: Connector) -> str:
    """How a connector's credentials are read: derived from its JSON endpoints'
    declarations when it is built from them, else its own words (`doc.auth`)."""
    if not connector.json_endpoints:
        assert connector.doc is not None
        return connector.doc.auth or "none"
    parts: list[str] = []
    for endpoint in connector.json_endpoints:
        parts += [_credential(c) for c in endpoint.credentials]
        step = endpoint.auth
        if isinstance(step, OAuth2ClientCredentials):
            ids = " / ".join(_names(c.env) for c in step.credentials)
            parts.append(f"OAuth2 client credentials {ids}")
        elif isinstance(step, Signed):
            keys = ", ".join(_names(c.env) for c in step.credentials)
            parts.append(f"signed requests: {keys}")
    return " + ".join(dict.fromkeys(parts)) or "none"


def table() -> str:
    """The table, one row per registered connector in the registry's order."""
    missing = [name for name, c in registry.PROVIDERS.items() if c.doc is None]
    if missing:
        raise SystemExit(f"no doc= in the Connector of: {', '.join(missing)}")
    rows = ["| provider | source | auth | gives |", "|---|---|---|---|"]
    for name, c in registry.PROVIDERS.items():
        assert c.doc is not None
        cells = (f"`{name}`", c.doc.source, auth_cell(c), c.doc.gives)
        rows.append("| " + " | ".join(x.replace("|", "\\|") for x in cells) + " |")
    return "\n".join(rows)


def written(text: str) -> str:
    """`text` (docs/providers.md) with the table between its markers replaced."""
    if START not in text or END not in text:
        raise SystemExit(f"{DOC}: the table markers are missing")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{table()}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the table is stale")
    args = parser.parse_args(argv)
    text = DOC.read_text(encoding="utf-8")
    new = written(text)
    if args.check:
        if new != text:
            print(f"{DOC.name}: the provider table is stale; run scripts/provider_table.py")
            return 1
        return 0
    DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
