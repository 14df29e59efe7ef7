#!/usr/bin/env python3
"""Command-line checks of the physflow tool: the trace is valid Chrome trace JSON with one track per worker,
bad input exits 2 with a message naming file and line, pairs agrees with a brute-force count, every scene file
runs and equals its built-in copy, and every malformed scene of tests/scenes_bad exits 2 naming file, line and
problem (first line of each: <!-- expect: LINE: TEXT -->, or "expect (strict):" for an error only under --strict), with
nothing simulated."""
import glob
import json
import os
import re
import random
import subprocess
import sys
import tempfile
import time

from checks import check, finish

PHYSFLOW = sys.argv[1]


def run(*args, stdin=None, env=None):
    return subprocess.run([PHYSFLOW, *args], capture_output=True, text=True, input=stdin, timeout=300, env=env)


with tempfile.TemporaryDirectory() as tmp:
    trace = os.path.join(tmp, "t.json")
    r = run("run", "--demo", "--steps", "5", "--threads", "2", "--executor", "static", "--trace", trace)
    check("run with trace exits 0", r.returncode == 0, r.stderr)
    with open(trace) as f:
        doc = json.load(f)
    events = doc.get("traceEvents")
    check("trace has a traceEvents array", isinstance(events, list) and len(events) > 0)
    tids = {e["tid"] for e in events if e.get("ph") == "X"}
    check("one tid per worker", tids == {0, 1}, f"tids {sorted(tids)}")
    spans = [e for e in events if e.get("ph") == "X"]
    check("spans have name, ts and dur", all("name" in e and "ts" in e and "dur" in e for e in spans))

    r = run("run", "--demo", "--hash", "--steps", "3", "--threads", "2")
    hashes = {line.split()[1] for line in r.stdout.splitlines() if line.startswith("state-hash:")}
    check("every executor gives one hash", r.returncode == 0 and len(hashes) == 1, r.stdout)
    check("the demo runs every executor", len(r.stdout.splitlines()) == 4, r.stdout)

    for bad in (["run", "--steps", "x"], ["run", "--executor", "cilk"], ["bench", "nope"], ["nope"],
                ["bench", "tasks", "--threads", "0"]):
        r = run(*bad)
        check(f"{' '.join(bad)} exits 2", r.returncode == 2, f"rc {r.returncode}")
        check(f"{' '.join(bad)} explains", len(r.stderr.strip()) > 0)

    boxes = os.path.join(tmp, "boxes.txt")
    with open(boxes, "w") as f:
        f.write("0 0 0 1 1 1\n# a comment\n\n0.5 0.5 0.5 2 2 2\n5 5 5 nan 6 6\n")
    r = run("pairs", "--method", "kd", boxes)
    check("malformed box file exits 2", r.returncode == 2, f"rc {r.returncode}")
    check("message names file and line", f"{boxes}:5:" in r.stderr, r.stderr)
    with open(boxes, "w") as f:  # finite, but beyond the largest coordinate a broad phase takes
        f.write("0 0 0 1 1 1\n-1e300 0 0 1 1 1\n")
    r = run("pairs", "--method", "grid", boxes)
    check("a coordinate beyond PF_AABB_COORD_MAX exits 2 naming file and line",
          r.returncode == 2 and f"{boxes}:2:" in r.stderr and "beyond" in r.stderr, r.stderr)

    rnd = random.Random(7)
    lines, bxs = [], []
    for _ in range(300):
        x, y, z = (rnd.uniform(0, 10) for _ in range(3))
        s = rnd.uniform(0.1, 1.5)
        bxs.append((x, y, z, x + s, y + s, z + s))
        lines.append(" ".join(repr(v) for v in bxs[-1]))
    with open(boxes, "w") as f:
        f.write("\n".join(lines) + "\n")
    expect = sum(1 for i in range(len(bxs)) for j in range(i + 1, len(bxs))
                 if all(bxs[i][k] <= bxs[j][k + 3] and bxs[j][k] <= bxs[i][k + 3] for k in range(3)))
    for method in ("brute", "kd", "grid", "sap", "hhash", "mlhash"):
        r = run("pairs", "--method", method, "--count", boxes)
        check(f"pairs --method {method} counts like brute force", r.returncode == 0 and r.stdout.strip() == str(expect),
              f"{r.stdout.strip()} vs {expect}")

