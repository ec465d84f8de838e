#!/usr/bin/env python3
"""Prints issue 19's ratio table: qparity against its peer on this CPU, in one command.

    /usr/bin/python3 bench/ratio_table.py [--build build] [--repetitions 3] [--min-time 0.1]
                                          [--cores DR-AZ,F32] [--every-mnv2-layer] [--isa avx2]
                                          [--save DIR | --load DIR]

Runs peak_bench, gemm_bench and conv_bench from the build directory (Google Benchmark JSON, medians
of --repetitions runs with random interleaving, so that a burst of load on a shared machine spreads
over every row instead of hitting a few), then prints:

  * the CPU (lscpu), qparity's ISA (the one its dispatch picks: every qparity row below uses it),
    oneDNN's ISA and the load average before and after the runs;
  * the instruction limits (peak_bench) and, for the large GEMMs, the fraction of the limit of the
    ISA's dot-product instruction that each rounding core reaches;
  * per GEMM shape and per conv layer, one thread: qparity / peer for every rounding core, where
    ratio = qparity GOPS / peer GOPS (> 1: qparity is faster). The peer that counts is the faster
    of oneDNN and XNNPACK among those whose row computed the exact arithmetic (the benches refuse
    to time an implementation whose output differs from its reference arithmetic; the one other
    arithmetic they time, oneDNN's convolution without int8 VNNI, whose filter is halved, carries
    the label arith=halved-filter and is printed as "onednn-halved" without target marks). On
    AVX-512 VNNI that is oneDNN; on AVX2, where oneDNN's matmul falls back to gemm:jit at a few
    GOPS and its convolution halves the filter, XNNPACK. Every peer's line is printed;
  * integer core / F32 (GOPS ratio of each integer core to qparity's F32 core);
  * the pair-saturating accumulator (pairsat16, the VPMADDUBSW arithmetic of XNNPACK, ONNX Runtime
    and oneDNN without VNNI) on the headline GEMMs, DR-AZ and F32: GOPS, fraction of the u8 x s8
    pair instruction's limit (peak/vpmaddubsw_pair, ymm on avx2, zmm on AVX-512) and / the exact
    int32 row of the same core;
  * where oneDNN's convolution halved its filter: qparity computing that same arithmetic
    (qparity_halved/<isa>/F32-ZPF: the halved filter, the onednn preset) / oneDNN, per layer;
  * two threads (t2/ rows, wall time): qparity's built-in threaded call / peer with two threads,
    its scaling over one thread (wall time of both) and the tile API on an external pool of two /
    the built-in threaded call.

A value that misses the issue's target is followed by '!'. Targets (issue 19): GEMM >= 1.0 on every
shape and >= 1.2 on 64x64x64, 1x1000x1024 and every shape with K <= 64; convolutions >= 1.0,
depthwise >= 1.5, MobileNet v2 total time <= 0.9x the peer's (ratio >= 1/0.9); integer cores >= 0.95x
F32; large GEMMs >= 85 % of the limit; two threads >= 1.0x the peer, scaling >= 1.8 on the large
shapes, tile split >= 0.95x the built-in call (as fast, within noise).

--isa NAME measures a lower ISA tier on this CPU: the benches run with QPARITY_ISA=NAME (qparity's
dispatch cap, every qparity row then uses NAME) and ONEDNN_MAX_CPU_ISA set to oneDNN's name of the
same tier (avx2: AVX2); XNNPACK has no such cap and keeps its own choice (printed in the header).
The CPU is still the one at hand: an AVX2 tier measured on a Zen 4 is not a Zen 3.

One-thread rows report OPS per CPU second of the benchmark thread (bench/README.md), two-thread rows
per wall second; the scaling column compares wall times of both.
"""

import argparse
import json
import os
import re
import subprocess
import sys

LARGE_GEMMS = ("512x512x512", "1024x1024x1024", "784x128x1152")
HEADLINE_GEMMS = ("64x64x64", "256x256x256", "512x512x512", "1024x1024x1024", "1x1000x1024",
                  "3136x64x64", "784x128x1152")
