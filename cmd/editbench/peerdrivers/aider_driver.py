"""editbench peers: times aider's SEARCH/REPLACE applier on editbench's inputs.

Run by `editbench peers` in a virtualenv holding aider-chat, one process
per operation: argv is OP CASES.json. The conflict-marker patches the other
implementations get are given to aider in its own format (the same lines
between "<<<<<<< SEARCH", "=======" and ">>>>>>> REPLACE", after the file
name), parsed by find_original_update_blocks and applied by do_replace,
the two functions its EditBlockCoder calls. Each case prints one JSON line
with the time per call in nanoseconds and the outcome.
"""

import hashlib
import json
import sys
import time

from aider.coders.editblock_coder import DEFAULT_FENCE, do_replace, find_original_update_blocks

BUDGET_NS = 100_000_000


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


def read(p):
    with open(p, encoding="utf-8", newline="") as f:
        return f.read()


def to_aider(block):
    """The same hunks in aider's markers, after the file name."""
    lines = []
    for line in block.split("\n"):
        if line == "<<<<<<< ORIGINAL":
            line = "<<<<<<< SEARCH"
        elif line == ">>>>>>> UPDATED":
            line = ">>>>>>> REPLACE"
        lines.append(line)
    return "f.go\n" + "\n".join(lines) + "\n"


def apply_block(reply, content):
    for fname, before, after in find_original_update_blocks(reply, DEFAULT_FENCE):
        new = do_replace(fname, content, before, after, DEFAULT_FENCE)
        if new is None:
            raise ValueError("SEARCH block not found in the file")
        content = new
    return content


def outcome(fn):
    try:
        return "applied:" + hashlib.sha256(fn().encode()).hexdigest()
    except ValueError as e:
        return "refused: " + str(e).split("\n")[0][:80]


def patch(case):
    content = read(case["file"])
    reply = to_aider(read(case["patch"]))
    fn = lambda: apply_block(reply, content)
    ns, _ = timed(lambda: outcome(fn), case.get("budget", BUDGET_NS))
    return ns, outcome(fn)


def small_edits(case):
    content = read(case["file"])
    replies = [to_aider(b) for b in read(case["patch"]).split("\n%%%%\n")]

    def fn():
        cur = content
        for r in replies:
            cur = apply_block(r, cur)
        return cur

    ns, _ = timed(lambda: outcome(fn), case.get("budget", BUDGET_NS))
    return ns // len(replies), outcome(fn)


OPS = {"patch": patch, "small-edits": small_edits}


def main():
    op, cases_file = sys.argv[1], sys.argv[2]
    with open(cases_file) as f:
        cases = json.load(f)
    for case in cases:
        ns, out = OPS[op](case)
        print(json.dumps({"case": case["name"], "ns": ns, "outcome": out}), flush=True)


if __name__ == "__main__":
    main()
