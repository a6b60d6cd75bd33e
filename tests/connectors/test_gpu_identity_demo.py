"""GPU identity over the whole demo warehouse, as a user reads it: every current offer
with a GPU has a reference name, and no offer whose source says PCIe (its instance type,
or the provider's page for its instance family) is costed as the SXM part."""

from __future__ import annotations

import polars as pl

from common import gpu as _gpu

# the form-factor rule of the shared GPU rule, as SQL over the instance type
PCIE = r"(?i)(^|[^a-z0-9])pcie([^a-z]|$)"


def pcie_families() -> list[tuple[str, str]]:
    """(provider, instance-type pattern) of the family rows the provider's page says PCIe."""
    return [(p, pattern) for p, pattern, _, _, form in _gpu.families() if form == "PCIe"]


def described_as_pcie() -> pl.Expr:
    said = pl.col("instance_type").str.contains(PCIE)
    for provider, pattern in pcie_families():
        said = said | (
            (pl.col("provider") == provider) & pl.col("instance_type").str.contains(pattern)
        )
    return said


def test_every_current_offer_with_a_gpu_has_a_reference_name(con):
    unnamed = con.execute(
        "SELECT provider, instance_type FROM mart_gpu_offers_current WHERE gpu_name IS NULL"
    ).fetchall()
    assert unnamed == []
    names = con.execute("SELECT DISTINCT gpu_name FROM mart_gpu_offers_current").fetchall()
    assert {name for (name,) in names} <= set(_gpu.reference_sizes())


def test_no_offer_described_as_pcie_is_costed_as_sxm(con):
    offers = con.sql("SELECT * FROM mart_gpu_offers_current").pl()
    pcie = offers.filter(described_as_pcie())
    # FluidStack, Hyperstack, Lambda, RunPod and Vast.ai say PCIe in the type; Azure's NC
    # A100 v4 and NCv3 families are PCIe on Microsoft's pages
    assert {"fluidstack", "hyperstack", "azure"} <= set(pcie["provider"])
    costed_as_sxm = pcie.filter(pl.col("gpu_variant") != "PCIe")
    assert costed_as_sxm.select("provider", "instance_type").rows() == []
    # and the cost views use the PCIe part's peak, not the SXM one
    costs = con.sql(
        "SELECT provider, instance_type, gpu_variant, peak_tflops FROM mart_cost_per_token "
        "WHERE gpu_name = 'H100' AND gpu_memory_gib = 80 AND precision = 'bf16'"
    ).pl()
    h100_pcie = costs.filter(described_as_pcie())
    assert h100_pcie.height > 0
    assert set(h100_pcie["peak_tflops"]) == {756.0}