# ---- scenes: files in scenes/ run and equal the built-in (embedded) copies; malformed ones exit 2
HERE = os.path.dirname(os.path.abspath(__file__))
SCENES = sorted(glob.glob(os.path.join(HERE, "..", "scenes", "*.xml")))
check("scene files exist", len(SCENES) >= 4, f"{SCENES}")
for path in SCENES:
    name = os.path.splitext(os.path.basename(path))[0]
    r = run("check", path)
    check(f"check {name} exits 0 with a summary line then its components' table", r.returncode == 0
          and " objects, " in r.stdout.splitlines()[0] and "component" in r.stdout, r.stdout + r.stderr)
    if name in ("springgrid512", "springmesh512"):
        continue  # 262144 points: the Check suite runs them (test_every_builtin_runs)
    hashes = []
    for arg in (path, name):
        r = run("run", arg, "--steps", "5", "--threads", "1", "--executor", "seq", "--hash", "--no-bind")
        m = re.fullmatch(r"state-hash: ([0-9a-f]{16})\n", r.stdout)
        check(f"run {arg} --hash exits 0", r.returncode == 0 and m is not None, r.stdout + r.stderr)
        hashes.append(m.group(1) if m else None)
    check(f"{name}: file and built-in give one hash", hashes[0] == hashes[1], f"{hashes}")
with tempfile.TemporaryDirectory() as tmp:
    # runs from any directory; --dt changes the result, and a bad --dt is refused
    r1 = subprocess.run([os.path.abspath(PHYSFLOW), "run", "bars64", "--steps", "2", "--threads", "1", "--hash",
                         "--no-bind"], capture_output=True, text=True, cwd=tmp, timeout=300)
    r2 = run("run", "bars64", "--steps", "2", "--threads", "1", "--hash", "--no-bind", "--dt", "0.005")
    check("built-in scene runs from another directory", r1.returncode == 0 and r1.stdout.startswith("state-hash:"),
          r1.stderr)
    check("--dt changes the state", r2.returncode == 0 and r2.stdout != r1.stdout, r2.stdout + r2.stderr)
    r = run("run", "bars64", "--dt", "-1")
    check("--dt -1 exits 2", r.returncode == 2 and "--dt" in r.stderr, r.stderr)
    r = run("run", "no_such_scene")
    check("unknown scene exits 2", r.returncode == 2 and "neither a built-in scene" in r.stderr, r.stderr)
    r = run("check")
    check("check without a scene exits 2", r.returncode == 2)
    # a scene with a warning and a visual-only note still loads; both are on stderr in file:line form
    ok = os.path.join(tmp, "warn.xml")
    with open(ok, "w") as f:
        f.write('<Node dt="0.01">\n<EulerImplicitSolver printLog="true"/>\n<VisualStyle/>\n'
                '<Node name="p"><MechanicalObject position="0 0 0"/></Node>\n</Node>\n')
    r = run("check", ok)
    check("warning scene exits 0", r.returncode == 0, r.stderr)
    check("warning names file:line", f"{ok}:2: warning:" in r.stderr and "printLog" in r.stderr, r.stderr)
    check("visual component noted", f"{ok}:3: note: VisualStyle" in r.stderr, r.stderr)
    # the report: one row per kind (count, mapped to, warnings, skipped), then the warnings with file:line
    rows = {}
    for line in r.stdout.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) == 5 and cells[0] != "component":
            rows[cells[0]] = (int(cells[1]), cells[2], int(cells[3]), int(cells[4]))
    check("check's table: each kind with its count, mapping, warnings and skips",
          rows == {"Node": (2, "node", 0, 0), "EulerImplicitSolver": (1, "solver", 1, 0),
                   "VisualStyle": (1, "-", 0, 1), "MechanicalObject": (1, "object", 0, 0)}, r.stdout)
    check("check lists the warnings with file:line",
          "warnings (1):" in r.stdout and f"{ok}:2: warning: EulerImplicitSolver: attribute 'printLog'" in r.stdout,
          r.stdout)

