#!/usr/bin/python3
"""Writes models/link-*.csv: t_ns = latency + bytes / bandwidth, at 1 B, 2 B, ... 1 GiB.

The bandwidths are the vendors' published figures (see models/README.md, "Link models");
the latency is our assumption (the same README says why).  Run from the repository root:
    /usr/bin/python3 bench/residency/make_links.py
"""
import os

LATENCY_NS = 5000.0  # one cudaMemcpy-like transfer's fixed cost: driver call + DMA start

# name: (per-direction bandwidth in GB/s = bytes per ns, '#' lines of provenance)
LINKS = {
    "pcie3-x16": (8.0 * 128 / 130 / 8 * 16, [
        "PCI Express 3.0 x16: 8 GT/s per lane, 128b/130b encoding (PCI-SIG, PCIe Base 3.0):",
        "8e9 * 128/130 / 8 = 0.9846 GB/s per lane and direction, x16 = 15.754 GB/s per direction",
        "(Intel's PCIe IP user guide 683111, 'PCI Express Data Throughput': Gen3 x16 126 Gbps)."]),
    "pcie4-x16": (16.0 * 128 / 130 / 8 * 16, [
        "PCI Express 4.0 x16: 16 GT/s per lane, 128b/130b encoding (PCI-SIG, PCIe Base 4.0):",
        "1.9692 GB/s per lane and direction, x16 = 31.508 GB/s per direction."]),
    "pcie5-x16": (32.0 * 128 / 130 / 8 * 16, [
        "PCI Express 5.0 x16: 32 GT/s per lane, 128b/130b encoding (PCI-SIG, PCIe Base 5.0,",
        "May 2019: 'up to 128 GB/s via x16', both directions): 63.015 GB/s per direction."]),
    "nvlink-c2c": (450.0, [
        "NVIDIA NVLink-C2C (Grace Hopper GH200): 900 GB/s total, 450 GB/s per direction",
        "(NVIDIA, 'NVIDIA Grace Hopper Superchip Architecture In-Depth', developer blog and",
        "whitepaper: ten links of 9 data signals at 40 Gb/s each, per direction)."]),
}

COMMON = [
    "Link model (issue 24): rows @h2d / @d2h, work = bytes of one transfer, t_ns its time.",
    "t_ns = %.0f ns latency + bytes / bandwidth, at 1 B, 2 B, 4 B ... 1 GiB (the model is" % LATENCY_NS,
    "linear, so interpolation between rows is exact)."]
LATENCY = [
    "Latency ASSUMED, not a vendor figure: 5 us per transfer, the software path of one",
    "cudaMemcpy(Async) (driver call, DMA engine start; 5-7 us measured per cudaMemcpyAsync,",
    "Wu et al. 2026, DualPath, arXiv 2602.21548; about 10 us on PCIe 2.0, U. Virginia",
    "cs.virginia.edu/~mwb7w/cuda_support/memory_transfer_overhead.html).  The wire's own",
    "latency (under 1 us) is a small part of it, so the same 5 us is used for every link.",
    "Bandwidth is the raw rate after line encoding: real copies reach 75-90 % of it (packet",
    "headers; NVLink-C2C measured 375 GB/s h2d, 297 GB/s d2h in a 2024 study HPCwire reported), so this",
    "model is optimistic for large copies.  Measure your own with dyl-model --link."]


def write(root, name, gbps, prov):
    path = os.path.join(root, "models", "link-%s.csv" % name)
    with open(path, "w") as f:
        for line in COMMON + prov + LATENCY:
            f.write("# " + line + "\n")
        f.write("func,work,t_ns\n")
        for d in ("@h2d", "@d2h"):
            for k in range(31):
                b = 1 << k
                f.write("%s,%d,%.3f\n" % (d, b, LATENCY_NS + b / gbps))


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for name, (gbps, prov) in LINKS.items():
        write(root, name, gbps, prov)


if __name__ == "__main__":
    main()
