"""What the Python tests share: named checks, tallied, and the summary line and exit status at the end."""
import sys

_tally = {"passed": 0, "failed": 0}


def check(name, ok, detail=""):
    """Counts one named check; a failure prints its name and the detail that explains it. Returns ok."""
    if ok:
        _tally["passed"] += 1
    else:
        _tally["failed"] += 1
        print(f"FAIL {name}: {detail}")
    return ok


def finish():
    """Prints the tally and exits 1 when any check failed."""
    print(f"{_tally['passed']} passed, {_tally['failed']} failed")
    sys.exit(1 if _tally["failed"] else 0)
