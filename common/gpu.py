"""GPU identity: the one rule that turns what a source says about a GPU (its own GPU words,
its instance type, the memory it states) into the reference name, memory and form factor.

Connectors hand over the source's own words and numbers; they keep no GPU map of their
own. Every provider's rows pass through `identify()` in the shared normalise step
(connectors/kit/normalise.py), after the connector's parse:

- `gpu_text`: the column a connector fills with the source's words for the GPU ("NVIDIA
  H100 PCIe", "H100_PCIE_80GB", "nvidia_h100", "1x RTX 6000 (24 GB)"); where it is null the
  instance type is read instead.
- `gpu_name`: the first row of `sql/seeds/seed_gpu_aliases.csv` whose pattern the words
  match (a row may also require the memory the source states: a bare "RTX 6000" is the
  Quadro at 24 GB, the Ada at 48 GB, the RTX PRO at 96 GB). Where the words name no GPU
  the provider's instance family does (`sql/seeds/seed_instance_families.csv`: Azure's
  `Standard_NC24s_v3` is a V100 PCIe 16 GB, each row citing the provider's page). Only
  names of the GPU reference (`sql/seeds/seed_gpu_specs.csv`) are ever given; a GPU the
  reference lacks stays null and is counted.
- `gpu_variant` (form factor, SXM or PCIe): where the words state one ("(80 GB PCIe)",
  `_PCIE_`, `-PCIe-NVLink`, `SXM5`), else the instance family's. A null variant is costed
  as the seed's default variant of that name and memory (the SXM part for H100, A100 and
  V100); `sql/seeds/seed_gpu_variants.csv` lists the others.
- `gpu_memory_gib`: a memory the connector read from a number of the source, snapped to
  the reference size of that GPU within 10% (AWS reports 22,888 MiB for the 24 GB A10G;
  null when it is near none of that GPU's sizes, as stated for a GPU the reference lacks);
  else the instance family's; else a size the words state, snapped the same way
  ("A100_SXM4_40GB", Verda's "8x B300 SXM6 268GB"); else, where the words state no size at all, the reference's
  size when the GPU comes in one size.
"""

from __future__ import annotations

from functools import cache, lru_cache

import polars as pl

from common.gpu_seeds import aliases, families, reference_sizes, single_sizes

# the column a connector may hand over with the source's own words for the GPU
GPU_TEXT = "gpu_text"
# a memory the source states this close to a reference size of that GPU is that size
SNAP_TOLERANCE = 0.10

# (pattern on the source's GPU words, gpu_variant), first match wins. A form factor is a
# whole token: `_PCIE_`, `-PCIe-`, `(80 GB PCIe)`, `SXM5`.
FORM_FACTORS: tuple[tuple[str, str], ...] = (
    (r"(?i)(?:^|[^a-z0-9])pcie(?:[^a-z]|$)", "PCIe"),
    (r"(?i)(?:^|[^a-z0-9])sxm\d?(?:[^a-z0-9]|$)", "SXM"),
)


def _first(hits: list[pl.Expr | None]) -> pl.Expr:
    """The position of the first true of `hits` (None: a branch that cannot hold here),
    else null. A flat coalesce: the same branches as a chain of nested `when`s cost ~5x as
    much to run, whatever the rows."""
    branches = [
        pl.when(h).then(pl.lit(i, dtype=pl.UInt32)) for i, h in enumerate(hits) if h is not None
    ]
    return pl.coalesce(branches) if branches else pl.lit(None, dtype=pl.UInt32)


def _pick(index: pl.Expr, values: list, dtype: pl.DataType) -> pl.Expr:
    """The value at `index` of `values` (a null value is an answer: no later branch gives
    one), null where no branch matched."""
    return index.replace_strict(dict(enumerate(values)), default=None, return_dtype=dtype)


def form_factor(raw: pl.Expr, extra: tuple[tuple[str, str], ...] = ()) -> pl.Expr:
    """'PCIe' | 'SXM' from a source's GPU words, else null (the default variant).
    `extra` adds a connector's own patterns, checked first."""
    patterns = (*extra, *FORM_FACTORS)
    hit = _first([raw.str.contains(pattern) for pattern, _ in patterns])
    return _pick(hit, [variant for _, variant in patterns], pl.String)


