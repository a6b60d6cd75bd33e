"""Each rule has one home: docs/costs.md's "Where each rule lives" table is checked against
the code here, and a second statement of a rule (a restated usable-offer filter, a
cheapest-first ORDER BY, a pairing, a per-GPU-hour division, a form-factor or GPU-name
rule, a restated constant) fails the rule's test, naming the file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SQL = [*ROOT.glob("sql/**/*.sql"), *ROOT.glob("warehouse/queries/*.sql")]
PY = [
    p
    for folder in (
        "common",
        "connectors",
        "gpu_pricing",
        "models",
        "flows",
        "services",
        "warehouse",
    )
    for p in (ROOT / folder).rglob("*.py")
]

# (rule as the table names it, its home as the table names it)
TABLE = [
    (
        "the flags of a price: verified (its provenance counts) and comparable (a priced whole "
        "machine with a known GPU)",
        "`int_offers_flagged` (every price period)",
    ),
    (
        "usable offer (verified price of a whole machine with a known GPU)",
        "`int_offers_usable` (current offers), `int_prices_usable` (the price history)",
    ),
    ("cheapest first, and its tie-break", "`cheapest_order` (`int_offers_current`)"),
    ("spot/reserved vs on-demand pairing", "`int_offer_pairs`"),
    ("per-GPU-hour price (machine price / GPU count)", "`connectors/kit/normalise.py`"),
    (
        "GPU identity (name, memory, form factor from the source's words)",
        "`common/gpu.py`",
    ),
    (
        "names people type (GPU, provider, region, pricing model)",
        "`common/names.py`",
    ),
    (
        "every read and decision (rates, history, estimates, plans, break-evens)",
        "`gpu_pricing/api/`",
    ),
    (
        "hours per month and year, bytes per GiB, FLOPs and bytes per parameter, default "
        "MFU, the serving shares of peak, the owning-cost defaults",
        "`sql/seeds/seed_conventions.csv`",
    ),
    (
        "cost per token (training and serving), memory fit",
        "table macro `cost_per_token` (`sql/macros/cost_per_token.sql`)",
    ),
    ("buy vs rent", "table macro `breakeven_onprem`"),
    ("spot vs on-demand with checkpoints", "table macro `spot_breakeven`"),
    (
        "serving roofline (decode step, prefill, tensor parallelism, cost per token and per "
        "request)",
        "table macro `serving_roofline` (`sql/macros/serving_roofline.sql`)",
    ),
    (
        "instance limit per offer (capacity)",
        "`models/capacity.py` (provider classes: `sql/seeds/seed_provider_classes.csv`; "
        "limits with their sources: `sql/seeds/seed_capacity_limits.csv`)",
    ),
]


def docs_table() -> list[tuple[str, str]]:
    text = (ROOT / "docs" / "costs.md").read_text(encoding="utf-8")
    section = text.split("### Where each rule lives", 1)[1].split("\n#", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")][1:]
    return [tuple(cell.strip() for cell in row.strip("|").split("|")[:2]) for row in rows]


def test_the_docs_table_names_each_rule_and_its_home():
    assert docs_table() == TABLE


def code(path: Path) -> str:
    """The file's text without comments (SQL `--`, Python `#`) and docstrings."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".sql":
        return re.sub(r"--[^\n]*", "", text)
    text = re.sub(r'"""(?:.|\n)*?"""', "", text)
    return re.sub(r"(?m)#[^\n]*$", "", text)


def where(pattern: str, files: list[Path], flags: int = re.I | re.S) -> set[str]:
    found = re.compile(pattern, flags)
    return {str(p.relative_to(ROOT)) for p in files if found.search(code(p))}


# the two grains the usable filter keeps rows of: the current offers, and the price
# history (every price period); both filter the flags of int_offers_flagged
USABLE = {"sql/intermediate/int_offers_usable.sql", "sql/intermediate/int_prices_usable.sql"}


def test_the_usable_offer_filter_is_stated_once():
    usable = r"is_verified\s+and\s+(\w+\.)?is_comparable|is_comparable\s+and\s+(\w+\.)?is_verified"
    assert where(usable, SQL + PY) == USABLE
    # one per grain: the history's reads int_offers_flagged, the current one its open
    # periods through int_offers_current
    assert "from int_offers_flagged" in code(ROOT / "sql/intermediate/int_prices_usable.sql")
    assert "from int_offers_current" in code(ROOT / "sql/intermediate/int_offers_usable.sql")


