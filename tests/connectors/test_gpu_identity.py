"""One GPU identity rule for every provider (common/gpu.py, applied in the shared
normalise step): the form factor, the name and the memory a source's own words state,
where the connector's map left them open; only names of the GPU reference are given."""

from __future__ import annotations

import itertools

import polars as pl
import pytest

from common import gpu as _gpu
from common import gpu_seeds, names
from connectors.kit.normalise import normalise


def offers(**columns) -> pl.DataFrame:
    n = len(next(iter(columns.values())))
    base = {
        "provider": ["p"] * n,
        "region": ["r"] * n,
        "pricing_model": ["on_demand"] * n,
        "price_usd_per_hour": [2.0] * n,
        "gpu_count": [1.0] * n,
        "load_id": ["l"] * n,
        "endpoint": ["e"] * n,
    }
    return pl.DataFrame({**base, **columns})


@pytest.mark.parametrize(
    ("instance_type", "variant"),
    [
        ("H100_PCIE_80GB", "PCIe"),  # FluidStack
        ("A100_PCIE_80GB", "PCIe"),
        ("H100-80G-PCIe", "PCIe"),  # Hyperstack
        ("H100-80G-PCIe-NVLink", "PCIe"),
        ("H100-80G-PCIe-spot", "PCIe"),
        ("gpu_1x_h100_pcie", "PCIe"),  # Lambda
        ("H100_SXM5_80GB", "SXM"),
        ("8x H100 (80 GB SXM5)", "SXM"),
        ("p5.48xlarge", None),
        ("pciex-box", None),  # a word that only starts with pcie is no form factor
    ],
)
def test_the_form_factor_is_read_from_the_source_words(instance_type, variant):
    out = normalise(offers(instance_type=[instance_type], gpu_name=["H100"], gpu_memory_gib=[80.0]))
    assert out.offers["gpu_variant"].to_list() == [variant]


def test_a_connectors_own_variant_wins():
    out = normalise(
        offers(instance_type=["H100_PCIE_80GB"], gpu_name=["H100"], gpu_variant=["SXM"])
    )
    assert out.offers["gpu_variant"].to_list() == ["SXM"]


@pytest.mark.parametrize(
    ("text", "name", "memory"),
    [
        ("NVIDIA RTX 6000 Ada Generation", "RTX 6000 ADA", 48.0),
        ("gpu-6000adax1-48gb", "RTX 6000 ADA", 48.0),
        ("RTX-5090", "RTX 5090", 32.0),
        ("Standard_NG8ads_V620_v1", "RADEON PRO V620", 32.0),
        ("8x H20 96GB", "H20", 96.0),
        ("MI325X", "MI325X", 256.0),
        ("GB200 NVL72", "GB200", 186.0),
        ("gb300", "GB300", 288.0),
        ("Tesla V100 32GB", "V100", 32.0),
        ("Tesla V100", "V100", None),  # two sizes in the reference: none guessed
        ("H200", "H200", 141.0),
        ("NVIDIA H200 NVL", None, None),  # its own part, not in the reference
        ("nvidia_h100", "H100", 80.0),  # DigitalOcean's gpu_info.model
        ("Nvidia Tesla A100 80GB GPU", "A100", 80.0),  # GCP's SKU description
        ("A100_SXM4_40GB", "A100", 40.0),  # FluidStack
        ("GH200", "GH200", 96.0),  # not the H200 inside its name
        ("GB200", "GB200", 186.0),  # not the B200 inside its name
        ("L40S-48GB", "L40S", 48.0),  # not the L40
        ("A10G", "A10G", 24.0),  # not the A10, and its G is no memory size
        ("T4G", "T4G", 16.0),
        ("p4d.24xlarge", None, None),  # an AWS family, not the P4
        ("RX 7900 XTX", None, None),
    ],
)
def test_unnamed_gpus_are_named_from_the_source_words(text, name, memory):
    out = normalise(offers(instance_type=["x"], gpu_name=[None], gpu_text=[text]))
    row = out.offers.row(0, named=True)
    assert (row["gpu_name"], row["gpu_memory_gib"]) == (name, memory)


def test_every_name_the_rule_gives_is_in_the_gpu_reference_and_typed_names_agree():
    reference = set(_gpu.reference_sizes())
    given = {name for _, name, _ in _gpu.aliases() if name is not None}
    assert given <= reference
    # what a user types goes through the same words (common.names)
    assert names.gpu("Radeon V620").name == "RADEON PRO V620"
    assert names.gpu("rtx 6000 ada").name == "RTX 6000 ADA"


@pytest.mark.parametrize("gpu", ["RTX 6000 ADA", "RTX 5090", "H20", "MI325X", "GB200", "GB300"])
def test_the_gpus_people_rent_today_are_in_the_reference_with_a_source(gpu):
    from gpu_pricing.api import seed_gpu_specs

    rows = seed_gpu_specs().filter(pl.col("gpu_name") == gpu)
    assert rows.height == 1 and rows["spec_source"].item()
    assert rows["bf16_tflops"].item() > 0


