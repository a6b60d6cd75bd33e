"""Every current demo offer with a GPU is named, and none that its source describes as a
PCIe card is costed at the SXM module's peak (the form factor picks the peak every
estimate and plan divides by)."""

from __future__ import annotations

import duckdb
import pytest


def rows(path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.sql(sql).fetchall()
    finally:
        con.close()


def test_no_offer_described_as_pcie_is_costed_as_sxm(demo_warehouse):
    described = rows(
        demo_warehouse,
        """select count(*) from mart_gpu_offers_current
           where instance_type ilike '%pcie%' or pricing_detail ilike '%pcie%'""",
    )[0][0]
    assert described >= 7  # FluidStack, Hyperstack, RunPod, Lambda PCIe offers at least
    costed_sxm = rows(
        demo_warehouse,
        """select o.provider, o.instance_type, v.gpu_variant
           from mart_gpu_offers_current o
           join dim_gpu_variants v
             on v.gpu_name = o.gpu_name and v.gpu_memory_gib = o.gpu_memory_gib
            and (v.gpu_variant = o.gpu_variant
                 or (o.gpu_variant is null and v.is_default_variant))
           where (o.instance_type ilike '%pcie%' or o.pricing_detail ilike '%pcie%')
             and v.gpu_variant ilike 'sxm%'""",
    )
    assert costed_sxm == []


@pytest.mark.xfail(
    reason="OCI's part B109480 (the demo's H100T row) has no shape in connectors/oci/shapes.csv "
    "yet, so the connector cannot name its GPU",
    strict=False,
)
def test_every_current_demo_offer_with_a_gpu_has_a_name(demo_warehouse):
    unnamed = rows(
        demo_warehouse,
        """select provider, instance_type from mart_gpu_offers_current
           where gpu_name is null and coalesce(gpu_count, 0) > 0
           order by all""",
    )
    assert unnamed == []
