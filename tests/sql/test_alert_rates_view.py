"""What the rate rules and budgets compare: only prices of machines one can rent."""

from __future__ import annotations

from warehouse import db


def test_rate_rules_never_compare_a_gpu_only_price(demo_warehouse):
    con = db.connect_readonly(demo_warehouse)
    try:
        gpu_only = db.query(
            con, "SELECT count(*) AS n FROM mart_gpu_offers_current WHERE NOT host_included"
        )["n"][0]
        leaked = db.query(
            con,
            """SELECT count(*) AS n FROM alert_rates_current a
               JOIN mart_gpu_offers_current o USING (provider, region, instance_type, pricing_model)
               WHERE a.zone IS NOT DISTINCT FROM o.zone AND NOT o.host_included""",
        )["n"][0]
        l4 = db.query(
            con,
            """SELECT provider, instance_type FROM alert_rates_current
               WHERE gpu_name = 'L4' AND pricing_model = 'on_demand' AND provider = 'gcp'""",
        )
    finally:
        con.close()
    assert gpu_only > 0  # the demo has GCP accelerator-only SKUs...
    assert leaked == 0  # ...and none of them reaches a rule
    assert "nvidia-l4" not in l4["instance_type"].to_list()
