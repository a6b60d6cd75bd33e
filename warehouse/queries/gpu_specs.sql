-- Every row of dim_gpus (GPU name x memory: dense peaks, TDP, reference capex and their
-- sources), in the columns of the bundled seed sql/seeds/seed_gpu_specs.csv.
SELECT gpu_name, gpu_memory_gib, vendor, fp32_tflops, tf32_tflops, bf16_tflops, fp8_tflops,
       memory_bandwidth_gbps, interconnect_gbps, tdp_watts, capex_usd, capex_as_of, capex_source, spec_source
FROM dim_gpus
ORDER BY gpu_name, gpu_memory_gib
