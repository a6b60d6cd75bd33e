"""The one dict of connectors (name -> the code that reads one source) that the CLI, the
flows and the tests iterate. A connector is named after the provider it reads, except
`sheets`, which reads the price sheets of several providers."""

from __future__ import annotations

from connectors import aws, azure, gcp, lambdalabs, oci, runpod, sheets, vastai
from connectors.cloudrift import CONNECTOR as CLOUDRIFT
from connectors.crusoe import CONNECTOR as CRUSOE
from connectors.digitalocean import CONNECTOR as DIGITALOCEAN
from connectors.fluidstack import CONNECTOR as FLUIDSTACK
from connectors.hotaisle import CONNECTOR as HOTAISLE
from connectors.hyperstack import CONNECTOR as HYPERSTACK
from connectors.jarvislabs import CONNECTOR as JARVISLABS
from connectors.kit.connector import Connector
from connectors.nebius import CONNECTOR as NEBIUS
from connectors.seeweb import CONNECTOR as SEEWEB
from connectors.verda import CONNECTOR as VERDA
from connectors.vultr import CONNECTOR as VULTR

PROVIDERS: dict[str, Connector] = {
    c.name: c
    for c in (
        azure.CONNECTOR,
        aws.CONNECTOR,
        gcp.CONNECTOR,
        lambdalabs.CONNECTOR,
        runpod.CONNECTOR,
        vastai.CONNECTOR,
        oci.CONNECTOR,
        sheets.CONNECTOR,
        HYPERSTACK,
        VERDA,
        DIGITALOCEAN,
        VULTR,
        CLOUDRIFT,
        JARVISLABS,
        HOTAISLE,
        CRUSOE,
        FLUIDSTACK,
        SEEWEB,
        NEBIUS,
    )
}


def get(name: str) -> Connector:
    from connectors.errors import InvalidInput

    try:
        return PROVIDERS[name]
    except KeyError:
        raise InvalidInput(
            f"unknown connector {name!r}; known: {', '.join(sorted(PROVIDERS))}"
        ) from None
