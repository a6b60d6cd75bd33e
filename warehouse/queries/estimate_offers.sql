-- The offers `estimate` and `breakeven` price with: current offers of
-- mart_gpu_offers_current for GPU $gpu and pricing model $pricing (variant and memory null:
-- any), cheapest per-GPU-hour rate first, at most $limit rows (null: all), each with
-- `peak_tflops`, the dense peak at $precision (fp32 | tf32 | bf16 | fp8) of its own form
-- factor (dim_gpu_variants: H100 PCIe 756 BF16 TFLOPS, SXM 989), and its memory bandwidth
-- and GPU-to-GPU link (the serving roofline's); with $need_peak, only offers that have one.
-- Only usable offers (is_usable, stored with the mart from int_offers_usable: verified
-- prices of whole machines); $include_illustrative adds the rankable offers of unverified
-- provenances. Ordered by cheapest_order, the one cheapest-first order (int_offers_current),
-- so the first row is mart_cheapest_gpu_hour's pick. Reads the stored mart and the seeds'
-- dim_gpu_variants, no offer view.
SELECT o.provider, o.region, o.zone, o.instance_type, o.gpu_name, o.gpu_memory_gib,
       o.gpu_count, o.gpu_variant, o.pricing_model, o.pricing_detail, o.price_usd_per_hour,
       o.price_usd_per_gpu_hour, o.price_flag, o.provenance, o.is_verified,
       o.source_effective_at, o.first_seen_at, o.effective_at, o.fetched_at, o.load_id,
       o.cheapest_order,
       CASE $precision
           WHEN 'fp32' THEN g.fp32_tflops WHEN 'tf32' THEN g.tf32_tflops
           WHEN 'bf16' THEN g.bf16_tflops WHEN 'fp8' THEN g.fp8_tflops
       END AS peak_tflops,
       g.memory_bandwidth_gbps, g.interconnect_gbps
FROM mart_gpu_offers_current o
LEFT JOIN dim_gpu_variants g USING (gpu_name, gpu_memory_gib, gpu_variant)
WHERE o.gpu_name = $gpu
  AND ($variant IS NULL OR o.gpu_variant = $variant)
  AND ($memory IS NULL OR o.gpu_memory_gib = $memory)
  AND o.pricing_model = $pricing
  AND (o.is_usable OR ($include_illustrative AND o.is_comparable))
  AND (NOT $need_peak OR peak_tflops IS NOT NULL)
ORDER BY o.cheapest_order
LIMIT coalesce($limit, 1e12::BIGINT)
