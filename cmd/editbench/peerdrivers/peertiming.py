"""editbench peers: what the peers' drivers share: timing a call, going
round a case's inputs, an edit's outcome, reading an input, and the loop
over the cases. Written beside the drivers, which import it.

Timing is the same as agentls's worker (cmd/editbench/peerwork.go): one
untimed call, then calls until their own time adds up to the budget; the
mean per call (garbage collection and page faults included, as a user
waits for them) is the figure compared, the median is reported beside
it. Only the call is timed: outcomes (a hash of the result) are computed
after, outside the timed calls.
"""

import hashlib
import json
import sys
import time

BUDGET_NS = 300_000_000  # time each case for at least this long (after one warm-up call)


def timed(fn, budget_ns, reset=None):
    """Calls fn once untimed, then until the timed calls add up to
    budget_ns (at least once). reset, if given, runs untimed before each
    call (restoring a file the call rewrote). Returns the mean and the
    median time of a call and the last result."""
    if reset:
        reset()
    out = fn()
    ts = []
    total = 0
    while not ts or total < budget_ns:
        if reset:
            reset()
        t = time.perf_counter_ns()
        out = fn()
        d = time.perf_counter_ns() - t
        ts.append(d)
        total += d
    mean = total // len(ts)
    ts.sort()
    return mean, ts[len(ts) // 2], out


def timed_rotating(case, prepare):
    """Times calls going round the case and its "rotate" inputs (others of
    the same size) in turn, the case first, as timed does one: timing the
    same small input over and over lets the branch predictor learn it.
    prepare(case) returns the call; the result is the case's own (its
    call is the untimed first one, and comes round again). Returns the
    mean, the median and that result."""
    fns = [prepare(v) for v in [case] + case.get("rotate", [])]
    k = [0]
    first = []

    def fn():
        out = fns[k[0] % len(fns)]()
        if k[0] == 0:
            first.append(out)
        k[0] += 1
        return out

    mean, med, _ = timed(fn, case.get("budget", BUDGET_NS))
    return mean, med, first[0]


def outcome_apply(fn):
    """Calls fn (untimed) and names its result: "applied:<sha256>" or the
    refusal."""
    try:
        return "applied:" + hashlib.sha256(fn().encode()).hexdigest()
    except ValueError as e:
        return "refused: " + str(e).split("\n")[0][:80]


def try_call(fn):
    """fn, with a refusal (ValueError) swallowed: a miss is timed as the
    refusal it is."""
    try:
        return fn()
    except ValueError:
        return None


def read(p):
    with open(p, encoding="utf-8", newline="") as f:
        return f.read()


def run(ops):
    """Runs operation argv[1] on each case of the file argv[2], printing
    one JSON line per case: its mean and median time per call in
    nanoseconds and its outcome."""
    op, cases_file = sys.argv[1], sys.argv[2]
    with open(cases_file) as f:
        cases = json.load(f)
    for case in cases:
        mean, med, out = ops[op](case)
        print(json.dumps({"case": case["name"], "ns": mean, "median": med, "outcome": out}), flush=True)