# ---- SOFA's rules: an unknown attribute warns (an error under --strict); files found through the data path
with tempfile.TemporaryDirectory() as tmp:
    os.makedirs(os.path.join(tmp, "share", "mesh"))
    os.makedirs(os.path.join(tmp, "scenes"))
    with open(os.path.join(tmp, "share", "mesh", "tri.obj"), "w") as f:
        f.write("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    scene = os.path.join(tmp, "scenes", "s.xml")
    with open(scene, "w") as f:
        f.write('<Node dt="0.01" showAxis="1">\n<DefaultAnimationLoop computeBoundingBox="0"/>\n'
                '<EulerImplicitSolver/>\n<Node name="m"><MeshObjLoader filename="mesh/tri.obj"/>\n'
                '<MechanicalObject/><UniformMass vertexMass="1"/></Node>\n</Node>\n')
    env = {k: v for k, v in os.environ.items() if k != "PHYSFLOW_DATA_PATH"}
    share = os.path.join(tmp, "share")
    r = run("check", scene, env=env)
    check("mesh not found: exit 2 listing where it looked",
          r.returncode == 2 and f"{scene}:4:" in r.stderr and "not found (looked in" in r.stderr, r.stderr)
    r = run("check", scene, "--data-path", f"{tmp}/nowhere:{share}", env=env)
    check("check --data-path finds the mesh", r.returncode == 0 and "3 points" in r.stdout, r.stdout + r.stderr)
    check("unknown attributes warn with file:line",
          f"{scene}:1: warning: Node: unknown attribute 'showAxis'" in r.stderr and
          f"{scene}:2: warning: DefaultAnimationLoop: unknown attribute 'computeBoundingBox'" in r.stderr, r.stderr)
    r = run("check", scene, "--data-path", share, "--strict", env=env)
    check("check --strict: an unknown attribute is an error",
          r.returncode == 2 and f"{scene}:1: Node: unknown attribute 'showAxis'" in r.stderr and r.stdout == "",
          r.stdout + r.stderr)
    r = run("check", scene, env=dict(env, PHYSFLOW_DATA_PATH=share))
    check("PHYSFLOW_DATA_PATH finds the mesh", r.returncode == 0, r.stderr)
    r = run("run", scene, "--steps", "2", "--threads", "1", "--no-bind", "--data-path", share, env=env)
    check("run --data-path finds the mesh", r.returncode == 0, r.stderr)
    for cmd in ("check", "run"):
        r = run(cmd, "--help")
        check(f"{cmd} --help names --data-path, PHYSFLOW_DATA_PATH and --strict",
              all(w in r.stdout for w in ("--data-path", "PHYSFLOW_DATA_PATH", "--strict")), r.stdout)

# ---- the project's SOFA-style scenes: what check reports per kind, and they run
def kinds(out):
    rows = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) == 5 and cells[0] != "component":
            rows[cells[0]] = (int(cells[1]), cells[2], int(cells[3]), int(cells[4]))
    return rows


for name, want in (("topo_mapping_drop", {"Hexa2TetraTopologicalMapping": (1, "topology", 0, 0),
                                          "Tetra2TriangleTopologicalMapping": (1, "topology", 0, 0),
                                          "TetrahedronSetTopologyContainer": (1, "topology", 0, 0),
                                          "TriangleCollisionModel": (2, "collision model", 0, 0)}),
                   ("cloth_pinned_corners", {"GridMeshCreator": (1, "topology", 0, 0),
                                             "SphereROI": (2, "index selection", 0, 0),
                                             "PointProjectiveConstraint": (2, "constraint", 0, 0)})):
    path = os.path.join(HERE, "scenes", name + ".xml")
    r = run("check", path)
    rows = kinds(r.stdout)
    check(f"check {name}: the table's rows", r.returncode == 0 and all(rows.get(k) == v for k, v in want.items()),
          r.stdout + r.stderr)
    r = run("run", path, "--steps", "50", "--threads", "1", "--no-bind")
    check(f"run {name} exits 0", r.returncode == 0, r.stderr)

# ---- a malformed sphere file (SphereLoader): exit 2 naming the scene's line and the file's
with tempfile.TemporaryDirectory() as tmp:
    with open(os.path.join(tmp, "bad.sph"), "w") as f:
        f.write("sph 1.0\nsphe 1 0 0 0 0.5\nsphe 2 0 0 0 -1\n")
    scene = os.path.join(tmp, "s.xml")
    with open(scene, "w") as f:
        f.write('<Node>\n<Node name="s">\n<SphereLoader filename="bad.sph"/>\n<MechanicalObject/></Node></Node>\n')
    r = run("check", scene)
    check("bad sphere file: exit 2 with the scene's line and the file's",
          r.returncode == 2 and f"{scene}:3: SphereLoader:" in r.stderr and "bad.sph:3: sphere radius must be > 0"
          in r.stderr and r.stdout == "", r.stdout + r.stderr)

