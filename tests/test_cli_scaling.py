#!/usr/bin/env python3
"""`physflow bench scaling`, `tools/scaling-campaign` and `physflow info` from the command line: the CSV follows
the contract (machine header, columns bench,case,method,workers,metric,value, every metric for every
configuration, the combinations asked for and no others), its numbers agree with each other (speedup = T1 / T,
efficiency = speedup / workers, the same for integration = step - collision, which equals the step on a scene
without collision), --plot writes an SVG and a PNG (skipped without gnuplot), a missing gnuplot still leaves the
CSV, a scene file runs with --warmup and --repartition (methods labelled by policy, runtime counters present), a
malformed scene file exits 2 naming file and line, bad options exit 2, and the campaign script's quick mode
writes every experiment's CSV and a README into one folder and refuses a non-empty one. No timing is asserted."""
import csv
import os
import shutil
import struct
import subprocess
import re
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

from checks import check, finish

PHYSFLOW = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
CAMPAIGN = os.path.join(HERE, "..", "tools", "scaling-campaign")
METRICS = {"ms_per_step", "ms_per_step_lo", "ms_per_step_hi", "ms_collision", "ms_update", "ms_integration",
           "ms_integration_lo", "ms_integration_hi", "speedup", "efficiency", "speedup_integration",
           "efficiency_integration", "updates", "imbalance", "waits", "waits_blocked", "repartitions",
           "objects_moved", "reverts", "metis_small", "host_efficiency", "host_reruns"}
# A scene file small enough for milliseconds per step: two rigid boxes resting on a fixed floor (contacts, so a
# collision stage) and two FEM bars falling freely.
TINY_SCENE = """<Node name="tiny" dt="0.005" gravity="0 0 -9.81">
  <DefaultPipeline/>
  <BroadPhase method="kd"/>
  <BVHNarrowPhase/>
  <MinProximityIntersection alarmDistance="0.01" contactDistance="0.005"/>
  <DefaultContactManager response="PenaltyContactForceField" stiffness="10000" damping="20"/>
  <Node name="floor">
    <MechanicalObject template="Rigid3d" position="0 0 -0.05 0 0 0 1"/>
    <UniformMass totalMass="100"/>
    <RigidShape type="box" halfExtents="0.5 0.5 0.05"/>
    <FixedConstraint indices="0"/>
    <TriangleCollisionModel/>
  </Node>
  <Replicate count="2 1 1" step="0.2 0 0">
    <Node name="box">
      <EulerImplicitSolver rayleighMass="0.5" rayleighStiffness="0.01"/>
      <CGLinearSolver iterations="10" tolerance="1e-9" threshold="1e-12"/>
      <MechanicalObject template="Rigid3d" position="0 0 0.06 0 0 0 1"/>
      <UniformMass totalMass="1"/>
      <RigidShape type="box" halfExtents="0.05 0.05 0.05"/>
      <TriangleCollisionModel/>
    </Node>
  </Replicate>
  <Replicate count="2 1 1" step="0 0.2 0">
    <Node name="bar">
      <EulerImplicitSolver rayleighMass="0.1" rayleighStiffness="0.01"/>
      <CGLinearSolver iterations="10" tolerance="1e-9" threshold="1e-9"/>
      <MechanicalObject template="Vec3d"/>
      <RegularGridTopology n="6 3 3" min="-0.3 0.1 0.3" max="0.2 0.3 0.5"/>
      <UniformMass totalMass="5"/>
      <HexahedronFEMForceField youngModulus="1e6" poissonRatio="0.3" method="large"/>
    </Node>
  </Replicate>
</Node>
"""


def run(*args, env=None):
    return subprocess.run([PHYSFLOW, *args], capture_output=True, text=True, env=env, timeout=500)


def read_csv(path, scene="bars64"):
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
        check("rows name the bench and the scene", bench == "scaling" and case == scene, r)
    return comments, rows[0] if rows else [], table


