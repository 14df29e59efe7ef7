#!/usr/bin/env python3
"""`physflow bench scaling` and `physflow info` from the command line: the CSV follows the contract (machine
header, columns bench,case,method,workers,metric,value, every metric for every configuration, the combinations
asked for and no others), its numbers agree with each other (speedup = T1 / T, efficiency = speedup / workers,
stages that sum to the step on a scene without collision), --plot writes an SVG and a PNG (skipped without
gnuplot), a missing gnuplot still leaves the CSV, and bad options exit 2. No timing is asserted."""
import csv
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

PHYSFLOW = sys.argv[1]
METRICS = {"ms_per_step", "ms_per_step_lo", "ms_per_step_hi", "ms_collision", "ms_update", "ms_integration",
           "speedup", "efficiency", "updates"}
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {name}: {detail}")
    return ok


def run(*args, env=None):
    return subprocess.run([PHYSFLOW, *args], capture_output=True, text=True, env=env, timeout=500)


def read_csv(path):
    """'#' header lines and the rows as {(method, workers): {metric: value}}."""
    with open(path) as f:
        lines = f.read().splitlines()
    comments = [l for l in lines if l.startswith("#")]
    body = [l for l in lines if not l.startswith("#")]
    rows = list(csv.reader(body))
    table = {}
    for r in rows[1:]:
        bench, case, method, workers, metric, value = r
        table.setdefault((method, int(workers)), {})[metric] = float(value)
        check("rows name the bench and the scene", bench == "scaling" and case == "bars64", r)
    return comments, rows[0] if rows else [], table


def close(a, b, rel=1e-4):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "scaling.csv")
    plot = os.path.join(tmp, "scaling.svg")
    r = run("bench", "scaling", "bars64", "--threads", "1,2", "--executors", "seq,static", "--steps", "2",
            "--repeat", "2", "--no-bind", "--csv", out, "--plot", plot)
    check("bench scaling exits 0", r.returncode == 0, r.stderr)
    comments, header, table = read_csv(out)
    check("CSV header names the columns", header == ["bench", "case", "method", "workers", "metric", "value"], header)
    machine = [c for c in comments if c.startswith("# machine:")]
    check("CSV names the machine: CPU model, CPUs, hwloc summary",
          len(machine) == 1 and "online CPUs" in machine[0] and "core(s)" in machine[0] and "NUMA" in machine[0],
          comments)
    check("CSV records the command", any(c.startswith("# command: physflow bench scaling bars64") for c in comments),
          comments)
    check("configurations: seq at 1 worker, static at 1 and 2",
          set(table) == {("seq", 1), ("static", 1), ("static", 2)}, sorted(table))
    base = table.get(("seq", 1), {}).get("ms_per_step", 0)
    for (method, workers), m in table.items():
        key = f"{method}@{workers}"
        if not check(f"{key} has every metric", set(m) == METRICS, sorted(m)):
            continue
        check(f"{key} ms_per_step > 0", m["ms_per_step"] > 0, m)
        check(f"{key} repeats' range ordered", 0 < m["ms_per_step_lo"] <= m["ms_per_step_hi"], m)
        check(f"{key} speedup = T1 / T", close(m["speedup"], base / m["ms_per_step"]), m)
        check(f"{key} efficiency = speedup / workers", close(m["efficiency"], m["speedup"] / workers), m)
        # bars64 has no collision stage and no structural change after its first step
        check(f"{key} no collision, no update", m["ms_collision"] == 0 and m["ms_update"] == 0 and m["updates"] == 0, m)
        check(f"{key} integration = step - collision - update", close(m["ms_integration"], m["ms_per_step"]), m)
    check("seq speedup is 1", table.get(("seq", 1), {}).get("speedup") == 1.0)
    for line in ("seq", "static"):
        check(f"table shows {line}", any(l.split()[:1] == [line] for l in r.stdout.splitlines()), r.stdout)

    png = os.path.join(tmp, "scaling.png")
    if shutil.which("gnuplot"):
        check("--plot wrote the SVG", os.path.isfile(plot), os.listdir(tmp))
        check("--plot wrote the PNG beside it", os.path.isfile(png), os.listdir(tmp))
        if os.path.isfile(plot):
            root = ET.parse(plot).getroot()
            text = " ".join(t.text or "" for t in root.iter() if t.tag.endswith("text"))
            check("SVG is an svg document", root.tag.endswith("svg"), root.tag)
            check("SVG legend names the ideal line and the method", "ideal" in text and "static" in text, text)
            check("SVG title names the scene", "bars64" in text, text)
        if os.path.isfile(png):
            with open(png, "rb") as f:
                head = f.read(24)
            w, h = struct.unpack(">II", head[16:24])
            check("PNG signature and size", head[:8] == b"\x89PNG\r\n\x1a\n" and (w, h) == (720, 540), (head[:8], w, h))
    else:
        print("note: gnuplot is not installed; image checks skipped")

    # Without gnuplot on PATH: a warning, exit 0, the CSV still written, no image.
    nogp = os.path.join(tmp, "nogp")
    os.mkdir(nogp)
    out2 = os.path.join(nogp, "s.csv")
    r = run("bench", "scaling", "bars64", "--threads", "2", "--executors", "seq,static,barrier", "--partitioners",
            "owner,metis", "--steps", "1", "--no-bind", "--csv", out2, "--plot", os.path.join(nogp, "s"),
            env=dict(os.environ, PATH=nogp))
    check("missing gnuplot: exit 0", r.returncode == 0, r.stderr)
    check("missing gnuplot: the warning says so", "gnuplot is not installed" in r.stderr, r.stderr)
    check("missing gnuplot: no image", sorted(os.listdir(nogp)) == ["s.csv"], os.listdir(nogp))
    if os.path.isfile(out2):
        _, _, t2 = read_csv(out2)
        check("partitioners label static only, seq stays at 1 worker",
              set(t2) == {("seq", 1), ("static/owner", 2), ("static/metis", 2), ("barrier", 2)}, sorted(t2))

    for bad in (["--threads", "0"], ["--threads", "1", "--partitioners", "scotch"], ["--threads", "1", "--repeat", "0"],
                ["--threads", "1", "--plot"], []):
        r = run("bench", "scaling", "bars64", *bad)
        check(f"bench scaling {' '.join(bad)} exits 2", r.returncode == 2, f"rc {r.returncode}")
        check(f"bench scaling {' '.join(bad)} explains", len(r.stderr.strip()) > 0)
    r = run("bench", "scaling", "nosuchscene", "--threads", "1")
    check("unknown scene exits 2", r.returncode == 2 and "nosuchscene" in r.stderr, r.stderr)

r = run("info")
check("info exits 0", r.returncode == 0, r.stderr)
for needle in ("topology (hwloc", "cores", "hardware threads", "L1d caches", "NUMA node", "buildtype", "OpenMP",
               "idx_t", "executors: seq static barrier omptasks", "partitioners: owner metis", "broad phases:",
               "peers:", "built-in scenes: bars64"):
    check(f"info mentions '{needle}'", needle in r.stdout, r.stdout)
r = run("info", "--bogus")
check("info with a stray argument exits 2", r.returncode == 2, f"rc {r.returncode}")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