BAD = sorted(glob.glob(os.path.join(HERE, "scenes_bad", "*.xml")))
check("at least 30 malformed scenes", len(BAD) >= 30, f"{len(BAD)}")
for path in BAD:
    base = os.path.basename(path)
    with open(path) as f:
        first = f.readline()
    # "expect (strict):": an error only under --strict (an unknown attribute is otherwise a warning, as in SOFA)
    m = re.match(r"<!-- expect( \(strict\))?: (\d+): (.*) -->", first)
    line, text = (int(m.group(2)), m.group(3)) if m else (1, "malformed XML")  # empty_file.xml holds nothing
    strict = ["--strict"] if m and m.group(1) else []
    for cmd in (["check", path] + strict, ["run", path, "--steps", "1", "--threads", "1", "--no-bind"] + strict):
        r = run(*cmd)
        where = f"{path}:{line}:"
        check(f"{cmd[0]} {base} exits 2", r.returncode == 2, f"rc {r.returncode}: {r.stderr}")
        check(f"{cmd[0]} {base} says {where} ... {text}", where in r.stderr and text in r.stderr, r.stderr)
        check(f"{cmd[0]} {base} simulates nothing", r.stdout == "", r.stdout)

# ---- physflow run --repartition: every policy gives the same hash; a bad policy is bad input
hashes = set()
for policy in ("auto", "never", "always"):
    r = run("run", "heterogeneous", "--steps", "40", "--threads", "2", "--repartition", policy, "--hash", "--no-bind")
    check(f"--repartition {policy} runs", r.returncode == 0, r.stderr)
    hashes.add(r.stdout.strip())
check("--repartition: one hash for every policy", len(hashes) == 1, hashes)
r = run("run", "bars64", "--steps", "1", "--repartition", "sometimes")
check("--repartition sometimes: exit 2 naming the policies", r.returncode == 2 and "auto, never, always" in r.stderr,
      r.stderr)
r = run("run", "heterogeneous", "--steps", "1", "--threads", "2", "--partitioner", "metis", "--no-bind")
check("METIS on 20 objects at 2 workers: no fallback note", "too small" not in r.stderr + r.stdout, r.stderr)
r = run("run", "bars64", "--steps", "1", "--threads", "40", "--partitioner", "metis", "--no-bind")
check("METIS on 64 objects at 40 workers: said once on stderr and in the summary",
      r.returncode == 0 and r.stderr.count("too small") == 1 and "note: METIS" in r.stdout, r.stderr + r.stdout)