def test_cheapest_first_is_ordered_by_cheapest_order_everywhere():
    # an ORDER BY on the price (a ranking) is written once: the definition of cheapest_order
    by_price = r"order\s+by\s+(\w+\.)?price_usd_per_gpu_hour"
    assert where(by_price, SQL) == {"sql/intermediate/int_offers_current.sql"}
    # no Python re-sort of offers by their rate
    resort = r"sort\(\s*\[?\s*\"(price|rate)_usd_per_gpu_hour\""
    assert where(resort, PY) == set()


def test_spot_and_on_demand_are_paired_once():
    both = [p for p in SQL if "'spot'" in code(p) and "'on_demand'" in code(p)]
    assert {str(p.relative_to(ROOT)) for p in both} == {"sql/intermediate/int_offer_pairs.sql"}


def test_per_gpu_hour_is_divided_once():
    assigned = r"price_usd_per_gpu_hour\s*="
    assert where(assigned, PY) == {"connectors/kit/normalise.py"}
    assert where(r"price_usd_per_hour\s*/\s*(\w+\.)?gpu_count", SQL) == set()


def test_gpu_identity_is_one_rule():
    # the form factor rule is defined once, and every connector that sets a variant
    # itself calls it (with its own extra patterns at most)
    assert where(r"def\s+form_factor\(", PY) == {"common/gpu.py"}
    variant = re.compile(r"gpu_variant\s*=\s*(?!form_factor\()")
    connectors = [p for p in PY if "connectors" in p.parts]
    assert {str(p.relative_to(ROOT)) for p in connectors if variant.search(code(p))} == set()
    # the seeds of GPU identity are located and read in one place in the application
    for seed in (
        "seed_gpu_specs",
        "seed_gpu_aliases",
        "seed_instance_families",
        "seed_gpu_variants",
    ):
        assert where(r"[\"'/]" + seed + r"\.csv[\"']", PY) == {"common/gpu_seeds.py"}, seed
    # it lives below the connectors: nothing imports it from the connector kit
    assert not (ROOT / "connectors" / "kit" / "gpu.py").exists()
    assert where(r"connectors\.kit\.gpu|connectors\.kit import [^\n]*\bgpu\b", PY) == set()


def test_no_connector_keeps_a_gpu_map_of_its_own():
    """A connector hands over the source's words; the shared rule (common/gpu.py,
    from sql/seeds/seed_gpu_aliases.csv and seed_instance_families.csv) names the GPU. A
    GPU name of the reference written in a connector's code (a map's value: `"A6000":
    "RTX A6000"`, `("H100", 80)`, `gpu_name=pl.lit("V100")`) is a second copy of that rule."""
    import csv

    with (ROOT / "sql" / "seeds" / "seed_gpu_specs.csv").open(newline="", encoding="utf-8") as fh:
        names = {row["gpu_name"].lower() for row in csv.DictReader(fh)}
    literal = re.compile(r'"([^"\n]*)"|\'([^\'\n]*)\'')
    found = {}
    for path in (ROOT / "connectors").rglob("*.py"):
        if "kit" in path.relative_to(ROOT / "connectors").parts:
            continue
        hits = {
            text
            for m in literal.finditer(code(path))
            if (text := m.group(1) if m.group(1) is not None else m.group(2)).lower() in names
        }
        if hits:
            found[str(path.relative_to(ROOT))] = sorted(hits)
    assert found == {}, f"GPU names written in connector code (a map of its own): {found}"


# the columns the shared GPU rule fills: a table in a connector folder that has one states
# a GPU's identity itself instead of handing over the source's words
IDENTITY_COLUMNS = {"gpu_name", "gpu_variant"}


def csv_header(path: Path) -> list[str]:
    import csv

    with path.open(newline="", encoding="utf-8") as fh:
        return [c.strip().lower() for c in next(csv.reader(fh), [])]


def identity_columns(folder: Path) -> dict[str, list[str]]:
    """CSV tables (sheets, bundled spec tables, their demo copies) under `folder` with a
    column the shared GPU rule fills."""
    found = {}
    for path in sorted(folder.rglob("*.csv")):
        if stated := sorted(IDENTITY_COLUMNS & set(csv_header(path))):
            found[str(path.relative_to(folder.parent))] = stated
    return found