@pytest.mark.parametrize(
    ("text", "memory", "name"),
    [
        ("RTX 6000", 24.0, "QUADRO RTX 6000"),  # Lambda's gpu_1x_rtx6000
        ("rtx6000", 96.0, "RTX PRO 6000"),  # Nebius' gpu-rtx6000 platform
        ("RTX 6000 96GB", None, "RTX PRO 6000"),  # GCP's G4 SKU: the words state it
        ("RTX 6000", 48.0, "RTX 6000 ADA"),
        ("RTX 6000", None, None),  # three cards share the words: none guessed
    ],
)
def test_words_several_gpus_share_are_told_apart_by_the_memory_the_source_states(
    text, memory, name
):
    out = normalise(
        offers(instance_type=["x"], gpu_name=[None], gpu_text=[text], gpu_memory_gib=[memory])
    )
    assert out.offers["gpu_name"].to_list() == [name]


@pytest.mark.parametrize(
    ("text", "stated", "memory"),
    [
        ("A10G", 22888 / 1024, 24.0),  # AWS reports usable MiB a little under 24 GB
        ("B300", 275040 / 1024, 288.0),
        ("H100", 80.0, 80.0),
        ("RTX PRO 4500", 32.0, 32.0),  # not in the reference: kept as stated
        ("V100", 24.0, None),  # near no V100 the reference lists: not guessed into one
    ],
)
def test_a_memory_the_source_states_is_snapped_to_the_marketed_size(text, stated, memory):
    out = normalise(
        offers(instance_type=["x"], gpu_name=[None], gpu_text=[text], gpu_memory_gib=[stated])
    )
    assert out.offers["gpu_memory_gib"].to_list() == [
        None if memory is None else pytest.approx(memory)
    ]


def test_the_instance_family_table_cites_a_source_per_row_and_names_reference_gpus():
    import csv

    with gpu_seeds.SEED_INSTANCE_FAMILIES.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    reference = _gpu.reference_sizes()
    for row in rows:
        assert row["source"].startswith("https://"), row
        if row["gpu_name"]:
            assert float(row["gpu_memory_gib"]) in reference[row["gpu_name"]], row
        assert row["gpu_variant"] in ("", "SXM", "PCIe"), row


def test_the_rule_runs_once_per_combination_and_answers_every_row_in_order():
    """`identify` evaluates the rule on the distinct (provider, words, given identity)
    combinations and joins the answers back: the same answers, row for row, as the rule
    evaluated on every row, with repeats, nulls and interleaved rows kept in order."""
    types = ["H100_PCIE_80GB", "Standard_NC24ads_A100_v4", "8x H100 (80 GB SXM5)", None, "x"]
    n = 40
    df = offers(
        provider=["azure" if i % 3 else "p" for i in range(n)],
        instance_type=[types[(i * 7) % len(types)] for i in range(n)],
        gpu_name=[None if i % 4 else "H100" for i in range(n)],
        gpu_memory_gib=[None if i % 5 else 80.0 for i in range(n)],
        gpu_variant=[None] * n,
    ).with_columns(pl.col("gpu_variant").cast(pl.String), pl.col("gpu_name").cast(pl.String))
    text = pl.Series([None if i % 2 else "NVIDIA A10G" for i in range(n)], dtype=pl.String)
    for words in (None, text):
        by_combination = _gpu.identify(df, words)
        every_row = _gpu._identify(
            df if words is None else df.with_columns(words.alias(_gpu.GPU_TEXT)),
            words is not None,
        ).drop(_gpu.GPU_TEXT, strict=False)
        assert by_combination.equals(every_row)


def test_the_first_branch_that_holds_answers_even_where_its_answer_is_null():
    """The rule's seeds are read first row first: a row that matches and names nothing
    (the H200 NVL alias, a family that leaves the form factor open) stops the later rows."""
    df = pl.DataFrame({"a": [1, 2, 3, 0]})
    hits = [pl.col("a") >= 2, pl.col("a") >= 1]
    picked = df.select(_gpu._pick(_gpu._first(hits), [None, "one"], pl.String)).to_series()
    assert picked.to_list() == ["one", None, None, None]


def test_the_sizes_of_one_gpu_are_never_both_near_one_stated_memory():
    """`near` gives the smallest reference size within 10%; no stated memory is within 10%
    of two sizes of one GPU, so which one comes first never decides the answer."""
    for name, sizes in _gpu.reference_sizes().items():
        ordered = sorted(sizes)
        for small, large in itertools.pairwise(ordered):
            assert small * (1 + _gpu.SNAP_TOLERANCE) < large * (1 - _gpu.SNAP_TOLERANCE), name