# ---- physflow run: the default scene, per-step CSV, VTK frames, no overwriting, one hash for every executor
with tempfile.TemporaryDirectory() as tmp:
    csv = os.path.join(tmp, "steps.csv")
    vtk = os.path.join(tmp, "vtk")
    r = run("run", "--steps", "20", "--threads", "2", "--csv", csv, "--vtk", vtk, "--vtk-every", "10", "--no-bind")
    check("run with no scene runs heterogeneous", r.returncode == 0 and r.stdout.startswith("physflow run: heterogeneous"),
          r.stdout + r.stderr)
    for key in ("median ms per step", "collision", "graph update", "integration", "graph updates:", "tasks moved",
                "final:", "contacts", "solver groups", "repartitioning: auto", "imbalance", "waits", "repartitions:",
                "CG: median", "stalled", "unconverged"):
        check(f"summary mentions '{key}'", key in r.stdout, r.stdout)
    with open(csv) as f:
        lines = [l for l in f.read().splitlines() if not l.startswith("#")]
    head = lines[0].split(",")
    rows = [dict(zip(head, map(float, l.split(",")))) for l in lines[1:]]
    check("one CSV row per step", len(rows) == 20 and [int(x["step"]) for x in rows] == list(range(1, 21)), lines[:3])
    check("CSV stages add up to the step", all(abs(x["ms_collision"] + x["ms_update"] + x["ms_repartition"]
                                                   + x["ms_integration"] - x["ms_step"]) < 1e-3
                                               or x["ms_integration"] == 0 for x in rows))
    check("CSV: runtime counters", all(x["waits"] >= x["waits_blocked"] >= 0 and x["busy_ms"] > 0
                                       and (x["imbalance"] >= 1 or x["busy_ms"] == 0) for x in rows))
    check("CSV: the first step records", rows[0]["updated"] == 1 and rows[0]["tasks_added"] == rows[0]["tasks"])
    check("CSV: later updates exactly when contact pairs start or stop",
          all((x["updated"] == 1) == (x["pairs_started"] + x["pairs_stopped"] > 0) for x in rows[1:]),
          [(x["step"], x["updated"], x["pairs_started"], x["pairs_stopped"]) for x in rows])
    check("CSV: no task ever moves", all(x["tasks_moved"] == 0 for x in rows))
    check("CSV: CG counters per step", all(x["cg_iterations"] >= x["cg_iterations_max"] >= 1 and x["cg_stalled"] == 0
                                           and 0 <= x["cg_unconverged"] <= x["groups"] for x in rows),
          [(x["step"], x["cg_iterations"], x["cg_iterations_max"], x["cg_stalled"], x["cg_unconverged"]) for x in rows])
    frames = sorted(os.listdir(vtk))
    check("VTK frames 0, 10, 20 and the collection", frames == ["frame_000000.vtp", "frame_000001.vtp",
                                                                "frame_000002.vtp", "scene.pvd"], frames)
    with open(os.path.join(vtk, "frame_000002.vtp")) as f:
        text = f.read()
    check("a VTK frame holds a piece per surface and per object", text.count("<Piece ") == 40, text.count("<Piece "))
    with open(os.path.join(vtk, "scene.pvd")) as f:
        check("the collection lists the frames", f.read().count("<DataSet ") == 3)
    for args, what in ((["--csv", csv], "existing CSV"), (["--vtk", vtk], "non-empty VTK folder")):
        r = run("run", "bars64", "--steps", "1", "--threads", "1", "--no-bind", *args)
        check(f"{what} is not overwritten", r.returncode == 2 and "--force" in r.stderr, r.stderr)
        r = run("run", "bars64", "--steps", "1", "--threads", "1", "--no-bind", "--force", *args)
        check(f"{what} is overwritten with --force", r.returncode == 0, r.stderr)
    r = run("run", "bars64", "--steps", "1", "--broadphase", "octree")
    check("unknown --broadphase exits 2", r.returncode == 2 and "--broadphase" in r.stderr, r.stderr)
    # bench broadphase on a runtime's team: the same pairs for 1 and 2 workers as on OpenMP threads
    pairs = {}
    for runner in ("omp", "team"):
        r = run("bench", "broadphase", "--methods", "grid", "--n", "20000", "--threads", "1,2", "--steps", "2",
                "--warmup", "1", "--runner", runner)
        rows = [l.split() for l in r.stdout.splitlines() if l.startswith("grid ")]
        pairs[runner] = [row[6] for row in rows]
        check(f"bench broadphase --runner {runner} runs", r.returncode == 0 and len(rows) == 2, r.stdout + r.stderr)
    check("bench broadphase: the same pairs on the team as on OpenMP threads",
          len(set(pairs["omp"] + pairs["team"])) == 1, pairs)
    r = run("bench", "broadphase", "--runner", "tbb")
    check("bench broadphase --runner tbb exits 2", r.returncode == 2 and "--runner" in r.stderr, r.stderr)
    r = run("run", "--demo", "--csv", csv)
    check("--demo refuses --csv", r.returncode == 2, r.stderr)
    # CG's outcomes in the summary: a 1 g point falls with clean solves; a threshold above p·Ap / p·M'p (1 in free
    # fall) stalls every solve, and the summary says so
    light = os.path.join(HERE, "scenes", "free_fall_1g.xml")
    r = run("run", light, "--steps", "100", "--threads", "1", "--no-bind")
    check("a 1 g point in free fall: no solve stalls or ends unconverged",
          r.returncode == 0 and "100 solves: 0 stalled, 0 unconverged" in r.stdout and "note: a stalled" not in r.stdout,
          r.stdout + r.stderr)
    stalled = os.path.join(tmp, "stalled.xml")
    with open(light) as f:
        text = f.read()
    with open(stalled, "w") as f:
        f.write(text.replace('threshold="1e-9"', 'threshold="2"'))
    r = run("run", stalled, "--steps", "100", "--threads", "1", "--no-bind")
    check("threshold 2 stalls every solve, and the summary notes it",
          r.returncode == 0 and "100 solves: 100 stalled, 0 unconverged" in r.stdout and "note: a stalled" in r.stdout,
          r.stdout + r.stderr)
    # the contact rule: the soft box (alarm 2 cm, contact 1 cm) lands at 2.3 cm per step, more than alarm - contact:
    # counted per step in the CSV and noted in the summary; the gap column is the signed smallest gap, inf before
    # any contact; with a 5 cm alarm (the API's default) the same drop keeps the rule
    soft = os.path.join(HERE, "scenes", "box_drop_soft.xml")
    soft_csv = os.path.join(tmp, "soft.csv")
    r = run("run", soft, "--steps", "120", "--threads", "1", "--no-bind", "--csv", soft_csv)
    check("a drop that breaks the contact rule is noted", r.returncode == 0 and "fast approach" in r.stdout
          and "note: " in r.stdout and "alarm - contact distance" in r.stdout, r.stdout + r.stderr)
    with open(soft_csv) as f:
        lines = [l for l in f.read().splitlines() if not l.startswith("#")]
    head = lines[0].split(",")
    srows = [dict(zip(head, map(float, l.split(",")))) for l in lines[1:]]
    check("CSV: fast pairs counted on impact, the gap signed and inf before contact",
          sum(x["fast_pairs"] for x in srows) > 0 and srows[0]["min_distance"] == float("inf")
          and min(x["min_distance"] for x in srows) < 0, [(x["step"], x["min_distance"], x["fast_pairs"]) for x in srows[:12]])
    kept = os.path.join(tmp, "kept.xml")
    with open(soft) as f:
        text = f.read()
    with open(kept, "w") as f:
        f.write(text.replace('alarmDistance="0.02"', 'alarmDistance="0.05"'))
    r = run("run", kept, "--steps", "120", "--threads", "1", "--no-bind")
    check("the same drop with a 5 cm alarm keeps the rule", r.returncode == 0 and "; 0 fast approaches" in r.stdout
          and "note: " not in r.stdout, r.stdout + r.stderr)
    # a numerical fault (an explicit spring far past its stability limit) stops the run: exit 1, the step named
    bad = os.path.join(tmp, "fault.xml")
    with open(bad, "w") as f:
        f.write('<Node dt="0.01"><EulerExplicitSolver/>\n<Node name="p"><MechanicalObject position="0 0 0 1 0 0"/>'
                '<UniformMass vertexMass="1"/><StiffSpringForceField spring="0 1 1e9 0 0.5"/></Node></Node>\n')
    r = run("run", bad, "--steps", "50", "--threads", "1", "--no-bind")
    check("a numerical fault exits 1", r.returncode == 1 and "step" in r.stderr and r.stdout == "",
          f"rc {r.returncode}: {r.stdout} {r.stderr}")
    hashes = {}
    for executor in ("seq", "static", "barrier", "omptasks"):
        for threads in ("1", "2"):
            for part in ("owner", "metis"):
                if executor == "seq" and (threads == "2" or part == "metis"):
                    continue
                r = run("run", "bars64", "--steps", "3", "--hash", "--no-bind", "--executor", executor, "--threads",
                        threads, "--partitioner", part)
                check(f"bars64 --hash {executor} {threads} {part} exits 0", r.returncode == 0, r.stderr)
                hashes[(executor, threads, part)] = r.stdout
    check("bars64: one hash for every executor, worker count and partitioner", len(set(hashes.values())) == 1,
          hashes)
    # with contacts (they start near step 10): one hash for every executor, partitioner and broad phase
    hashes = {}
    for args in (["--executor", "seq"], ["--executor", "barrier", "--threads", "2"],
                 ["--executor", "omptasks", "--threads", "2", "--broadphase", "sap"],
                 ["--executor", "static", "--threads", "2", "--partitioner", "metis", "--broadphase", "hhash"]):
        r = run("run", "heterogeneous", "--steps", "20", "--hash", "--no-bind", *args)
        hashes[" ".join(args)] = r.stdout if r.returncode == 0 else r.stderr
    check("heterogeneous: one hash for every executor, partitioner and broad phase", len(set(hashes.values())) == 1,
          hashes)

    # checkpoints: N steps equal k steps, a checkpoint, and N - k resumed (another executor and worker count)
    ckpt = os.path.join(tmp, "run.ckpt")
    whole = run("run", "heterogeneous", "--steps", "40", "--hash", "--no-bind")
    first = run("run", "heterogeneous", "--steps", "15", "--checkpoint", ckpt, "--no-bind")
    check("--checkpoint exits 0 and says where", first.returncode == 0 and ckpt in first.stdout, first.stderr)
    rest = run("run", "--resume", ckpt, "--steps", "25", "--hash", "--no-bind", "--executor", "seq")
    check("resumed run equals the uninterrupted one", rest.returncode == 0 and rest.stdout == whole.stdout,
          f"{rest.stdout} {rest.stderr} vs {whole.stdout}")
    before = open(ckpt, "rb").read()
    again = run("run", "--resume", ckpt, "--steps", "5", "--checkpoint", ckpt, "--no-bind")
    check("an older checkpoint is not replaced without --force", again.returncode == 2 and "--force" in again.stderr
          and open(ckpt, "rb").read() == before, again.stderr)
    again = run("run", "--resume", ckpt, "--steps", "5", "--checkpoint", ckpt, "--no-bind", "--force")
    check("a checkpoint replaces an older checkpoint with --force", again.returncode == 0 and
          open(ckpt, "rb").read() != before, again.stderr)
    other = os.path.join(tmp, "notes.txt")
    with open(other, "w") as f:
        f.write("mine\n")
    r = run("run", "bars64", "--steps", "1", "--checkpoint", other, "--no-bind")
    check("--checkpoint never overwrites a file that is not a checkpoint", r.returncode == 2 and
          open(other).read() == "mine\n", r.stderr)
    r = run("run", "--resume", other, "--steps", "1")
    check("--resume of a file that is not a checkpoint exits 2", r.returncode == 2 and "checkpoint" in r.stderr,
          r.stderr)
    r = run("run", "bars64", "--resume", ckpt)
    check("--resume refuses a scene of its own", r.returncode == 2, r.stderr)