def test_no_connector_table_states_a_gpu_identity_of_its_own():
    """A price sheet or a bundled table (AWS's instance_types.csv) records the GPU as the
    source writes it (`gpu`: "h100 sxm 80gb", "RTX PRO Server 6000") and the memory it
    states; common/gpu.py names it. A column of canonical names beside them is a second
    copy of the rule, published as written."""
    assert identity_columns(ROOT / "connectors") == {}


def test_the_table_check_catches_a_column_of_canonical_names(tmp_path):
    (tmp_path / "sheets").mkdir()
    (tmp_path / "sheets" / "new.csv").write_text("provider,instance_type,gpu_name\nx,y,H100\n")
    (tmp_path / "types.csv").write_text("instance_type,GPU_Variant\np5,SXM\n")
    (tmp_path / "words.csv").write_text("instance_type,gpu,gpu_memory_gib\np5,h100 sxm,80\n")
    found = identity_columns(tmp_path)
    assert {Path(k).name: v for k, v in found.items()} == {
        "new.csv": ["gpu_name"],
        "types.csv": ["gpu_variant"],
    }


@pytest.mark.parametrize(
    ("what", "pattern"),
    [
        ("hours per month or year", r"=\s*(720|730|8760)(\.0)?\b"),
        ("bytes per GiB", r"2\.0\s*\*\*\s*30|\b2\s*\*\*\s*30|1024\s*\*\*\s*3"),
        ("default MFU", r"mfu[^=\n]*=\s*0\.45\b"),
        ("default utilisation", r"utili[sz]ation[^=\n]*=\s*0\.3\b"),
        ("serving shares of peak", r"(bandwidth|compute)_share[^=\n]*=\s*0\.6"),
    ],
)
def test_constants_come_from_seed_conventions(what, pattern):
    # GCP's own billing month is Google's convention, under its own name
    stated = where(pattern, PY, re.I)
    allowed = {"connectors/gcp/settings.py"} if "month" in what else set()
    assert stated <= allowed, f"{what} restated in {sorted(stated - allowed)}"
    gcp = (ROOT / "connectors/gcp/settings.py").read_text(encoding="utf-8")
    assert "HOURS_PER_MONTH = 730" not in gcp.replace("GCP_BILLING_HOURS_PER_MONTH", "")


def test_alerts_are_evaluated_in_one_place():
    """The alert figures are read and the rules decided in services/alerts.py only: the
    command line, the API and a refresh's alert step run it; notify only delivers."""
    evaluating = (
        r"alert_(rates_current|price_moves|source_freshness|row_drops|rule_states)"
        r"|rules\.(price_level|spot_ratio|day_over_day|usage_budget|training_budget|transitions)\("
    )
    assert where(evaluating, PY) == {"services/alerts.py"}
    assert where(r"notify\.(check|evaluate)\b", PY) == set()


def test_the_parse_tail_defaults_are_the_kits():
    """A connector states what its source says; the defaults of a parse's tail (USD when
    no currency is named, a null zone, the status from the `_excluded` / `_rejected`
    reason columns) are connectors/kit/normalise.py's `parse_tail`, and the per-GPU-hour
    division its `normalise` (test_per_gpu_hour_is_divided_once)."""
    connectors = [p for p in PY if "connectors" in p.parts and "kit" not in p.parts]
    restated = {
        "a null zone": r"zone\s*=\s*pl\.lit\(\s*None|pl\.lit\(\s*None[^)]*\)\s*\.alias\(\s*\"zone\"",
        "USD as the currency": r"source_currency\s*=\s*pl\.lit\(\s*\"USD\"|"
        r"pl\.lit\(\s*\"USD\"\s*\)\s*\.alias\(\s*\"source_currency\"",
        "the verdict": r"\*\*\s*verdict\(|status\s*=\s*pl\.when\([^)]*reject",
        "a per-GPU-hour division": r"/\s*pl\.col\(\s*\"gpu_count\"\s*\)",
    }
    for what, pattern in restated.items():
        assert where(pattern, connectors) == set(), f"{what} restated in a connector"
    kit = ROOT / "connectors" / "kit"
    assert where(r"def\s+parse_tail\(", list(kit.glob("*.py"))) == {"connectors/kit/normalise.py"}


ROOFLINE = "sql/macros/serving_roofline.sql"


