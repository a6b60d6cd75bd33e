"""scripts/lineage.py: a part of the SQL lineage in build order, as dbt selects it."""

from __future__ import annotations

from scripts import lineage


def test_upstream_of_a_mart_in_build_order(capsys):
    assert lineage.main(["+mart_cost_per_token"]) == 0
    names = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert names.index("cost_per_token") < names.index("mart_cost_per_token")
    assert names.index("int_offers_usable") < names.index("cost_per_token")
    assert "seed_conventions" in names and "mart_spot_breakeven" not in names


def test_an_unknown_name_is_one_line_and_exit_2(capsys):
    assert lineage.main(["mart_nope+"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "lineage: no relation 'mart_nope' in the lineage ('mart_nope+')"
