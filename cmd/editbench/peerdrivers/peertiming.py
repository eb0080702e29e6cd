"""editbench peers: what the peers' drivers share: timing a call, going
round a case's inputs, an edit's outcome, reading an input, and the loop
over the cases. Written beside the drivers, which import it.
"""

import hashlib
import json
import sys
import time

BUDGET_NS = 100_000_000  # time each case for at least this long (after one warm-up call)


def timed(fn, budget_ns):
    """Calls fn once untimed, then until budget_ns have passed (at least
    once); returns the median time of a call (a mean would count
    other processes' time slices on a loaded machine) and the last result."""
    out = fn()
    ts = []
    start = time.perf_counter_ns()
    while not ts or time.perf_counter_ns() - start < budget_ns:
        t = time.perf_counter_ns()
        out = fn()
        ts.append(time.perf_counter_ns() - t)
    ts.sort()
    return ts[len(ts) // 2], out


def timed_rotating(case, prepare):
    """Times calls going round the case and its "rotate" inputs (others of
    the same size) in turn, the case first, as timed does one: timing the
    same small input over and over lets the branch predictor learn it.
    prepare(case) returns the call; the result is the case's own (its
    call is the untimed first one, and comes round again)."""
    fns = [prepare(v) for v in [case] + case.get("rotate", [])]
    k = [0]
    first = []

    def fn():
        out = fns[k[0] % len(fns)]()
        if k[0] == 0:
            first.append(out)
        k[0] += 1
        return out

    ns, _ = timed(fn, case.get("budget", BUDGET_NS))
    return ns, first[0]


def outcome_apply(fn):
    try:
        return "applied:" + hashlib.sha256(fn().encode()).hexdigest()
    except ValueError as e:
        return "refused: " + str(e).split("\n")[0][:80]


def read(p):
    with open(p, encoding="utf-8", newline="") as f:
        return f.read()


def run(ops):
    """Runs operation argv[1] on each case of the file argv[2], printing
    one JSON line per case: its time per call in nanoseconds and outcome."""
    op, cases_file = sys.argv[1], sys.argv[2]
    with open(cases_file) as f:
        cases = json.load(f)
    for case in cases:
        ns, out = ops[op](case)
        print(json.dumps({"case": case["name"], "ns": ns, "outcome": out}), flush=True)
