"""Demo pages for the providers added after the first eight (Hyperstack, ...), in the
snapshot format. Called by scripts/build_demo_snapshot.py; deterministic. Which values
are real and which illustrative: connectors/demo_snapshot/README.md."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

FETCHED_AT = "2026-11-20T02:00:00Z"


def _write(root: Path, provider: str, endpoint: str, name: str, page: dict) -> None:
    folder = root / provider / endpoint
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(page, indent=1) + "\n")


def _page(url: str, response: object, **request: object) -> dict:
    return {"fetched_at": FETCHED_AT, "request": {"url": url, **request}, "source_url": url,
            "body": response}  # fmt: skip


# (id, name, value, original_value, discount, start, end). Real: RTX-A4000 0.58 (the
# docs' example). Names as the live pricebook spells them; every other value illustrative.
HYPERSTACK_BOOK = [
    (10, "RTX-A4000", 0.58, 0.58, False, None, None),
    (11, "RTX-A6000", 0.5, 0.5, False, None, None),
    (12, "L40", 1.0, 1.0, False, None, None),
    (13, "A100-80G-PCIe", 1.35, 1.35, False, None, None),
    (14, "A100-80G-PCIe-NVLink", 1.4, 1.4, False, None, None),
    (15, "A100-80G-SXM4", 1.6, 1.6, False, None, None),
    (16, "H100-80G-PCIe", 1.9, 1.9, False, None, None),
    (17, "H100-80G-PCIe-NVLink", 1.95, 1.95, False, None, None),
    (18, "H100-80G-SXM5", 2.4, 2.4, False, None, None),
    (19, "H100-80G-PCIe-spot", 1.52, 1.52, False, None, None),
    (20, "H200-141G-SXM5", 3.5, 3.5, False, None, None),
    (21, "B200-SXM", 5.4, 5.9, True, "2026-11-01T00:00:00Z", "2027-01-31T23:59:59Z"),
    (22, "RTX-PRO6000-SE", 1.8, 1.8, False, None, None),
    # no row in the GPU reference: kept with gpu_name null and counted
    (23, "RTX-5090", 0.89, 0.89, False, None, None),
    # non-GPU resources: excluded with reasons
    (1, "vCPU", 0.0045, 0.0045, False, None, None),
    (2, "RAM", 0.0012, 0.0012, False, None, None),
    (3, "cloud-ssd", 0.0001, 0.0001, False, None, None),
    (4, "publicIP", 0.004, 0.004, False, None, None),
]


def build_hyperstack(root: Path) -> None:
    shutil.rmtree(root / "hyperstack", ignore_errors=True)
    body = [
        {"id": i, "name": name, "value": value, "original_value": original,
         "discount_applied": discount, "start_time": start, "end_time": end}
        for i, name, value, original, discount, start, end in HYPERSTACK_BOOK
    ]  # fmt: skip
    url = "https://infrahub-api.nexgencloud.com/v1/pricebook"
    _write(root, "hyperstack", "pricebook", "pricebook-0001.json", _page(url, body))


BUILDERS: tuple = (build_hyperstack,)


# (instance_type, gpu description, GPUs, GPU GB total, vCPUs, RAM GB, USD/h, spot USD/h).
# Real (as gpuhunt's tests record the live API): 1H100.80S.30V 3.95 / 1.70,
# 2A6000.20V 1.98 / 0.70, 1V100.6V 0.89 / 0.25, CPU.120V.480G 3.00 / 1.50.
# Every other price illustrative.
VERDA_TYPES = [
    ("1H100.80S.30V", "1x H100 SXM5 80GB", 1, 80, 30, 120, "3.95", "1.70"),
    ("8H100.80S.176V", "8x H100 SXM5 80GB", 8, 640, 176, 1480, "31.60", "13.60"),
    ("1H200.141S.44V", "1x H200 SXM5 141GB", 1, 141, 44, 185, "3.59", "1.52"),
    ("8B200.180S.240V", "8x B200 SXM6 180GB", 8, 1440, 240, 1800, "39.92", "17.60"),
    ("1A100.22V", "1x A100 SXM4 80GB", 1, 80, 22, 120, "1.797", "0.76"),
    ("8A100.40S.176V", "8x A100 SXM4 40GB", 8, 320, 176, 480, "10.32", "4.40"),
    ("1L40S.20V", "1x L40S 48GB", 1, 48, 20, 60, "1.10", "0.45"),
    ("2A6000.20V", "2x RTX A6000 48GB", 2, 96, 20, 120, "1.98", "0.70"),
    ("1V100.6V", "1x Tesla V100 16GB", 1, 16, 6, 23, "0.89", "0.25"),
    # no row in the GPU reference: gpu_name null, counted
    ("1RTX6000ADA.10V", "1x RTX 6000 Ada 48GB", 1, 48, 10, 60, "1.19", "0.45"),
    # CPU-only: excluded with a reason
    ("CPU.120V.480G", "", 0, 0, 120, 480, "3.00", "1.50"),
]
VERDA_LOCATIONS = [("FIN-01", "Finland 1", "FI"), ("FIN-02", "Finland 2", "FI"),
                   ("ICE-01", "Iceland 1", "IS")]  # fmt: skip


def build_verda(root: Path) -> None:
    shutil.rmtree(root / "verda", ignore_errors=True)
    types = [
        {
            "best_for": [],
            "cpu": {"description": f"{cpus} CPU", "number_of_cores": cpus},
            "currency": "usd",
            "deploy_warning": None,
            "description": "Dedicated Hardware Instance",
            "display_name": None,
            "gpu": {"description": gpu, "number_of_gpus": n},
            "gpu_memory": {"description": f"{gmem}GB GPU RAM" if n else "",
                           "size_in_gigabytes": gmem},
            "id": f"c01dd00d-0000-4a0c-8a00-{i:012d}",
            "instance_type": itype,
            "manufacturer": "NVIDIA" if n else "AMD",
            "memory": {"description": f"{ram}GB RAM", "size_in_gigabytes": ram},
            "model": gpu.split(" ", 1)[1].rsplit(" ", 1)[0] if n else "CPU Node",
            "name": gpu.split(" ", 1)[1] if n else "CPU Node",
            "p2p": None,
            "price_per_hour": price,
            "spot_price": spot,
            "storage": {"description": "dynamic"},
            "supported_os": ["ubuntu-22.04", "ubuntu-24.04"],
        }
        for i, (itype, gpu, n, gmem, cpus, ram, price, spot) in enumerate(VERDA_TYPES)
    ]  # fmt: skip
    base = "https://api.verda.com/v1"
    _write(root, "verda", "instance_types", "instance-types-0001.json",
           _page(f"{base}/instance-types", types, params={"currency": "usd"}))  # fmt: skip
    locations = [{"code": c, "name": n, "country_code": cc} for c, n, cc in VERDA_LOCATIONS]
    _write(root, "verda", "locations", "locations-0001.json",
           _page(f"{base}/locations", locations, params={}))  # fmt: skip


BUILDERS += (build_verda,)



# (slug, description, gpu model, GPUs, VRAM GiB total, vCPUs, RAM MiB, USD/h, regions).
# Real (as gpuhunt's tests record the live API): gpu-h100x8-640gb 23.92 and
# gpu-mi300x8-1536gb 15.92 in nyc1. Every other price and region list illustrative.
DO_GPU_SIZES = [
    ("gpu-h100x1-80gb", "H100 GPU - 1X", "nvidia_h100", 1, 80, 20, 245760, 3.39,
     ["nyc2", "tor1", "atl1"]),
    ("gpu-h100x8-640gb", "H100 GPU - 8X", "nvidia_h100", 8, 640, 160, 1966080, 23.92, ["nyc1"]),
    ("gpu-h200x8-1128gb", "H200 GPU - 8X", "nvidia_h200", 8, 1128, 192, 1966080, 27.52,
     ["atl1"]),
    ("gpu-mi300x1-192gb", "AMD MI300X - 1X", "amd_mi300x", 1, 192, 20, 245760, 1.99,
     ["atl1", "nyc1"]),
    ("gpu-mi300x8-1536gb", "AMD MI300X - 8X", "amd_mi300x", 8, 1536, 160, 1966080, 15.92,
     ["nyc1"]),
    ("gpu-l40sx1-48gb", "L40S - 1X", "nvidia_l40s", 1, 48, 8, 65536, 1.57, ["tor1"]),
    # no row in the GPU reference: gpu_name null, counted
    ("gpu-6000adax1-48gb", "RTX 6000 Ada - 1X", "nvidia_rtx6000_ada", 1, 48, 8, 65536, 1.57,
     ["tor1"]),
    # sold out everywhere: excluded
    ("gpu-4000adax1-20gb", "RTX 4000 Ada - 1X", "nvidia_rtx4000_ada", 1, 20, 8, 32768, 0.76, []),
]  # fmt: skip
DO_CPU_SIZES = [("s-1vcpu-512mb-10gb", 1, 512, 0.00595), ("c-8", 8, 16384, 0.25)]
DO_HOURS_PER_MONTH = 672  # DigitalOcean caps monthly billing at 672 hours


def build_digitalocean(root: Path) -> None:
    shutil.rmtree(root / "digitalocean", ignore_errors=True)
    sizes: list[dict] = [
        {"slug": slug, "memory": ram, "vcpus": cpus, "disk": 25 * cpus, "transfer": 1.0,
         "price_monthly": round(price * DO_HOURS_PER_MONTH, 2), "price_hourly": price,
         "regions": ["nyc1", "sfo3", "ams3"], "available": True, "description": "Basic",
         "networking_throughput": 2000,
         "disk_info": [{"type": "local", "size": {"amount": 25 * cpus, "unit": "gib"}}]}
        for slug, cpus, ram, price in DO_CPU_SIZES
    ]  # fmt: skip
    sizes += [
        {"slug": slug, "memory": ram, "vcpus": cpus, "disk": 720, "transfer": 15.0,
         "price_monthly": round(price * DO_HOURS_PER_MONTH, 2), "price_hourly": price,
         "regions": regions, "available": bool(regions), "description": desc,
         "networking_throughput": 10000,
         "gpu_info": {"count": n, "vram": {"amount": vram, "unit": "gib"}, "model": model},
         "disk_info": [{"type": "local", "size": {"amount": 720, "unit": "gib"}}]}
        for slug, desc, model, n, vram, cpus, ram, price, regions in DO_GPU_SIZES
    ]  # fmt: skip
    url = "https://api.digitalocean.com/v2/sizes"
    half = len(sizes) // 2
    nxt = f"{url}?page=2&per_page=200"
    for number, chunk, links in (
        (1, sizes[:half], {"pages": {"last": nxt, "next": nxt}}),
        (2, sizes[half:], {"pages": {"first": f"{url}?page=1&per_page=200"}}),
    ):
        body = {"sizes": chunk, "links": links, "meta": {"total": len(sizes)}}
        params = {"per_page": 200, "page": 1} if number == 1 else None
        page = _page(url if number == 1 else nxt, body, params=params, page=number)
        _write(root, "digitalocean", "sizes", f"sizes-{number:04d}.json", page)


BUILDERS += (build_digitalocean,)


# Cloud GPU plans: (id, gpu_type, vram GB, vCPUs, RAM MB, USD/h, locations). Real (as
# gpuhunt's tests record the public API): the three A100 plans (0.123, 1.397, 2.397 in
# ewr). Illustrative: the others.
VULTR_VCG = [
    ("vcg-a100-1c-6g-4vram", "NVIDIA_A100", 4, 1, 6144, 0.123, ["ewr"]),
    ("vcg-a100-6c-60g-40vram", "NVIDIA_A100", 40, 6, 61440, 1.397, ["ewr"]),
    ("vcg-a100-12c-120g-80vram", "NVIDIA_A100", 80, 12, 122880, 2.397, ["ewr"]),
    ("vcg-a100-96c-960g-640vram", "NVIDIA_A100", 640, 96, 983040, 19.176, ["ewr", "sjc"]),
    ("vcg-l40s-16c-180g-48vram", "NVIDIA_L40S", 48, 16, 184320, 1.671, ["ord", "sjc", "ams"]),
    ("vcg-a40-24c-120g-48vram", "NVIDIA_A40", 48, 24, 122880, 1.71, ["ewr"]),
    ("vcg-a16-6c-64g-16vram", "NVIDIA_A16", 16, 6, 65536, 0.514, ["ewr", "fra"]),
]
# Bare metal: (id, cores, threads, RAM MB, USD/h, preemptible USD/h, locations). Real (as
# gpuhunt's tests record them): the MI300X (17.52 / 14.72, ord) and H100 (23.92 / 18.4)
# plans. Illustrative: the rest.
VULTR_METAL = [
    ("vbm-256c-2048gb-8-mi300x-gpu", 128, 256, 2321924, 17.52, 14.72, ["ord"]),
    ("vbm-112c-2048gb-8-h100-gpu", 112, 224, 2097152, 23.92, 18.4, ["ewr", "lax"]),
    ("vbm-112c-2048gb-8-a100-gpu", 112, 224, 2097152, 14.0, 0, ["ewr"]),
    ("vbm-72c-480gb-gh200-gpu", 72, 72, 491520, 2.99, 0, ["ewr"]),
    ("vbm-8c-132gb", 8, 16, 131072, 0.477, 0, ["ewr", "lax"]),
]
VULTR_HOURS_PER_MONTH = 730


def build_vultr(root: Path) -> None:
    shutil.rmtree(root / "vultr", ignore_errors=True)
    api = "https://api.vultr.com/v2"
    plans = [
        {"id": pid, "vcpu_count": cpus, "ram": ram, "disk": 25 * cpus, "disk_count": 1,
         "bandwidth": 1024 * cpus, "monthly_cost": round(price * VULTR_HOURS_PER_MONTH, 2),
         "hourly_cost": price, "type": "vcg", "locations": locs, "gpu_vram_gb": vram,
         "gpu_type": gpu}
        for pid, gpu, vram, cpus, ram, price, locs in VULTR_VCG
    ]  # fmt: skip
    cursor = "bmV4dF9fdmNnLWwxMHM="
    for number, chunk, links, params in (
        (1, plans[:4], {"next": cursor, "prev": ""}, {"type": "vcg", "per_page": 500}),
        (2, plans[4:], {"next": "", "prev": "cHJldg=="},
         {"type": "vcg", "per_page": 500, "cursor": cursor}),
    ):  # fmt: skip
        body = {"plans": chunk, "meta": {"total": len(plans), "links": links}}
        _write(root, "vultr", "plans", f"plans-{number:04d}.json",
               _page(f"{api}/plans", body, params=params, page=number))  # fmt: skip
    metal = [
        {"id": pid, "physical_cpus": 2, "cpu_count": cores, "cpu_cores": cores,
         "cpu_threads": threads, "cpu_model": "EPYC 9534", "cpu_mhz": 2450, "ram": ram,
         "disk": 3576, "disk_count": 8, "bandwidth": 10240,
         "monthly_cost": round(price * VULTR_HOURS_PER_MONTH, 2), "hourly_cost": price,
         "monthly_cost_preemptible": round(pre * VULTR_HOURS_PER_MONTH, 2),
         "hourly_cost_preemptible": pre, "type": "NVMe", "locations": locs}
        for pid, cores, threads, ram, price, pre, locs in VULTR_METAL
    ]  # fmt: skip
    body = {"plans_metal": metal, "meta": {"total": len(metal), "links": {"next": "", "prev": ""}}}
    _write(root, "vultr", "plans_metal", "plans-metal-0001.json",
           _page(f"{api}/plans-metal", body, params={"per_page": 500}, page=1))  # fmt: skip


BUILDERS += (build_vultr,)


# (brand_short, variant name, GPUs, US cents per hour, CPUs, RAM GiB, datacenters).
# Illustrative: no recording of this API is public (the field names and units are the ones
# gpuhunt and skypilot read).
CLOUDRIFT_VARIANTS = [
    ("RTX 4090", "rtx49-7-50-500-nr.1", 1, 39, 7, 50, {"us-east-nc-nr-1": 3, "eu-north-se-1": 1}),
    ("RTX 4090", "rtx49-7-50-500-nr.4", 4, 156, 28, 200, {"us-east-nc-nr-1": 2}),
    ("RTX 4090", "rtx49-7-50-500-nr.8", 8, 312, 56, 400, {"us-east-nc-nr-1": 1}),
    ("RTX PRO 6000", "rtxpro6000-16-128-1000.1", 1, 129, 16, 128, {"us-east-nc-nr-1": 2}),
    ("RTX PRO 6000", "rtxpro6000-16-128-1000.8", 8, 1032, 128, 1024, {"us-east-nc-nr-1": 1}),
    # no row in the GPU reference: gpu_name null, counted
    ("RTX 5090", "rtx59-8-64-1000.1", 1, 65, 8, 64, {"eu-north-se-1": 4}),
]
GIB = 1024**3


def build_cloudrift(root: Path) -> None:
    shutil.rmtree(root / "cloudrift", ignore_errors=True)
    brands: dict[str, list[dict]] = {}
    for brand, name, gpus, cents, cpus, ram, dcs in CLOUDRIFT_VARIANTS:
        brands.setdefault(brand, []).append(
            {"name": name, "cpu_count": cpus, "logical_cpu_count": 2 * cpus, "dram": ram * GIB,
             "disk": 500 * GIB * gpus, "gpu_count": gpus, "vram": 24 * GIB,
             "cost_per_hour": cents, "nodes_per_dc": dcs}
        )  # fmt: skip
    body = {"data": {"instance_types": [{"brand_short": b, "variants": v} for b, v in brands.items()]}}
    url = "https://api.cloudrift.ai/api/v1/instance-types/list"
    request = {"version": "2025-03-21",
               "data": {"selector": {"ByServiceAndLocation": {"services": ["vm"]}}}}  # fmt: skip
    _write(root, "cloudrift", "instance_types", "instance-types-0001.json",
           _page(url, body, body=request))  # fmt: skip


BUILDERS += (build_cloudrift,)


# (gpu_type, region, USD per GPU-hour, spot, VRAM, vCPUs/GPU, RAM/GPU, workload). Real (as
# gpuhunt's tests record the live API): the L4, A100-80GB, RTX PRO 6000 and europe-01 H100
# rows. Illustrative: the H200 row.
JARVIS_ROWS = [
    ("L4", "india-noida-01", 0.44, 0.29, "24", 28, 124, "container"),
    ("L4", "india-noida-01", 0.44, 0.29, "24", 28, 124, "vm"),
    ("A100-80GB", "india-noida-01", 1.49, 0.89, "80", 28, 112, "vm"),
    ("RTX-PRO6000", "india-chennai-01", 1.89, 1.19, "96", 28, 160, "vm"),
    ("H100", "europe-01", 2.99, None, "80", 16, 200, None),
    ("H200", "europe-01", 3.8, None, "141", 16, 200, None),
]


def build_jarvislabs(root: Path) -> None:
    shutil.rmtree(root / "jarvislabs", ignore_errors=True)
    rows = [
        {"gpu_type": gpu, "region": region, "num_free_devices": 4,
         "effective_num_free_devices": 4, "spot_num_free_devices": 2 if spot else 0,
         "price_per_hour": price, "spot_price": spot, "vram": vram, "cpus_per_gpu": cpus,
         "ram_per_gpu": ram, "workload_type": workload, "num_gpus": "8"}
        for gpu, region, price, spot, vram, cpus, ram, workload in JARVIS_ROWS
    ]  # fmt: skip
    body = {"server_meta": rows, "cpu_meta": {"workload_type": "container", "combinations": []}}
    url = "https://backendn.jarvislabs.net/misc/server_meta"
    _write(root, "jarvislabs", "server_meta", "server-meta-0001.json", _page(url, body))


BUILDERS += (build_jarvislabs,)


# (GPUs, GPU model, CPU cores, RAM GiB, US cents per hour). Illustrative: no recording of
# this API is public (keys and units are the ones gpuhunt reads).
HOTAISLE_VMS = [
    (1, "MI300X", 13, 224, 199),
    (2, "MI300X", 26, 448, 398),
    (4, "MI300X", 52, 896, 796),
    (8, "MI300X", 104, 1792, 1592),
]


def build_hotaisle(root: Path) -> None:
    shutil.rmtree(root / "hotaisle", ignore_errors=True)
    body = [
        {"OnDemandPrice": cents,
         "Specs": {"cpu_cores": cores, "ram_capacity": ram * GIB,
                   "disk_capacity": 1536 * GIB * gpus,
                   "cpus": {"count": 1, "model": "Xeon Platinum 8470", "cores": cores,
                            "manufacturer": "Intel"},
                   "gpus": [{"count": gpus, "manufacturer": "AMD", "model": model}]}}
        for gpus, model, cores, ram, cents in HOTAISLE_VMS
    ]  # fmt: skip
    url = "https://admin.hotaisle.app/api/teams/demo-team/virtual_machines/available/"
    _write(root, "hotaisle", "available_vms", "available-vms-0001.json", _page(url, body))


BUILDERS += (build_hotaisle,)


# VM types (product name, gpu_type, GPUs, vCPUs, RAM GB) and capacities (type, location,
# quantity). Illustrative: names, locations and quantities (no recording is public). The
# prices come from the connector's published table, not from these pages.
CRUSOE_TYPES = [
    ("h100-80gb-sxm-ib.8x", "H100-SXM-80GB", 8, 176, 1440),
    ("h200-141gb-sxm-ib.8x", "H200-SXM-141GB", 8, 176, 1920),
    ("a100-80gb-sxm-ib.8x", "A100-SXM-80GB", 8, 176, 1440),
    ("l40s-48gb.1x", "L40S-48GB", 1, 8, 147),
    ("l40s-48gb.8x", "L40S-48GB", 8, 64, 1176),
    ("mi300x-192gb.8x", "MI300X-192GB", 8, 240, 2048),
    # no published price: excluded with a reason
    ("b200-180gb-sxm-ib.8x", "B200-SXM-180GB", 8, 240, 3840),
    ("c1a.16x", "", 0, 16, 32),
]
CRUSOE_CAPACITY = [
    ("h100-80gb-sxm-ib.8x", "us-east1-a", 4), ("h100-80gb-sxm-ib.8x", "us-southcentral1-a", 2),
    ("h200-141gb-sxm-ib.8x", "eu-iceland1-a", 3), ("a100-80gb-sxm-ib.8x", "us-east1-a", 1),
    ("l40s-48gb.1x", "us-east1-a", 12), ("l40s-48gb.8x", "us-east1-a", 2),
    ("mi300x-192gb.8x", "us-southcentral1-a", 1), ("b200-180gb-sxm-ib.8x", "us-east1-a", 1),
    ("c1a.16x", "us-east1-a", 40),
]  # fmt: skip


def build_crusoe(root: Path) -> None:
    shutil.rmtree(root / "crusoe", ignore_errors=True)
    api = "https://api.crusoecloud.com/v1alpha5"
    types = [
        {"product_name": name, "gpu_type": gpu, "num_gpu": n, "cpu_cores": cpus,
         "memory_gb": ram, "disk_gb": 960 * n, "cpu_type": "amd64"}
        for name, gpu, n, cpus, ram in CRUSOE_TYPES
    ]  # fmt: skip
    caps = [{"type": t, "location": loc, "quantity": q} for t, loc, q in CRUSOE_CAPACITY]
    _write(root, "crusoe", "vm_types", "vm-types-0001.json",
           _page(f"{api}/projects/demo-project/compute/vms/types", {"items": types}))  # fmt: skip
    _write(root, "crusoe", "capacities", "capacities-0001.json",
           _page(f"{api}/capacities", {"items": caps}))  # fmt: skip


BUILDERS += (build_crusoe,)


# (gpu_type, GPU counts, USD per GPU-hour, regions). Illustrative: no recording is public
# (keys as skypilot reads them); H100 SXM5 2.10 is the last figure aggregators carried.
FLUIDSTACK_CONFIGS = [
    ("H100_SXM5_80GB", [1, 2, 4, 8], 2.1, ["norway_4_eu", "canada_1_na"]),
    ("H100_PCIE_80GB", [1, 2, 4, 8], 1.9, ["canada_1_na"]),
    ("A100_PCIE_80GB", [1, 2, 4, 8], 1.49, ["norway_4_eu"]),
    ("RTX_A6000_48GB", [1, 2, 4, 8], 0.55, ["canada_1_na"]),
    ("L40_48GB", [1, 2, 4, 8], 1.25, ["norway_4_eu"]),
]


def build_fluidstack(root: Path) -> None:
    shutil.rmtree(root / "fluidstack", ignore_errors=True)
    body = [
        {"gpu_type": gpu, "gpu_counts": counts, "price_per_gpu_hr": price, "regions": regions}
        for gpu, counts, price, regions in FLUIDSTACK_CONFIGS
    ]
    url = "https://platform.fluidstack.io/list_available_configurations"
    _write(root, "fluidstack", "configurations", "configurations-0001.json", _page(url, body))


BUILDERS += (build_fluidstack,)


# (name, cpu, ram MB, disk GB, GPUs, gpu_label, EUR per hour, regions). Real (gpuhunt's test
# fixture, which mirrors the live /plans shape): the first four plans. Illustrative: the
# H100 plan. Prices are euro: the refresh converts them with the recorded EUR rate.
SEEWEB_PLANS = [
    ("ECS1GPU7", "8", "32768", "500", "1", "L40s 48GB", 0.85, ["it-fr2", "it-mi2"]),
    ("ECS2GPU3", "32", "245760", "2000", "2", "A100 80GB", 1.98, ["it-fr2"]),
    ("eCS4", "4", "8192", "160", "0", None, 0.063, ["it-fr2", "it-mi2"]),
    ("ECS1GPU9", "32", "262144", "2000", "1", "MI300X", 1.6, ["it-fr2"]),
    ("ECS1GPU10", "16", "122880", "750", "1", "H100 80GB", 2.43, ["it-fr2"]),
]


def build_seeweb(root: Path) -> None:
    shutil.rmtree(root / "seeweb", ignore_errors=True)
    plans = [
        {"name": name, "cpu": cpu, "ram": ram, "disk": disk, "gpu": gpu, "gpu_label": label,
         "hourly_price": price, "available": True,
         "available_regions": [{"location": r} for r in regions]}
        for name, cpu, ram, disk, gpu, label, price, regions in SEEWEB_PLANS
    ]  # fmt: skip
    url = "https://api.seeweb.it/ecs/v2/plans"
    _write(root, "seeweb", "plans", "plans-0001.json", _page(url, {"status": "ok", "plans": plans}))


BUILDERS += (build_seeweb,)


def build_nebius(root: Path) -> None:
    """One page per region, as the nebius SDK's fetch writes it. The pages are the parse
    fixture tests/fixtures/nebius/regions.json, which the fetch test checks is what the
    SDK produces against a local server speaking Nebius' protos. Illustrative prices."""
    shutil.rmtree(root / "nebius", ignore_errors=True)
    fixture = Path(__file__).resolve().parent.parent / "tests/fixtures/nebius/regions.json"
    for i, body in enumerate(json.loads(fixture.read_text())["pages"], start=1):
        request = {"region": body["region"], "service": "nebius.billing.v1alpha1.CalculatorService"}
        page = {"fetched_at": FETCHED_AT, "request": request, "body": body}
        _write(root, "nebius", "estimates", f"estimates-{i:04d}.json", page)


BUILDERS += (build_nebius,)

def build_all(root: Path) -> None:
    for build in BUILDERS:
        build(root)