def gpu_name(raw: pl.Expr, stated_memory: pl.Expr | None = None) -> pl.Expr:
    """The reference name the source's GPU words name (seed_gpu_aliases.csv), else null.
    A row that requires a memory matches only where `stated_memory` is that size; the first
    row that matches answers, even where it names no GPU of the reference."""
    hits = []
    for pattern, _, memory in aliases():
        hit = raw.str.contains(pattern)
        if memory is not None:
            hit = hit & (stated_memory == memory) if stated_memory is not None else pl.lit(False)
        hits.append(hit)
    return _pick(_first(hits), [name for _, name, _ in aliases()], pl.String)


def canonical(raw: pl.Expr) -> pl.Expr:
    """A source's own GPU name as the reference spells it where the reference has it, else
    as the source spells it, upper-cased (AWS's 'RTX PRO SERVER 6000' -> 'RTX PRO 6000';
    'RTX PRO 4500', which the reference lacks, stays)."""
    return pl.coalesce(gpu_name(raw), raw.str.strip_chars().str.to_uppercase())


# a memory size in the source's words: "48GB", "80G", "32 GiB", "-48gb"; a whole token, so
# the G of "A10G" or "T4G" is no size
_MEMORY = r"(?i)(?:^|[^a-z0-9])(\d{1,3})\s*(?:gib|gb|g)(?:[^a-z0-9]|$)"


def stated_memory(words: pl.Expr) -> pl.Expr:
    """The first memory size the source's words state, in GiB, else null."""
    return words.str.extract(_MEMORY, 1).cast(pl.Float64, strict=False)


def near(name: pl.Expr, gib: pl.Expr) -> pl.Expr:
    """The reference size of that GPU a stated memory is within 10% of (the marketed size:
    AWS's 22,888 MiB A10G is 24 GB, Verda's "268GB" B300 is 288 GB), else null."""
    # the k-th smallest size of the row's GPU, for each k (a GPU comes in one to a few sizes)
    listed = {gpu: sorted(sizes) for gpu, sizes in reference_sizes().items()}
    kth = [
        name.replace_strict(
            {gpu: sizes[k] for gpu, sizes in listed.items() if len(sizes) > k},
            default=None,
            return_dtype=pl.Float64,
        )
        for k in range(max(map(len, listed.values())))
    ]
    # the smallest that is near (the reference's sizes of one GPU are never within 20%)
    return pl.coalesce(
        pl.when((gib - size).abs() <= SNAP_TOLERANCE * size).then(size) for size in kth
    )


def snap(name: pl.Expr, gib: pl.Expr) -> pl.Expr:
    """A memory the source states, as the marketed size it is near (`near`); null when it
    is near no size the reference lists for that GPU (Vast's driver reporting 60 GB for an
    A100 is no A100 the reference knows, and is not guessed into one); as stated for a GPU
    the reference lacks (AWS's RTX PRO 4500, 32 GB)."""
    known = name.is_in(list(reference_sizes()))
    return pl.when(known).then(near(name, gib)).otherwise(gib)


def _family() -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """(gpu_name, gpu_memory_gib, gpu_variant) of the row's instance family (the first
    row of the seed that matches), else nulls. Reads the column `_family`
    (`_family_index`)."""
    rows = families()
    index = pl.col("_family")
    return (
        _pick(index, [gpu for *_, gpu, _, _ in rows], pl.String),
        _pick(index, [gib for *_, gib, _ in rows], pl.Float64),
        _pick(index, [form for *_, form in rows], pl.String),
    )


@lru_cache(maxsize=64)
def _family_index(providers: frozenset[str]) -> pl.Expr:
    """The position in seed_instance_families.csv of the row's instance family, tried only
    against the rows of `providers` (the rows' providers: no other row can match)."""
    return _first([
        (pl.col("provider") == provider) & pl.col("instance_type").str.contains(pattern)
        if provider in providers else None
        for provider, pattern, *_ in families()
    ])  # fmt: skip