GEMM_TARGET_1_2 = ("64x64x64", "1x1000x1024")
# Which peak_bench row limits qparity's exact path on each ISA.
PEAK_OF_ISA = {
    "amx": "peak/tdpbusd/tile",
    "avx512vnni": "peak/vpdpbusd/zmm",
    "avxvnni": "peak/vpdpbusd_vex/ymm",
    "avx512": "peak/vpmaddwd_vpaddd/zmm",
    "avx2": "peak/vpmaddwd_vpaddd/ymm",
}
# Which peak_bench row limits the pair-saturating kernels (VPMADDUBSW + VPMADDWD) on each ISA.
PAIR_PEAK_OF_ISA = {
    "amx": "peak/vpmaddubsw_pair/zmm",  # TDPB*D cannot saturate pairs: AVX-512BW's kernel runs it
    "avx512vnni": "peak/vpmaddubsw_pair/zmm",
    "avx512": "peak/vpmaddubsw_pair/zmm",
    "avxvnni": "peak/vpmaddubsw_pair/ymm",
    "avx2": "peak/vpmaddubsw_pair/ymm",
}
PAIRSAT_CORES = ("DR-AZ", "F32")
# oneDNN's ONEDNN_MAX_CPU_ISA value for qparity's ISA names (--isa).
ONEDNN_CAP_OF_ISA = {
    "sse41": "SSE41",
    "avx2": "AVX2",
    "avxvnni": "AVX2_VNNI",
    "avx512": "AVX512_CORE",
    "avx512vnni": "AVX512_CORE_VNNI",
    "amx": "AVX512_CORE_AMX",
}
HALVED = "arith=halved-filter"
ALL_CORES = ("DR-AZ", "DR-UP", "SR-UP", "SR-UP-NEON", "SR-AZ", "SR-EVEN", "TRUNC", "FLOOR", "F32",
             "F32-ZPF", "Q15")


