#!/usr/bin/env python3
"""Command-line checks of the physflow tool: the trace is valid Chrome trace JSON with one track per worker,
bad input exits 2 with a message naming file and line, and pairs agrees with a brute-force count."""
import json
import os
import random
import subprocess
import sys
import tempfile

PHYSFLOW = sys.argv[1]
failures = 0
passed = 0


def check(name, cond, detail=""):
    global failures, passed
    if cond:
        passed += 1
    else:
        failures += 1
        print(f"FAIL {name}: {detail}")


def run(*args, stdin=None):
    return subprocess.run([PHYSFLOW, *args], capture_output=True, text=True, input=stdin, timeout=300)


with tempfile.TemporaryDirectory() as tmp:
    trace = os.path.join(tmp, "t.json")
    r = run("run", "--steps", "5", "--threads", "2", "--executor", "static", "--trace", trace)
    check("run with trace exits 0", r.returncode == 0, r.stderr)
    with open(trace) as f:
        doc = json.load(f)
    events = doc.get("traceEvents")
    check("trace has a traceEvents array", isinstance(events, list) and len(events) > 0)
    tids = {e["tid"] for e in events if e.get("ph") == "X"}
    check("one tid per worker", tids == {0, 1}, f"tids {sorted(tids)}")
    spans = [e for e in events if e.get("ph") == "X"]
    check("spans have name, ts and dur", all("name" in e and "ts" in e and "dur" in e for e in spans))

    r = run("run", "--hash", "--steps", "3", "--threads", "2")
    hashes = {line.split()[1] for line in r.stdout.splitlines() if line.startswith("state-hash:")}
    check("every executor gives one hash", r.returncode == 0 and len(hashes) == 1, r.stdout)

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

print(f"{passed} passed, {failures} failed")
sys.exit(1 if failures else 0)