def identify(df: pl.DataFrame, text: pl.Series | None = None) -> pl.DataFrame:
    """Fill `gpu_name`, `gpu_memory_gib` and `gpu_variant` from `text` (the source's GPU
    words a connector handed over as `gpu_text`, one per row) else the row's
    `instance_type`, the memory the connector read, and the row's instance family.

    The rule reads only those columns and the provider, so it runs once per distinct
    combination of them (a few hundred in a million-item crawl, each tried against every
    alias and family pattern) and is joined back onto the rows, in their order."""
    if text is not None:
        df = df.with_columns(text.cast(pl.String).alias(GPU_TEXT))
    keys = [c for c in ("provider", "instance_type", GPU_TEXT, *_IDENTITY) if c in df.columns]
    distinct = df.select(keys).unique().sort(keys, nulls_last=True)
    ided = _identified(tuple(distinct.rows()), tuple(distinct.schema.items()), text is not None)
    # joined on the keys alone: a join of the whole frame would copy every other column
    found = df.select(keys).join(ided, on=keys, how="left", nulls_equal=True, maintain_order="left")
    return df.with_columns(found.get_column(f"_id_{c}").alias(c) for c in _IDENTITY).drop(
        GPU_TEXT, strict=False
    )


_IDENTITY = ("gpu_name", "gpu_variant", "gpu_memory_gib")


@lru_cache(maxsize=16)
def _identified(rows: tuple[tuple, ...], schema: tuple[tuple[str, pl.DataType], ...],
                has_text: bool) -> pl.DataFrame:  # fmt: skip
    """The distinct key rows with their answers (`_id_<column>`). Cached: the batches of
    one large parse repeat the same few hundred rows, and the rule's ~150 branches cost
    ~15 ms a call whatever the rows."""
    distinct = pl.DataFrame(list(rows), schema=dict(schema), orient="row")
    # `_identify` keeps its rows in order: its answers sit beside the keys they answer
    return distinct.hstack(
        _identify(distinct, has_text).select(pl.col(c).alias(f"_id_{c}") for c in _IDENTITY)
    )


def _identify(df: pl.DataFrame, has_text: bool) -> pl.DataFrame:
    """`identify` over rows that hold the columns it reads (one row per combination)."""
    named, memory = _rule(has_text)
    return (
        df.with_columns(
            _family=_family_index(frozenset(df.get_column("provider").unique().to_list()))
        )
        .with_columns(**named)
        .with_columns(gpu_memory_gib=memory)
        .drop("_family", "_family_memory")
    )


@cache
def _rule(has_text: bool) -> tuple[dict[str, pl.Expr], pl.Expr]:
    """The rule's expressions, built once in a process (a few hundred branches: building
    them cost more than running them on a connector's few distinct rows)."""
    words = pl.col("instance_type")
    if has_text:
        words = pl.coalesce(pl.col(GPU_TEXT), words)
    family_name, family_memory, family_variant = _family()
    given = pl.col("gpu_memory_gib")
    named = {
        "gpu_name": pl.coalesce(
            pl.col("gpu_name"),
            family_name,
            gpu_name(words, pl.coalesce(given, stated_memory(words))),
        ),
        "gpu_variant": pl.coalesce(pl.col("gpu_variant"), form_factor(words), family_variant),
        "_family_memory": family_memory,
    }
    name = pl.col("gpu_name")
    # the reference's only size, unless the words state another (FluidStack's
    # "Quadro_RTX_6000_16GB" is not silently made the 24 GB card)
    single = pl.when(stated_memory(words).is_null()).then(
        name.replace_strict(single_sizes(), default=None, return_dtype=pl.Float64)
    )
    memory = pl.coalesce(
        snap(name, given), "_family_memory", near(name, stated_memory(words)), single
    )
    return named, memory


def identified(frame: pl.DataFrame, provider: str, instance_type: str, words: str) -> pl.DataFrame:
    """`frame` with `gpu_name`, `gpu_memory_gib` and `gpu_variant` as this rule gives them
    from its `words` column and its `instance_type` column, for a connector that needs a
    GPU's identity inside its parse (Vultr divides a plan's memory by one GPU's; GCP
    prices several machine shapes from one GPU SKU). The connector decides nothing."""
    blank = {
        "provider": pl.lit(provider),
        "instance_type": pl.col(instance_type),
        "gpu_name": pl.lit(None, dtype=pl.String),
        "gpu_memory_gib": pl.lit(None, dtype=pl.Float64),
        "gpu_variant": pl.lit(None, dtype=pl.String),
    }
    keep = [c for c in frame.columns if c not in blank]
    out = identify(frame.select(keep).with_columns(**blank), frame[words])
    return out.select(*keep, "gpu_name", "gpu_memory_gib", "gpu_variant")