def run_fast(*args, limit=20):
    """(result, seconds); result None when the command was still running after `limit` s (then killed)."""
    t0 = time.monotonic()
    try:
        r = subprocess.run([PHYSFLOW, *args], capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        r = None
    return r, time.monotonic() - t0


# The one rule of every output: checked before the first step or timing (exit 2, the path named, nothing left),
# never overwritten without --force (the same message everywhere), written whole or not at all.
LONG_RUN = ["heterogeneous", "--steps", "100000000", "--no-bind"]  # hours: a fast exit proves no step ran
OUTPUTS = [(["run", *LONG_RUN], "--csv"), (["run", *LONG_RUN], "--trace"), (["run", *LONG_RUN], "--checkpoint"),
           (["run", *LONG_RUN], "--vtk"), (["run", "--demo", "--steps", "100000000"], "--trace")]
BENCHES = ["tasks", "loops", "broadphase", "splitting", "hashing", "rangequery"]
OUTPUTS += [(["bench", b], "--csv") for b in BENCHES]
with tempfile.TemporaryDirectory() as tmp:
    blocker = os.path.join(tmp, "a-file")
    with open(blocker, "w") as f:
        f.write("mine\n")
    for cmd, opt in OUTPUTS:
        what = f"{' '.join(cmd[:2])} {opt}"
        for bad in (os.path.join(tmp, "no-such-folder", "out"), os.path.join(blocker, "out")):
            r, secs = run_fast(*cmd, opt, bad)
            check(f"{what} under an unwritable folder exits 2 at once, naming the path",
                  r is not None and r.returncode == 2 and f"{opt}: cannot write" in r.stderr and bad in r.stderr
                  and secs < 10, r.stderr if r else f"still running after {secs:.0f} s")
            check(f"{what} under an unwritable folder leaves nothing", sorted(os.listdir(tmp)) == ["a-file"] and
                  open(blocker).read() == "mine\n", sorted(os.listdir(tmp)))
        if opt == "--vtk":
            continue
        r, secs = run_fast(*cmd, opt, blocker)
        check(f"{what} refuses an existing file at once, in the shared words",
              r is not None and r.returncode == 2 and
              f"{opt}: '{blocker}' exists: not overwritten (give --force to replace it)" in r.stderr and secs < 10,
              r.stderr if r else "still running")
        check(f"{what} leaves the existing file byte for byte", open(blocker, "rb").read() == b"mine\n" and
              sorted(os.listdir(tmp)) == ["a-file"], sorted(os.listdir(tmp)))
    vtk = os.path.join(tmp, "frames")
    os.mkdir(vtk)
    with open(os.path.join(vtk, "keep.txt"), "w") as f:
        f.write("mine\n")
    r, secs = run_fast("run", *LONG_RUN, "--vtk", vtk)
    check("run --vtk refuses a non-empty folder at once", r is not None and r.returncode == 2 and
          f"--vtk: the folder '{vtk}' is not empty: not overwritten (give --force to write into it)" in r.stderr,
          r.stderr if r else "still running")
    check("run --vtk leaves the folder as it was", os.listdir(vtk) == ["keep.txt"], os.listdir(vtk))
    # with --force each is replaced by a whole new file
    short = ["bars64", "--steps", "2", "--threads", "1", "--no-bind", "--force"]
    for opt in ("--csv", "--trace", "--checkpoint"):
        r = run("run", *short, opt, blocker)
        data = open(blocker, "rb").read()
        check(f"run {opt} replaces the file with --force", r.returncode == 0 and data != b"mine\n" and len(data) > 0,
              r.stderr)
        check(f"run {opt} leaves no temporary file", sorted(os.listdir(tmp)) == ["a-file", "frames"],
              sorted(os.listdir(tmp)))
        with open(blocker, "w") as f:
            f.write("mine\n")
    r = run("bench", "splitting", "--n", "100", "--densities", "0.1", "--csv", blocker, "--force")
    check("bench --csv replaces the file with --force", r.returncode == 0 and
          open(blocker).read().startswith("# machine:"), r.stderr)
    with open(blocker, "w") as f:
        f.write("mine\n")
    # a run that fails (a numerical fault) writes none of its files and keeps the one --force was to replace
    fault = os.path.join(tmp, "fault.xml")
    with open(fault, "w") as f:
        f.write('<Node dt="0.01"><EulerExplicitSolver/>\n<Node name="p"><MechanicalObject position="0 0 0 1 0 0"/>'
                '<UniformMass vertexMass="1"/><StiffSpringForceField spring="0 1 1e9 0 0.5"/></Node></Node>\n')
    csv_new = os.path.join(tmp, "fault.csv")
    r = run("run", fault, "--steps", "50", "--threads", "1", "--no-bind", "--csv", csv_new, "--trace", blocker,
            "--force")
    check("a failed run leaves no half-written CSV and keeps the file it was to replace", r.returncode == 1 and
          not os.path.exists(csv_new) and open(blocker).read() == "mine\n" and
          sorted(os.listdir(tmp)) == ["a-file", "fault.xml", "frames"], f"{r.stderr} {sorted(os.listdir(tmp))}")

# info: the topology, and on a machine of several cores how long a cache line takes from core 0 to core 1 and
# back (two pinned workers passing it 20,000 times): a time a machine can have, from a few ns to tens of us.
r = run("info")
trip = re.search(r"core to core +a cache line from core 0 to core 1 and back in ([0-9]+) ns", r.stdout)
check("info: exit 0, topology printed", r.returncode == 0 and "topology (hwloc" in r.stdout, r.stderr)
if (os.cpu_count() or 1) >= 2:
    check("info: the cores' round trip, 5 ns to 100 us", trip is not None and 5 <= int(trip.group(1)) <= 100000,
          r.stdout)

# Options: unknown ones named as such, a missing value said, a bad number naming the option, value and range.
for cmd in (["run", "bars64"], ["check", "bars64"], ["pairs", "--method", "kd", "x"], ["info"],
            *(["bench", b] for b in BENCHES + ["scaling"])):
    r = run(*cmd, "--bogus")
    check(f"{' '.join(cmd)} --bogus: unknown option", r.returncode == 2 and "unknown option '--bogus'" in r.stderr,
          r.stderr)
for cmd in (["run", "bars64", "--steps"], ["run", "--csv"], ["check", "bars64", "--dt"], ["pairs", "x", "--method"],
            ["bench", "tasks", "--csv"], ["bench", "loops", "--n"], ["bench", "scaling", "bars64", "--threads"]):
    r = run(*cmd)
    check(f"{' '.join(cmd)}: the value is missing", r.returncode == 2 and
          f"option '{cmd[-1]}' needs a value" in r.stderr, r.stderr)
for value in ("1e300", "nan", "inf", "-1", "0", "10x", ""):
    for cmd in (["run", "bars64"], ["check", "bars64"]):
        r = run(*cmd, "--dt", value)
        check(f"{cmd[0]} --dt '{value}' names the range", r.returncode == 2 and
              f"--dt: expected a time step in seconds in (0, 1e+300), got '{value}'" in r.stderr, r.stderr)
for opt, rng in (("--steps", "[1, 100000000]"), ("--threads", "[1, 4096]"), ("--vtk-every", "[1, 100000000]")):
    for value in ("10x", "0", "-5", "1e9", "99999999999999999999", "nan", "2.5"):
        r = run("run", "bars64", opt, value)
        check(f"run {opt} '{value}' names the range", r.returncode == 2 and
              f"{opt}: expected an integer in {rng}, got '{value}'" in r.stderr, r.stderr)

finish()
