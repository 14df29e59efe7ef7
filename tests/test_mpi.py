#!/usr/bin/env python3
"""`mpirun -np R physflow run SCENE --threads K --hash` (one simulation over R ranks of K workers, docs/runtime.md
"Across MPI ranks") prints the state hash of `physflow run SCENE --executor seq --hash` (the oracle) for bars64,
springgrid128 and heterogeneous over its first 70 steps (contacts starting and stopping, groups merging and
splitting), R = 1..4 and K = 1, 2; rank 0 alone prints the summary,
which counts the messages sent; a graph of the runtime alone (test_mpi_graph.c: loops, a taken break, reducers)
equals seq on every rank for the same R and K, and def.mpi is refused under MPI_THREAD_SERIALIZED; a rank that exits mid-run (PHYSFLOW_FAULT_RANK_EXIT) ends the job with an error
within a time bound instead of leaving the others waiting, and an error every rank meets (a bad scene file) ends
it with that error, without an abort; `bench scaling` under mpirun adds static over all ranks (R x K workers) to
the configurations rank 0 times alone, and rank 0 alone prints; another executor than static is refused.
Exits 77 (skipped) when PhysFlow was built without MPI or mpirun is missing."""
import os
import shutil
import subprocess
import sys
import time

from checks import check, finish

PHYSFLOW = sys.argv[1]
# heterogeneous: contacts from step 10, merged groups from step 15, contact pairs stopping and groups splitting
CASES = [("bars64", 20), ("springgrid128", 10), ("heterogeneous", 70)]
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def run(args, timeout=120, env=ENV):
    t0 = time.monotonic()
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - t0
    except subprocess.TimeoutExpired:
        return None, "", "timed out", time.monotonic() - t0


def mpirun(ranks, args, timeout=120, env=ENV):
    return run(["mpirun", "--oversubscribe", "-np", str(ranks)] + args, timeout, env)


def main():
    info = subprocess.run([PHYSFLOW, "info"], capture_output=True, text=True).stdout
    if "MPI: built" not in info or not shutil.which("mpirun"):
        print("skipped: PhysFlow built without MPI, or no mpirun")
        sys.exit(77)

    for scene, steps in CASES:
        rc, out, err, _ = run([PHYSFLOW, "run", scene, "--executor", "seq", "--steps", str(steps), "--hash"])
        want = out.strip()
        check(f"{scene} seq", rc == 0 and want.startswith("state-hash: "), err)
        for ranks in (1, 2, 3, 4):
            for workers in (1, 2):
                rc, out, err, _ = mpirun(ranks, [PHYSFLOW, "run", scene, "--threads", str(workers), "--steps",
                                                 str(steps), "--hash"])
                check(f"{scene} {ranks} ranks x {workers} workers gives the seq hash", rc == 0 and out.strip() == want,
                      f"rc {rc}, got '{out.strip()}', want '{want}'; {err[-400:]}")

    # rank 0 alone prints the summary, with the messages it sent
    rc, out, err, _ = mpirun(2, [PHYSFLOW, "run", "springgrid128", "--threads", "1", "--steps", "3"])
    check("summary printed once", rc == 0 and out.count("state-hash") == 1, f"rc {rc}: {out}{err[-400:]}")
    line = [l for l in out.splitlines() if "MPI: 2 ranks x 1 workers" in l]
    check("summary counts messages", len(line) == 1 and " 0.0 messages" not in line[0] and
          " 0.0 KiB at their ends" not in line[0] and "received 0.0 messages" not in line[0], out)

    # a rank lost mid-run: the job ends with an error, not a hang
    env = dict(ENV, PHYSFLOW_FAULT_RANK_EXIT="1:3")
    rc, out, err, secs = mpirun(3, [PHYSFLOW, "run", "springgrid128", "--threads", "1", "--steps", "200"], 90, env)
    check("a rank that exits early ends the job with an error", rc is not None and rc != 0 and secs < 90,
          f"rc {rc} after {secs:.0f} s: {err[-400:]}")
    check("the early exit is said", "exits after step 3" in err, err[-400:])

    if len(sys.argv) > 2:  # the runtime alone: loops, a taken break, reducers, against seq on every rank
        graph = sys.argv[2]
        for ranks in (1, 2, 3, 4):
            for workers in (1, 2):
                rc, out, err, _ = mpirun(ranks, [graph, str(workers)], 60)
                check(f"graph with loops over {ranks} ranks x {workers} workers equals seq", rc == 0 and "ok:" in out,
                      f"rc {rc}: {out}{err[-400:]}")
        rc, out, err, _ = run([graph, "--serialized"], 60)
        check("def.mpi refused without MPI_THREAD_MULTIPLE", rc == 0, f"rc {rc}: {err[-400:]}")

    # an error every rank meets: they agree on it and finalize (no abort), and the job exits with it
    bad = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"physflow-mpi-bad-{os.getpid()}.scn")
    with open(bad, "w") as f:
        f.write('<Node name="root">\n  <NoSuchComponent/>\n</Node>\n')
    rc, out, err, secs = mpirun(2, [PHYSFLOW, "run", bad, "--threads", "1", "--steps", "3"], 90)
    os.remove(bad)
    check("an error on every rank ends the job with it", rc == 2 and secs < 90 and "NoSuchComponent" in err and
          "MPI_ABORT" not in err and "Segmentation" not in err, f"rc {rc}: {err[-400:]}")

    # bench scaling under mpirun: static over both ranks beside rank 0 alone; rank 0 alone prints and writes the CSV
    csv = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"physflow-mpi-scaling-{os.getpid()}.csv")
    rc, out, err, _ = mpirun(2, [PHYSFLOW, "bench", "scaling", "bars64", "--threads", "1,2", "--executors",
                                 "seq,static", "--steps", "3", "--warmup", "1", "--csv", csv, "--force"], 120)
    rows = open(csv).read() if os.path.exists(csv) else ""
    if os.path.exists(csv):
        os.remove(csv)
    ranks_rows = [l.split() for l in out.splitlines() if l.strip().startswith("static/2ranks")]
    check("bench scaling spans the ranks", rc == 0 and out.count("bench scaling bars64") == 1 and
          len(ranks_rows) == 4 and sorted(r[1] for r in ranks_rows) == ["2", "2", "4", "4"] and
          "static/2ranks" in rows, f"rc {rc}: {out}{err[-400:]}")

    rc, out, err, _ = mpirun(2, [PHYSFLOW, "run", "bars64", "--executor", "seq", "--steps", "2"])
    check("seq refused under mpirun", rc not in (0, None) and "executor is static" in err, f"rc {rc}: {err[-300:]}")
    finish()


main()