@pytest.mark.parametrize(
    ("what", "pattern"),
    [
        # a division by the GPU's memory bandwidth: the time to read weights and KV cache
        ("bytes over bandwidth", r"/\s*\(?[^;\n]*memory_bandwidth"),
        # a maximum of a memory time and a compute time: the decode step
        (
            "max of memory and compute time",
            r"(greatest|max_horizontal|max)\s*\([^)]*memory[^)]*compute",
        ),
        # the KV cache of a batch: batch x context (or longest) x bytes per token
        ("KV cache bytes", r"batch[^\n]*\*[^\n]*(context|longest)[^\n]*\*[^\n]*kv_bytes"),
        # FLOPs per token over a peak at a share: a serving or prefill time
        ("2N FLOPs over a share of peak", r"flops_per_(param|token)[^\n]*/[^\n]*peak_tflops"),
        # tensor-parallel efficiency per doubling
        ("tensor-parallel efficiency", r"tensor_parallel_efficiency|log2\(\s*tp|\.log\(2\)"),
        # the fewest power of two GPUs that hold the model
        ("power-of-two GPUs per replica", r"(pow|\*\*)\s*\(?\s*2[^\n]*ceil"),
    ],
)
def test_the_serving_roofline_is_stated_once(what, pattern):
    # the table macro serving_roofline is the one statement; Python runs it
    # (models/serving.py), the other SQL calls it (cost_per_token)
    assert where(pattern, SQL + PY) <= {ROOFLINE}, f"{what} restated"
    assert ROOFLINE in where(pattern, SQL), f"{what} not found in {ROOFLINE}: the test is stale"


def test_the_old_flat_serving_rule_is_gone():
    # 2N FLOPs per token at a flat share of peak: no module, constant or column states it
    assert not (ROOT / "models" / "inference.py").exists()
    flat = (
        r"inference_utilization|serving_utilization|SERVING_UTILIZATION"
        r"|inference_flops_per_1m|inference_gpu_hours|usd_per_1m_inference"
    )
    # the old name of the cost per output token is kept for one release as an alias of
    # the roofline's figure (deprecated): it names no value of its own
    alias = (
        r"usd_per_1m_output_tokens\s+as\s+usd_per_1m_inference_tokens\b"
        r"|usd_per_1m_inference_tokens\s+as\s+usd_per_1m_inference_tokens_per_b_params\b"
    )
    left = re.compile(flat, re.I)
    stated = {
        str(p.relative_to(ROOT))
        for p in SQL + PY
        if left.search(re.sub(alias, "", code(p), flags=re.I))
    }
    assert stated == set()


def test_the_provider_vocabulary_is_read_in_one_place():
    """Which names are providers (a connector's own, or those its rows are about) is
    registered by the connector when it is built and decided in common/providers.py."""
    assert where(r"\.emits_providers\b", PY) == {"connectors/kit/connector.py"}
    assert where(r"def\s+(known|relays)\(", PY) == {"common/providers.py"}
    # and the names people type are parsed in the bottom package, with no copy left above
    assert where(r"def\s+provider\(", PY) == {"common/names.py"}
    assert not (ROOT / "services" / "names.py").exists()


FLAGS = "sql/intermediate/int_offers_flagged.sql"
# each flag's rule, as a copy of it would be written (SQL or Polars)
FLAG_RULES = {
    "is_comparable computed": r"\bas\s+is_comparable\b",
    "is_verified defaulted": r"coalesce\(\s*(\w+\.)?is_verified\s*,\s*false\s*\)",
    "none stated = a whole machine": (
        r"coalesce\(\s*(\w+\.)?host_included\s*,\s*true\s*\)"
        r"|\"host_included\"\s*\)\s*\.fill_null\(\s*True"
        r"|host_included\s+is\s+not\s+false|host_included\s+is\s+distinct\s+from\s+false"
    ),
    "none stated = 'api'": (
        r"coalesce\(\s*(\w+\.)?provenance\s*,\s*'api'\s*\)|\"provenance\"\s*\)\s*\.fill_null\("
        r"|fill_null\(\s*\"api\"\s*\)"
    ),
    "the provenance vocabulary joined to a row": r"\bjoin\s+int_provenances\b",
    # a history reader filtering fct_gpu_prices on what the flags are made of, instead of
    # reading int_prices_usable (the flags' usable periods)
    "the price history filtered by hand": (
        r"fct_gpu_prices\b[^;]*\bwhere\b[^;]*\b(is_verified|host_included|gpu_name\s+is\s+not\s+null)"
        r"|[\"']fct_gpu_prices[\"']\s*\)\s*\.filter\("
    ),
}