def close(a, b, rel=1e-4):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "scaling.csv")
    plot = os.path.join(tmp, "scaling.svg")
    r = run("bench", "scaling", "bars64", "--threads", "1,2", "--executors", "seq,static", "--steps", "2",
            "--repeat", "2", "--no-bind", "--csv", out, "--plot", plot)
    check("bench scaling exits 0", r.returncode == 0, r.stderr)
    check("the paper's figures for bars64 are printed beside ours",
          "paper (Hermann et al. 2009" in r.stdout and "150 ms/step" in r.stdout, r.stdout)
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
        check(f"{key} integration = step - collision = step", close(m["ms_integration"], m["ms_per_step"]), m)
        check(f"{key} integration speedup = T1 / T of integration",
              close(m["speedup_integration"], table[("seq", 1)]["ms_integration"] / m["ms_integration"]), m)
        check(f"{key} integration efficiency", close(m["efficiency_integration"], m["speedup_integration"] / workers),
              m)
        check(f"{key} runtime counters", m["imbalance"] >= 0 and m["waits"] >= m["waits_blocked"] >= 0 and
              m["repartitions"] >= 0 and m["objects_moved"] >= 0 and 0 <= m["reverts"] <= m["repartitions"], m)
        # one worker is its own reference; several ran the host check, which no --host-min asked to repeat
        check(f"{key} host efficiency", (m["host_efficiency"] == 1.0) if workers == 1 else
              (0 < m["host_efficiency"] < 10), m)
        check(f"{key} no repeat run again without --host-min", m["host_reruns"] == 0, m)
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

    # --host-min above any efficiency a host can show: each repeat of 2 workers runs --host-tries times, is kept
    # below the bar, and the table says so; one worker is never rerun
    out4 = os.path.join(tmp, "host.csv")
    r = run("bench", "scaling", "bars64", "--threads", "1,2", "--executors", "seq,static", "--steps", "2",
            "--repeat", "2", "--no-bind", "--host-min", "10", "--host-tries", "3", "--csv", out4)
    check("--host-min: exit 0", r.returncode == 0, r.stderr)
    check("--host-min: the note counts the runs", "static at 2 workers: 4 repeats run again for --host-min, 2 kept "
          "below it" in r.stdout, r.stdout)
    if os.path.isfile(out4):
        _, _, t4 = read_csv(out4)
        check("--host-min: 2 workers reran 2 x (3 - 1) times, 1 worker never",
              t4.get(("static", 2), {}).get("host_reruns") == 4 and t4.get(("static", 1), {}).get("host_reruns") == 0
              and t4.get(("seq", 1), {}).get("host_reruns") == 0, t4)
    # --ceiling: 2 independent seq copies at once; their speedup is their throughput, 2 x T1 / their ms per step
    out5 = os.path.join(tmp, "ceiling.csv")
    r = run("bench", "scaling", "bars64", "--threads", "1,2", "--executors", "seq,static", "--steps", "2",
            "--no-bind", "--ceiling", "--csv", out5)
    check("--ceiling: exit 0", r.returncode == 0, r.stderr)
    check("--ceiling: the share of the ceiling is printed",
          "ceiling at 2 workers (2 independent seq copies at once)" in r.stdout and
          any(l.split()[:1] == ["static"] and len(l.split()) == 4 for l in r.stdout.splitlines()), r.stdout)
    if os.path.isfile(out5):
        _, _, t5 = read_csv(out5)
        check("--ceiling: one ceiling row, at 2 workers", sorted(t5) == [("ceiling", 2), ("seq", 1), ("static", 1),
                                                                        ("static", 2)], sorted(t5))
        c, base = t5.get(("ceiling", 2), {}), t5.get(("seq", 1), {}).get("ms_per_step", 0)
        if check("--ceiling: every metric", set(c) == METRICS, sorted(c)):
            check("--ceiling: speedup = 2 x T1 / per-copy ms", close(c["speedup"], 2 * base / c["ms_per_step"]), c)
            check("--ceiling: efficiency = speedup / 2", close(c["efficiency"], c["speedup"] / 2), c)
    r = run("bench", "scaling", "bars64", "--threads", "1", "--executors", "seq", "--steps", "1", "--ceiling")
    check("--ceiling at 1 worker only: no ceiling row", r.returncode == 0 and "ceiling at" not in r.stdout and
          not any(l.split()[:1] == ["ceiling"] for l in r.stdout.splitlines()), r.stdout)

    for bad in (["--threads", "1", "--host-min", "-0.5"], ["--threads", "1", "--host-tries", "0"],
                ["--threads", "1", "--host-min", "x"]):
        r = run("bench", "scaling", "bars64", *bad)
        check(f"bench scaling {' '.join(bad)} exits 2", r.returncode == 2 and "--host-" in r.stderr, r.stderr)

    for bad in (["--threads", "0"], ["--threads", "1", "--partitioners", "scotch"], ["--threads", "1", "--repeat", "0"],
                ["--threads", "1", "--plot"], []):
        r = run("bench", "scaling", "bars64", *bad)
        check(f"bench scaling {' '.join(bad)} exits 2", r.returncode == 2, f"rc {r.returncode}")
        check(f"bench scaling {' '.join(bad)} explains", len(r.stderr.strip()) > 0)
    r = run("bench", "scaling", "nosuchscene", "--threads", "1")
    check("unknown scene exits 2", r.returncode == 2 and "nosuchscene" in r.stderr, r.stderr)

    # ---- a scene file, warm-up steps, repartitioning policies, runtime counters
    scene = os.path.join(tmp, "tiny.xml")
    with open(scene, "w") as f:
        f.write(TINY_SCENE)
    out3 = os.path.join(tmp, "tiny.csv")
    r = run("bench", "scaling", scene, "--threads", "1,2", "--executors", "seq,static", "--repartition",
            "auto,never", "--warmup", "30", "--steps", "3", "--no-bind", "--csv", out3)
    check("scene file: exit 0", r.returncode == 0, r.stderr)
    check("scene file: the table says how many steps were untimed", "after 30 untimed" in r.stdout, r.stdout)
    check("scene file: the counters table", "imbalance" in r.stdout and "repart." in r.stdout, r.stdout)
    if os.path.isfile(out3):
        comments, _, t3 = read_csv(out3, scene="tiny")
        check("scene file: the command records --warmup", any("--warmup 30" in c for c in comments), comments)
        check("scene file: methods name the policy when several are given",
              set(t3) == {("seq", 1), ("static/auto", 1), ("static/auto", 2), ("static/never", 1),
                          ("static/never", 2)}, sorted(t3))
        for (method, workers), m in t3.items():
            key = f"tiny {method}@{workers}"
            if not check(f"{key} has every metric", set(m) == METRICS, sorted(m)):
                continue
            check(f"{key} a collision stage", m["ms_collision"] > 0, m)
            check(f"{key} integration within the step", 0 < m["ms_integration"] <= m["ms_per_step"], m)
            check(f"{key} integration range ordered", 0 < m["ms_integration_lo"] <= m["ms_integration_hi"], m)
            check(f"{key} integration speedup = T1 / T of integration",
                  close(m["speedup_integration"], t3[("seq", 1)]["ms_integration"] / m["ms_integration"]), m)
            check(f"{key} never means no repartition", method != "static/never" or m["repartitions"] == 0, m)
        check("scene file: seq integration speedup is 1", t3.get(("seq", 1), {}).get("speedup_integration") == 1.0)

    # a malformed scene file: exit 2, file:line: message, no CSV
    bad = os.path.join(tmp, "bad.xml")
    with open(bad, "w") as f:
        f.write('<Node dt="0.01">\n  <Node name="o">\n    <MechanicalObject position="0 0 0"/>\n'
                '    <UniformMass vertexMass="1" totalMass="3"/>\n  </Node>\n</Node>\n')
    out4 = os.path.join(tmp, "bad.csv")
    r = run("bench", "scaling", bad, "--threads", "1", "--csv", out4)
    check("bad scene file exits 2", r.returncode == 2, f"rc {r.returncode}")
    check("bad scene file: file:line: message", re.search(re.escape(bad) + r":4: ", r.stderr) is not None, r.stderr)
    check("bad scene file: no CSV", not os.path.exists(out4), os.listdir(tmp))
    r = run("bench", "scaling", os.path.join(tmp, "missing.xml"), "--threads", "1")
    check("missing scene file exits 2", r.returncode == 2 and "missing.xml" in r.stderr, r.stderr)
    for bad_opt in (["--warmup", "-1"], ["--warmup", "x"], ["--repartition", "sometimes"], ["--repartition", ""]):
        r = run("bench", "scaling", "bars64", "--threads", "1", *bad_opt)
        check(f"bench scaling {' '.join(bad_opt)} exits 2", r.returncode == 2 and r.stderr.strip(), r.stderr)
    for spin in ("-5", "2e9", "fast"):
        r = run("bench", "scaling", "bars64", "--threads", "1", "--spin-ns", spin)
        check(f"bench scaling --spin-ns {spin} names the range", r.returncode == 2 and
              f"--spin-ns: expected an integer in [0, 1000000000], got '{spin}'" in r.stderr, r.stderr)
    r = run("bench", "scaling", "bars64", "--threads", "2", "--executors", "static", "--steps", "2",
            "--spin-ns", "0", "--no-bind")
    check("bench scaling --spin-ns 0 (waits sleep at once) runs", r.returncode == 0 and "static" in r.stdout,
          r.stderr)

    # ---- tools/scaling-campaign --quick: every experiment's CSV, a README naming the machine, one folder
    camp = os.path.join(tmp, "campaign")
    r = subprocess.run([CAMPAIGN, camp, "--quick", "--no-bind", "--physflow", PHYSFLOW], capture_output=True,
                       text=True, timeout=300)
    check("campaign --quick exits 0", r.returncode == 0, r.stderr)
    names = ["fig5-bars64", "fig6-heterogeneous", "fig7-springgrid128", "fig7-springgrid256", "fig7-springgrid512",
             "torso"]
    files = set(os.listdir(camp)) if os.path.isdir(camp) else set()
    check("campaign: a CSV and a table per experiment",
          all(f"{n}.csv" in files and f"{n}.txt" in files for n in names), sorted(files))
    if shutil.which("gnuplot"):
        check("campaign: a plot per experiment", all(f"{n}.svg" in files for n in names), sorted(files))
    for n in names:
        path = os.path.join(camp, f"{n}.csv")
        if not os.path.isfile(path):
            continue
        case = n.split("-", 1)[1] if n.startswith("fig") else n
        _, _, t = read_csv(path, scene=case)
        check(f"campaign {n}: seq, the ceiling at 2, static/owner and static/metis at 1 and 2 workers",
              set(t) == {("seq", 1), ("ceiling", 2), ("static/owner", 1), ("static/owner", 2), ("static/metis", 1),
                         ("static/metis", 2)}, sorted(t))
        check(f"campaign {n}: integration speedups", all("speedup_integration" in m for m in t.values()), n)
    readme = os.path.join(camp, "README.txt")
    text = open(readme).read() if os.path.isfile(readme) else ""
    check("campaign README names the machine and the date",
          f"nproc {os.cpu_count()}" in text and "machine:" in text and "started: 20" in text, text)
    check("campaign README summarises the speedups", "fig5-bars64 (seq" in text and "static/metis" in text, text)
    check("campaign README shows the pile warm-up", "--warmup 10" in text, text)

    r = subprocess.run([CAMPAIGN, camp, "--quick", "--physflow", PHYSFLOW], capture_output=True, text=True,
                       timeout=60)
    check("campaign refuses a non-empty folder in physflow's words", r.returncode == 2 and
          f"the folder '{camp}' is not empty: not overwritten (give --force to write into it)" in r.stderr, r.stderr)
    check("campaign left the folder as it was", set(os.listdir(camp)) == files, sorted(os.listdir(camp)))
    blocker = os.path.join(tmp, "a-file")
    with open(blocker, "w") as f:
        f.write("mine\n")
    t0 = time.monotonic()
    r = subprocess.run([CAMPAIGN, os.path.join(blocker, "camp"), "--quick", "--physflow", PHYSFLOW],
                       capture_output=True, text=True, timeout=60)
    check("campaign into a folder it cannot create exits 2 at once, naming it", r.returncode == 2 and
          os.path.join(blocker, "camp") in r.stderr and time.monotonic() - t0 < 10, r.stderr)
    check("campaign left the file as it was", open(blocker).read() == "mine\n")

    # bench scaling's outputs: checked before the scene loads or anything is timed
    for opt, path in (("--csv", os.path.join(tmp, "none", "s.csv")), ("--plot", os.path.join(blocker, "p.svg"))):
        t0 = time.monotonic()
        r = run("bench", "scaling", "heterogeneous", "--threads", "1", "--steps", "100000", "--warmup", "1000000",
                opt, path)
        check(f"bench scaling {opt} unwritable: exit 2 at once, the path named", r.returncode == 2 and path in r.stderr
              and f"{opt}: cannot write" in r.stderr and time.monotonic() - t0 < 10, r.stderr)
    mine = os.path.join(tmp, "mine.svg")
    for opt, path in (("--csv", blocker), ("--plot", mine)):
        with open(path, "w") as f:
            f.write("mine\n")
        t0 = time.monotonic()
        r = run("bench", "scaling", "heterogeneous", "--threads", "1", "--steps", "100000", "--warmup", "1000000",
                opt, path)
        check(f"bench scaling {opt} refuses an existing file at once", r.returncode == 2 and
              f"{opt}: '{path}' exists: not overwritten (give --force to replace it)" in r.stderr and
              time.monotonic() - t0 < 10, r.stderr)
        check(f"bench scaling {opt} leaves the file byte for byte", open(path, "rb").read() == b"mine\n")
    r = run("bench", "scaling", "bars64", "--threads", "1", "--executors", "seq", "--steps", "1", "--no-bind",
            "--csv", blocker, "--force")
    check("bench scaling --csv replaces the file with --force", r.returncode == 0 and
          open(blocker).read().startswith("# machine:"), r.stderr)
    for args, needle in ((["--steps", "10x"], "--steps: expected an integer in [1, 100000], got '10x'"),
                         (["--repeat", "0"], "--repeat: expected an integer in [1, 1000], got '0'"),
                         (["--bogus"], "unknown option '--bogus'"), (["--csv"], "option '--csv' needs a value")):
        r = run("bench", "scaling", "bars64", "--threads", "1", *args)
        check(f"bench scaling {' '.join(args)}: {needle}", r.returncode == 2 and needle in r.stderr, r.stderr)

r = run("info")
check("info exits 0", r.returncode == 0, r.stderr)
for needle in ("topology (hwloc", "cores", "hardware threads", "L1d caches", "NUMA node", "buildtype", "OpenMP",
               "idx_t", "executors: seq static barrier omptasks", "partitioners: owner metis", "broad phases:",
               "peers:", "built-in scenes: bars64"):
    check(f"info mentions '{needle}'", needle in r.stdout, r.stdout)
r = run("info", "--bogus")
check("info with a stray argument exits 2", r.returncode == 2, f"rc {r.returncode}")

finish()