def load_avg():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def cpu_model():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown (lscpu failed)"
    fields = {}
    for line in out.splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    flags = set(fields.get("Flags", "").split())
    isa = [f for f in ("avx2", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8") if f in flags]
    return "%s, family %s model %s, %s CPU(s); %s" % (
        fields.get("Model name", "?"), fields.get("CPU family", "?"), fields.get("Model", "?"),
        fields.get("CPU(s)", "?"), " ".join(isa) or "no AVX2")


def run_bench(exe, args, out_json, env=None):
    if not os.access(exe, os.X_OK):
        sys.exit("ratio_table: %s is missing: build it first (cmake --build <dir> --target %s)"
                 % (exe, os.path.basename(exe)))
    cmd = [exe] + args + ["--benchmark_out=" + out_json, "--benchmark_out_format=json"]
    print("# running: " + " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)


def active_isa(gemm_bench, env=None):
    """The ISA of the t2/qparity rows, which gemm_bench registers on qparity's dispatch choice."""
    if not os.access(gemm_bench, os.X_OK):
        sys.exit("ratio_table: %s is missing: build it first" % gemm_bench)
    out = subprocess.run([gemm_bench, "--benchmark_list_tests", "--benchmark_filter=^t2/qparity/"],
                         capture_output=True, text=True, check=True, env=env).stdout
    for line in out.splitlines():
        parts = line.split("/")
        if len(parts) >= 3:
            return parts[2]
    sys.exit("ratio_table: gemm_bench lists no t2/qparity rows")


class Rows:
    """Medians of one Google Benchmark JSON file: run_name -> (OPS per second, wall OPS, label)."""

    def __init__(self, path):
        with open(path) as f:
            data = json.load(f)
        self.context = data.get("context", {})
        self.rows = {}
        self.errors = {}
        for b in data.get("benchmarks", []):
            name = b.get("run_name", b["name"])
            if name.endswith("/real_time"):  # UseRealTime rows (t2/): the lookups use the base name
                name = name[: -len("/real_time")]
            if b.get("error_occurred"):
                self.errors[name] = b.get("error_message", "error")
                continue
            if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
                continue
            if b.get("run_type") == "iteration" and name in self.rows:
                continue  # aggregates only; an iteration row is kept only when no median exists
            ops = b.get("OPS")
            if ops is None:
                continue
            # OPS is per CPU second, or per wall second for UseRealTime rows (whose cpu_time is the
            # main thread's only): the wall rate is OPS * cpu / real for the former.
            real, cpu = b.get("real_time", 0.0), b.get("cpu_time", 0.0)
            wall = ops if "/real_time" in b["name"] or name.startswith("t2/") else (
                ops * cpu / real if real > 0 else 0.0)
            self.rows[name] = (ops, wall, b.get("label", ""))

    def gops(self, name):
        r = self.rows.get(name)
        return r[0] / 1e9 if r else None

    def wall_gops(self, name):
        r = self.rows.get(name)
        return r[1] / 1e9 if r else None

    def exact(self, name):
        """The row ran and computed the exact arithmetic (not oneDNN's halved filter)."""
        r = self.rows.get(name)
        return r is not None and HALVED not in r[2]


def counting_peer(rows, prefix, shape):
    """The peer the targets apply to: the faster of oneDNN and XNNPACK among the exact rows."""
    best, best_gops = None, 0.0
    for peer in ("onednn", "xnnpack"):
        name = "%s%s/%s" % (prefix, peer, shape)
        if rows.exact(name) and rows.gops(name) > best_gops:
            best, best_gops = peer, rows.gops(name)
    return best


def ratio(a, b):
    return a / b if a is not None and b else None


def cell(value, target=None, width=6, fmt="%.2f"):
    if value is None:
        return "-".rjust(width)
    text = fmt % value
    if target is not None and value < target:
        text += "!"
    return text.rjust(width)


def table(title, header, lines):
    print("\n" + title)
    widths = [max(len(str(r[i])) for r in [header] + lines) for i in range(len(header))]
    print("| " + " | ".join(str(h).ljust(w) for h, w in zip(header, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in lines:
        print("| " + " | ".join(str(c).rjust(w) for c, w in zip(r, widths)) + " |")


def gemm_k_of_shapes():
    """Shape name -> K, from bench/gemm_shapes.h (the MobileNet shapes' names do not say K)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gemm_shapes.h")
    with open(path) as f:
        return {m.group(1): int(m.group(2)) for m in
                re.finditer(r'\{"([^"]+)",\s*\d+,\s*\d+,\s*(\d+),', f.read())}


def peer_lines(rows, shapes, isa, cores, prefix, target_of):
    """Lines 'shape | peer | peer GOPS | ratio per core' for both peers of `shapes`; only the peer
    that counts (counting_peer) gets the target marks."""
    lines = []
    for shape in shapes:
        counts = counting_peer(rows, prefix, shape)
        for peer in ("onednn", "xnnpack"):
            name = "%s%s/%s" % (prefix, peer, shape)
            p = rows.gops(name)
            if p is None:
                continue
            target = target_of(shape) if peer == counts else None
            label = peer if rows.exact(name) else peer + "-halved"
            line = [shape, label, "%.1f" % p]
            for core in cores:
                q = rows.gops("%sqparity/%s/%s/%s" % (prefix, isa, core, shape))
                line.append(cell(ratio(q, p), target))
            lines.append(line)
    return lines


def int_vs_f32_lines(rows, shapes, isa, cores, prefix=""):
    lines = []
    int_cores = [c for c in cores if not c.startswith("F32")]
    for shape in shapes:
        f32 = rows.gops("%sqparity/%s/F32/%s" % (prefix, isa, shape))
        if f32 is None:
            continue
        line = [shape, "%.1f" % f32]
        for core in int_cores:
            line.append(cell(ratio(rows.gops("%sqparity/%s/%s/%s" % (prefix, isa, core, shape)), f32),
                             0.95))
        lines.append(line)
    return ["shape", "F32 GOPS"] + int_cores, lines


TWO_THREAD_HEADER = ["shape", "core", "qparity t2 GOPS", "oneDNN t2", "XNNPACK t2", "/ oneDNN",
                     "/ XNNPACK", "scaling", "tiles / built-in"]


def two_thread_lines(rows, shapes, isa, cores, large):
    """Wall-time GOPS of the t2/ rows; scaling = t2 / one thread, both in wall time."""
    lines = []
    for shape in shapes:
        po = rows.wall_gops("t2/onednn/" + shape)
        px = rows.wall_gops("t2/xnnpack/" + shape)
        counts = counting_peer(rows, "t2/", shape)
        for core in cores:
            t2 = rows.wall_gops("t2/qparity/%s/%s/%s" % (isa, core, shape))
            tiles = rows.wall_gops("t2/qparity_tiles/%s/%s/%s" % (isa, core, shape))
            t1 = rows.wall_gops("qparity/%s/%s/%s" % (isa, core, shape))
            if t2 is None:
                continue
            lines.append([shape, core, cell(t2, fmt="%.1f"), cell(po, fmt="%.1f"),
                          cell(px, fmt="%.1f"),
                          cell(ratio(t2, po), 1.0 if counts == "onednn" else None),
                          cell(ratio(t2, px), 1.0 if counts == "xnnpack" else None),
                          cell(ratio(t2, t1), 1.8 if shape in large else None),
                          cell(ratio(tiles, t2), 0.95)])
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--build", default=os.path.join(repo, "build"),
                    help="build directory with bench/ (default: the repository's build/)")
    ap.add_argument("--repetitions", type=int, default=3)
    ap.add_argument("--min-time", default="0.1", help="--benchmark_min_time per repetition (s)")
    ap.add_argument("--cores", default=",".join(ALL_CORES),
                    help="comma-separated rounding cores (default: all eleven)")
    ap.add_argument("--every-mnv2-layer", action="store_true",
                    help="also every MobileNet v2 conv layer (default: headline layers + mnv2/all)")
    ap.add_argument("--isa", choices=sorted(ONEDNN_CAP_OF_ISA),
                    help="measure this ISA tier: QPARITY_ISA and ONEDNN_MAX_CPU_ISA capped to it "
                         "(XNNPACK keeps its own choice)")
    ap.add_argument("--save", help="keep the JSON files in this directory")
    ap.add_argument("--load", help="print the table from JSON files saved by --save, run nothing")
    a = ap.parse_args()
    cores = [c for c in a.cores.split(",") if c]
    for c in cores:
        if c not in ALL_CORES:
            sys.exit("ratio_table: unknown core '%s'; allowed: %s" % (c, ", ".join(ALL_CORES)))
    if "F32" not in cores:
        cores.append("F32")  # the integer cores are compared with it

    bench = os.path.join(a.build, "bench")
    outdir = a.load or a.save or os.path.join(a.build, "ratio_table")
    os.makedirs(outdir, exist_ok=True)
    files = {k: os.path.join(outdir, k + ".json") for k in ("peak", "gemm", "conv")}
    load_before = load_after = "not measured (--load)"
    env = None
    if a.isa:
        env = dict(os.environ, QPARITY_ISA=a.isa, ONEDNN_MAX_CPU_ISA=ONEDNN_CAP_OF_ISA[a.isa])
    if a.load:
        isa = None
    else:
        load_before = load_avg()
        isa = active_isa(os.path.join(bench, "gemm_bench"), env)
        if a.isa and isa != a.isa:
            sys.exit("ratio_table: --isa %s: qparity's dispatch picks %s under QPARITY_ISA=%s "
                     "(this CPU or build lacks it?)" % (a.isa, isa, a.isa))
        core_re = "(" + "|".join(re.escape(c) for c in cores) + ")"
        common = ["--benchmark_repetitions=%d" % a.repetitions,
                  "--benchmark_report_aggregates_only=true",
                  "--benchmark_enable_random_interleaving=true",
                  "--benchmark_min_time=%s" % a.min_time]
        run_bench(os.path.join(bench, "peak_bench"), common, files["peak"], env)
        gemm_filter = "^((t2/)?(onednn|xnnpack)/|(t2/)?qparity(_tiles)?/%s/%s/|qparity_pairsat/%s/)" % (
            isa, core_re, isa)
        run_bench(os.path.join(bench, "gemm_bench"),
                  common + ["--no_onednn_vnni", "--benchmark_filter=" + gemm_filter], files["gemm"],
                  env)
        layers = ".*" if a.every_mnv2_layer else "([0-9]|dw|mnv2/all$)"
        conv_filter = "^((t2/)?(onednn|xnnpack)/|(t2/)?qparity(_tiles)?/%s/%s/|qparity_halved/%s/F32-ZPF/)%s" % (
            isa, core_re, isa, layers)
        run_bench(os.path.join(bench, "conv_bench"),
                  common + ["--no_onednn_vnni", "--benchmark_filter=" + conv_filter], files["conv"],
                  env)
        load_after = load_avg()

    peak, gemm, conv = (Rows(files[k]) for k in ("peak", "gemm", "conv"))
    if isa is None:
        isa = next((n.split("/")[2] for n in gemm.rows if n.startswith("t2/qparity/")), "?")

    cores = [c for c in cores if any(n.startswith("qparity/%s/%s/" % (isa, c)) for n in gemm.rows)]
    print("CPU: " + cpu_model())
    print("qparity ISA: %s (supported: %s); oneDNN: %s %s; XNNPACK: %s" % (
        isa, gemm.context.get("qparity_supported_isas", "?"), gemm.context.get("onednn_version", "?"),
        gemm.context.get("onednn_isa", "?"), gemm.context.get("xnnpack_isa", "?")))
    if a.isa:
        print("ISA tier capped with --isa %s: QPARITY_ISA=%s, ONEDNN_MAX_CPU_ISA=%s; XNNPACK is not "
              "capped" % (a.isa, a.isa, ONEDNN_CAP_OF_ISA[a.isa]))
    print("load average: %s before, %s after (%d CPUs); Google Benchmark's at gemm_bench start: %s"
          % (load_before, load_after, os.cpu_count() or 0, gemm.context.get("load_avg", "?")))
    print("medians of %s repetitions, random interleaving; '!' = below issue 19's target"
          % (a.repetitions if not a.load else "the saved"))

    # --- limits and peak fraction
    lines = []
    for name, (ops, _, label) in sorted(peak.rows.items()):
        lines.append([name, "%.1f" % (ops / 1e9), label])
    for name, err in sorted(peak.errors.items()):
        lines.append([name, "-", err])
    table("Instruction limits (peak_bench, GOPS = 2 x MAC/s)", ["row", "GOPS", "limits"], lines)
    limit = peak.gops(PEAK_OF_ISA.get(isa, ""))
    if limit:
        lines = []
        for shape in LARGE_GEMMS:
            line = [shape]
            for core in cores:
                line.append(cell(ratio(gemm.gops("qparity/%s/%s/%s" % (isa, core, shape)), limit),
                                 0.85))
            lines.append(line)
        table("Large GEMMs: fraction of %s (%.1f GOPS), one thread" % (PEAK_OF_ISA[isa], limit),
              ["shape"] + cores, lines)

    # --- GEMM, one thread
    k_of = gemm_k_of_shapes()  # also the shapes' order in gemm_shapes.h
    shapes = [s for s in k_of if ("qparity/%s/F32/%s" % (isa, s)) in gemm.rows]

    def gemm_target(shape):
        return 1.2 if shape in GEMM_TARGET_1_2 or k_of.get(shape, 1 << 30) <= 64 else 1.0

    table("GEMM, one thread: qparity / peer (GOPS ratio; target 1.2 on 64^3, FC batch 1, K <= 64)",
          ["shape", "peer", "peer GOPS"] + cores,
          peer_lines(gemm, shapes, isa, cores, "", gemm_target))
    header, lines = int_vs_f32_lines(gemm, shapes, isa, cores)
    table("GEMM, one thread: integer core / F32", header, lines)

    # --- the pair-saturating accumulator
    pair_limit = peak.gops(PAIR_PEAK_OF_ISA.get(isa, ""))
    lines = []
    for shape in [s for s in HEADLINE_GEMMS if s in shapes]:
        line = [shape]
        for core in PAIRSAT_CORES:
            q = gemm.gops("qparity_pairsat/%s/%s/%s" % (isa, core, shape))
            line += [cell(q, fmt="%.1f"),
                     cell(ratio(q, pair_limit), 0.85 if shape in LARGE_GEMMS else None),
                     cell(ratio(q, gemm.gops("qparity/%s/%s/%s" % (isa, core, shape))))]
        if any(gemm.gops("qparity_pairsat/%s/%s/%s" % (isa, c, shape)) for c in PAIRSAT_CORES):
            lines.append(line)
    if lines:
        header = ["shape"]
        for core in PAIRSAT_CORES:
            header += ["%s GOPS" % core, "/ limit", "/ exact"]
        table("GEMM, one thread: pair-saturating accumulator (pairsat16), / %s (%s GOPS) and / the "
              "exact int32 row" % (PAIR_PEAK_OF_ISA.get(isa, "?"),
                                   "%.1f" % pair_limit if pair_limit else "-"), header, lines)

    # --- convolutions, one thread
    layers = sorted((n.split("/", 3)[3] for n in conv.rows if n.startswith("qparity/%s/F32/" % isa)),
                    key=lambda l: (l == "mnv2/all", l.startswith("mnv"), "dw" in l, l))

    def conv_target(layer):
        if layer == "mnv2/all":
            return 1 / 0.9
        return 1.5 if "dw" in layer.split("/")[-1] else 1.0

    table("Convolutions, one thread: qparity / peer (mnv2/all: the network's total)",
          ["layer", "peer", "peer GOPS"] + cores, peer_lines(conv, layers, isa, cores, "", conv_target))
    header, lines = int_vs_f32_lines(conv, layers, isa, cores)
    table("Convolutions, one thread: integer core / F32", header, lines)

    # --- oneDNN's own arithmetic without int8 VNNI (item 6): where oneDNN's convolution halved
    # its filter, qparity computing that very arithmetic (qparity_halved: the filter halved, the
    # onednn preset's F32-ZPF) / oneDNN, target 1.0 ("at least as fast"), and qparity's exact
    # F32-ZPF row / oneDNN.
    lines = []
    for layer in layers:
        name = "onednn/" + layer
        p = conv.gops(name)
        if p is None or conv.exact(name):
            continue
        q = conv.gops("qparity_halved/%s/F32-ZPF/%s" % (isa, layer))
        lines.append([layer, "%.1f" % p, cell(q, fmt="%.1f"), cell(ratio(q, p), 1.0),
                      cell(ratio(conv.gops("qparity/%s/F32-ZPF/%s" % (isa, layer)), p))])
    if lines:
        table("Convolutions, one thread: oneDNN's arithmetic without int8 VNNI (its filter halved), "
              "qparity computing it / oneDNN",
              ["layer", "onednn-halved GOPS", "qparity_halved GOPS", "/ oneDNN",
               "exact F32-ZPF / oneDNN"], lines)

    # --- two threads
    table("GEMM, two threads (wall time): built-in gemm_threaded",
          TWO_THREAD_HEADER, two_thread_lines(gemm, [s for s in HEADLINE_GEMMS if s in shapes], isa, cores,
                                       LARGE_GEMMS))
    t2_layers = [l for l in layers if ("t2/qparity/%s/F32/%s" % (isa, l)) in conv.rows]
    table("Convolutions, two threads (wall time): built-in conv2d_threaded / depthwise_conv2d_threaded",
          TWO_THREAD_HEADER, two_thread_lines(conv, t2_layers, isa, cores,
                                       [l for l in t2_layers if "3x3" in l and "dw" not in l]))

    skipped = sorted(set(gemm.errors.items()) | set(conv.errors.items()))
    if skipped:
        print("\nRows skipped by the benches (not timed):")
        for name, err in skipped:
            print("  %s: %s" % (name, err))


if __name__ == "__main__":
    main()
