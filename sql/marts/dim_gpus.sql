-- GPU reference: one row per gpu_name x gpu_memory_gib, from the curated seed (sources in
-- sql/seeds/README.md).
with specs as (
    select * from seed_gpu_specs
)

select
    gpu_name, gpu_memory_gib, vendor, fp32_tflops, tf32_tflops, bf16_tflops, fp8_tflops,
    memory_bandwidth_gbps, interconnect_gbps, tdp_watts, capex_usd, capex_as_of, capex_source, spec_source
from specs
