-- The report's buy-vs-rent section: the rows of mart_breakeven_onprem with a break-even
-- (a reference capex and an on-demand offer), soonest break-even first.
SELECT gpu_name, gpu_memory_gib, capex_usd, on_demand_usd_per_gpu_hour, provider,
       break_even_gpu_hours, break_even_months_at_100pct, break_even_months_at_50pct
FROM mart_breakeven_onprem
WHERE break_even_gpu_hours IS NOT NULL
ORDER BY break_even_months_at_100pct
