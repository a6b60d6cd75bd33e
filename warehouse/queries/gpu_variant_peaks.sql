-- The specs of every GPU form factor (dim_gpu_variants: one row per GPU name x memory x
-- variant, the default variant included): what an offer is costed at, joined on its
-- gpu_variant (RunPod's H100 PCIe at 756 dense BF16 TFLOPS, the SXM part at 989). The
-- columns of gpu_specs.sql plus gpu_variant and is_default_variant (the form factor an
-- offer that names none is costed at), without the capex columns dim_gpus holds.
SELECT gpu_name, gpu_memory_gib, gpu_variant, is_default_variant, vendor, fp32_tflops, tf32_tflops, bf16_tflops,
       fp8_tflops, memory_bandwidth_gbps, interconnect_gbps, tdp_watts, spec_source
FROM dim_gpu_variants
ORDER BY gpu_name, gpu_memory_gib, gpu_variant
