-- GPU reference per form factor: one row per gpu_name x gpu_memory_gib x gpu_variant.
-- The seed_gpu_specs row of a name and memory is its default variant (the SXM part for
-- H100 and A100, what multi-GPU cloud instances carry; 'base' where the seed lists one
-- form only); seed_gpu_variants adds the variants whose specs differ (H100 PCIe: 756 dense
-- BF16 TFLOPS against SXM's 989). Offers are costed at their own variant's peak
-- (int_offers_current resolves gpu_variant); dim_gpus keeps one row per name x memory.
with specs as (
    select * from seed_gpu_specs
),

variants as (
    select * from seed_gpu_variants
),

base_names as (
    select gpu_name, gpu_memory_gib, any_value(base_variant) as gpu_variant
    from variants
    group by all
),

defaults as (
    select
        s.gpu_name, s.gpu_memory_gib, coalesce(b.gpu_variant, 'base') as gpu_variant,
        true as is_default_variant, s.vendor, s.fp32_tflops, s.tf32_tflops, s.bf16_tflops,
        s.fp8_tflops, s.memory_bandwidth_gbps, s.interconnect_gbps, s.tdp_watts, s.spec_source
    from specs s
    left join base_names b using (gpu_name, gpu_memory_gib)
),

others as (
    select
        v.gpu_name, v.gpu_memory_gib, v.gpu_variant, false as is_default_variant, s.vendor,
        v.fp32_tflops, v.tf32_tflops, v.bf16_tflops, v.fp8_tflops, v.memory_bandwidth_gbps,
        v.interconnect_gbps, v.tdp_watts, v.spec_source
    from variants v
    join specs s using (gpu_name, gpu_memory_gib)
)

select * from defaults
union all by name
select * from others