def flag_copies(files: list[Path], root: Path = ROOT) -> dict[str, set[str]]:
    """Per flag rule, the files (relative to `root`) that state it."""
    return {
        rule: {str(p.relative_to(root)) for p in files if re.search(pattern, code(p), re.I | re.S)}
        for rule, pattern in FLAG_RULES.items()
    }


# fct_spot_prices' points of the offer history (int_spot_offer_points) are its verified
# spot periods (a point is a price, not a ranked machine: no comparable filter)
HISTORY_POINTS = {"sql/intermediate/int_spot_offer_points.sql"}
SPOT_POINTS = "sql/intermediate/int_spot_prices_unioned.sql"


def test_the_flags_of_a_usable_offer_have_one_home():
    """is_verified (the provenance vocabulary, none stated = 'api') and is_comparable (a
    priced whole machine with a known GPU, none stated = host included) are computed in
    int_offers_flagged, over every price period; int_offers_usable keeps the current
    offers with both, int_prices_usable the price periods with both (every history
    reader's); an offers frame a caller hands the planner, and the incoming offers the
    plausibility check weighs, go through that same file (warehouse/usable.py)."""
    found = flag_copies(SQL + PY)
    by_hand = found.pop("the price history filtered by hand")
    # a price or spot point a source hands over with no statement is the provider's own
    # when it is staged (connectors/kit/provenance.py provider_own: the offers' parse tail
    # and the spot series' points); the flags read rows stored before rows carried one
    # the same way
    found["none stated = 'api'"] -= {"connectors/kit/provenance.py"}
    # the spot series' points always state a provenance (staging, and the ledger for
    # points stored before): int_spot_prices_unioned keeps those that count by the
    # vocabulary's rule, defaulting none
    found["the provenance vocabulary joined to a row"] -= {SPOT_POINTS}
    assert found == {rule: {FLAGS} for rule in found}
    assert by_hand <= HISTORY_POINTS
    assert "coalesce" not in code(ROOT / SPOT_POINTS)
    # above the warehouse no code filters on the flags or on what they are made of
    api_side = [p for p in PY if "gpu_pricing" in p.relative_to(ROOT).parts]
    restated = (
        r"pl\.col\(\s*\"(provenance|host_included|is_verified|is_comparable)\"\s*\)"
        r"|[\"'](api|illustrative|unverified|published_sheet)[\"']"
        r"|\b(provenance|host_included|is_verified|is_comparable)\b\s*(==|!=|=|\bis\b|\bin\b)"
    )
    assert where(restated, api_side) == set()
    # and the planner's offers go through the rule: the frame runs int_offers_usable
    assert where(r"\busable\(\s*offers\s*\)", api_side) == {"gpu_pricing/plan/shared.py"}
    runner = code(ROOT / "warehouse" / "usable.py")
    for name in ("int_provenances", "int_offers_flagged", "int_offers_usable"):
        assert f'"{name}"' in runner, name
    # the plausibility check's verified medians are the flags' rule over the incoming offers
    assert "flagged_over(" in code(ROOT / "warehouse" / "plausibility.py")


@pytest.mark.parametrize(
    ("name", "copy", "rule"),
    [
        ("m.sql", "select coalesce(p.is_verified, false) as ok from x", "is_verified defaulted"),
        ("m.sql", "select a and b as is_comparable from x", "is_comparable computed"),
        ("m.sql", "where ok and coalesce(host_included, true)", "none stated = a whole machine"),
        ("m.py", 'h.filter(pl.col("host_included").fill_null(True))',
         "none stated = a whole machine"),
        ("m.sql", "left join int_provenances p on p.provenance = coalesce(h.provenance, 'api')",
         "none stated = 'api'"),
        ("m.sql", "select 1 from fct_gpu_prices\nwhere gpu_name = $gpu and is_verified",
         "the price history filtered by hand"),
        ("m.py", 'frame(con, "fct_gpu_prices").filter(pl.col("is_verified"))',
         "the price history filtered by hand"),
    ],
)
def test_a_second_copy_of_a_flag_is_found(tmp_path, name, copy, rule):
    """The restatements the history readers carried (fct_gpu_prices' own is_verified, the
    whole-machine defaults of alert_price_moves, the report's price steps and a usage
    budget's history) are each found in a new file."""
    (tmp_path / name).write_text(copy + "\n", encoding="utf-8")
    assert flag_copies([tmp_path / name], tmp_path)[rule] == {name}
