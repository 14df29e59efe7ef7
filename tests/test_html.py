#!/usr/bin/env python3
"""physflow run --html, the page's data: the default scene over 300 steps on two workers stays under 20 MB with one
series value per step and frames on a regular stride; the decoded positions agree with the VTK frames of the same
run to the 16-bit quantum of the frame's box (the oracle: VTK's 9 significant digits); every frame's objects sit on
the run's workers and its spans on their rows; the run's state hash is the same with and without the page; an
existing page is never replaced without --force (the first left byte for byte); --html goes with neither --trace nor
--demo."""
import glob
import os
import re
import subprocess
import sys
import tempfile
import time

from checks import check, finish
from viewer_page import decode_frame, page_data

PHYSFLOW = sys.argv[1]


def run(*args):
    return subprocess.run([PHYSFLOW, *args], capture_output=True, text=True, timeout=600)


def vtk_points(path):
    """Each piece's points of a VTK PolyData frame, in file order."""
    with open(path) as f:
        text = f.read()
    out = []
    for m in re.finditer(r'<Points><DataArray[^>]*>\n(.*?)</DataArray></Points>', text, re.S):
        v = [float(x) for x in m.group(1).split()]
        out.append([v[3 * i:3 * i + 3] for i in range(len(v) // 3)])
    return out


with tempfile.TemporaryDirectory() as tmp:
    page = os.path.join(tmp, "h.html")
    t0 = time.time()
    r = run("run", "--threads", "2", "--no-bind", "--html", page)
    wall = time.time() - t0
    check("heterogeneous --html runs", r.returncode == 0, r.stderr)
    size = os.path.getsize(page) if os.path.exists(page) else 0
    check("the page of 300 steps is under 20 MB", 0 < size < 20e6, f"{size} bytes")
    check("the run says where the page is", f"viewer written to {page}" in r.stdout, r.stdout)
    print(f"heterogeneous, 300 steps, 2 workers: page {size / 1e6:.1f} MB, run with page {wall:.1f} s")
    d = page_data(page)
    check("two workers, 300 steps", d["workers"] == 2 and d["steps"] == 300, f"{d['workers']} {d['steps']}")
    for name in ("collision", "update", "integration", "contacts", "groups", "changed"):
        check(f"series {name}: one value per step", len(d["series"][name]) == 300, str(len(d["series"][name])))
    steps = [f["step"] for f in d["frames"]]
    every = d["every"]
    check("frames every `every` steps from 0", steps == list(range(0, 301, every)), f"every {every}: {steps[:6]}")
    check("the integration time is the graph runs': positive", min(d["series"]["integration"]) > 0)
    check("the pile forms: contacts at the end", d["series"]["contacts"][-1] > 0)
    check("solver groups merge as the pile forms", d["series"]["groups"][-1] < d["series"]["groups"][0],
          str(d["series"]["groups"][:3] + d["series"]["groups"][-3:]))
    check("task names and waits in the spans", "integrate" in d["names"] and "wait" in d["names"], str(d["names"]))
    last = decode_frame(d, len(d["frames"]) - 1)
    check("a frame decodes to its end", last["bytes_left"] == 0, str(last["bytes_left"]))
    check("every object of the last frame on worker 0 or 1, both used",
          set(last["worker"]) == {0, 1}, str(last["worker"]))
    check("spans on the workers' rows", {s[3] for s in last["spans"]} <= {0, 1} and len(last["spans"]) > 0)
    check("contacts drawn", len(last["contacts"]) == d["frames"][-1]["contacts"] > 0)
    norms = [sum((last["normals"][3 * i + a] / 127) ** 2 for a in range(3)) for i in range(len(last["contacts"]))]
    check("contact normals are unit", all(abs(n - 1) < 0.03 for n in norms), str(norms[:5]))
    first = decode_frame(d, 0)
    check("the first frame has no spans (before any step)", first["spans"] == [] and first["bytes_left"] == 0)

    # positions against the VTK frames of the same run (every 5 steps)
    page2, vtk = os.path.join(tmp, "q.html"), os.path.join(tmp, "vtk")
    r = run("run", "heterogeneous", "--steps", "10", "--threads", "2", "--no-bind", "--html", page2,
            "--html-every", "5", "--vtk", vtk, "--vtk-every", "5")
    check("--html beside --vtk runs", r.returncode == 0, r.stderr)
    d2 = page_data(page2)
    check("--html-every 5: frames of steps 0, 5, 10", [f["step"] for f in d2["frames"]] == [0, 5, 10])
    surfaces = [p for p in d2["pieces"] if p["surface"] >= 0]
    for k in range(3):
        fr = decode_frame(d2, k)
        box = d2["frames"][k]["box"]
        tol = [(box[3 + a] - box[a]) / 65535 * 0.5 + 1e-9 for a in range(3)]
        ref = vtk_points(os.path.join(vtk, f"frame_{k:06d}.vtp"))
        worst = 0.0
        ok = True
        for i, p in enumerate(surfaces):
            got, want = fr["positions"][i], ref[i]
            ok &= len(got) == len(want)
            for g, w in zip(got, want):
                for a in range(3):
                    worst = max(worst, abs(g[a] - w[a]) / tol[a])
        check(f"frame {k}: every surface vertex within half a quantum of VTK's", ok and worst <= 1.0,
              f"worst {worst:.3f} quanta")

    # the page only looks: the same state hash with and without it
    h1 = run("run", "--steps", "40", "--threads", "2", "--no-bind", "--hash").stdout
    h2 = run("run", "--steps", "40", "--threads", "2", "--no-bind", "--hash", "--html",
             os.path.join(tmp, "hash.html")).stdout
    check("state hash unchanged by --html", h1 == h2 and h1.startswith("state-hash:"), f"{h1!r} {h2!r}")

    # never over an existing file without --force
    with open(page2, "rb") as f:
        before = f.read()
    r = run("run", "heterogeneous", "--steps", "4", "--threads", "2", "--no-bind", "--html", page2)
    check("a second page at the same path: exit 2", r.returncode == 2, r.stderr)
    check("...naming the file and --force", page2 in r.stderr and "--force" in r.stderr, r.stderr)
    with open(page2, "rb") as f:
        check("...the first page unchanged", f.read() == before)
    check("...no temporary file left", glob.glob(page2 + ".tmp*") == [], str(os.listdir(tmp)))
    r = run("run", "heterogeneous", "--steps", "4", "--threads", "2", "--no-bind", "--html", page2, "--force",
            "--html-every", "2")
    check("with --force it is replaced", r.returncode == 0 and [f["step"] for f in page_data(page2)["frames"]] ==
          [0, 2, 4], r.stderr)

    for args, why in ((["--html", page, "--trace", os.path.join(tmp, "t.json")], "--trace"),
                      (["--html-every", "3"], "--html"), (["--html", os.path.join(tmp, "x.html"), "--html-every",
                                                          "0"], "--html-every"),
                      (["--demo", "--html", os.path.join(tmp, "y.html")], "--html")):
        r = run("run", "--steps", "2", *args)
        check(f"run {' '.join(args)}: exit 2 naming {why}", r.returncode == 2 and why in r.stderr, r.stderr)
    check("the refused runs wrote nothing", not os.path.exists(os.path.join(tmp, "x.html")) and
          not os.path.exists(os.path.join(tmp, "y.html")))

finish()
