-- The report's buy-vs-rent section: the rows of mart_breakeven_onprem with a break-even
-- (a reference capex and an on-demand offer), soonest break-even first, with the whole
-- cost of owning behind each (host share, power, operations).
SELECT gpu_name, gpu_memory_gib, gpu_variant, capex_usd, host_capex_usd,
       power_usd_per_hour, ops_usd_per_year, on_demand_usd_per_gpu_hour, provider,
       instance_type, break_even_gpu_hours, break_even_months_at_100pct,
       break_even_months_at_50pct
FROM mart_breakeven_onprem
WHERE break_even_gpu_hours IS NOT NULL
ORDER BY break_even_months_at_100pct
