-- The dim_gpus rows of GPU $gpu (one per memory size), with the dense peaks, memory
-- bandwidth, GPU-to-GPU link and TDP of the
-- form factor $variant names (H100 PCIe) where dim_gpu_variants lists it, else the default
-- variant's; reference capex and its source from dim_gpus. $variant null: default variant.
SELECT d.gpu_name, d.gpu_memory_gib,
       coalesce(v.fp32_tflops, d.fp32_tflops) AS fp32_tflops,
       coalesce(v.tf32_tflops, d.tf32_tflops) AS tf32_tflops,
       coalesce(v.bf16_tflops, d.bf16_tflops) AS bf16_tflops,
       coalesce(v.fp8_tflops, d.fp8_tflops) AS fp8_tflops,
       coalesce(v.memory_bandwidth_gbps, d.memory_bandwidth_gbps) AS memory_bandwidth_gbps,
       coalesce(v.interconnect_gbps, d.interconnect_gbps) AS interconnect_gbps,
       coalesce(v.tdp_watts, d.tdp_watts) AS tdp_watts,
       d.capex_usd, d.capex_as_of, d.capex_source
FROM dim_gpus d
LEFT JOIN dim_gpu_variants v
  ON v.gpu_name = d.gpu_name AND v.gpu_memory_gib = d.gpu_memory_gib
 AND v.gpu_variant = $variant
WHERE d.gpu_name = $gpu
ORDER BY d.gpu_memory_gib
