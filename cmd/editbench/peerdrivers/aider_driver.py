"""editbench peers: times aider's SEARCH/REPLACE applier on editbench's inputs.

Run by `editbench peers` in a virtualenv holding aider-chat, one process
per operation: argv is OP CASES.json. The conflict-marker patches the other
implementations get are given to aider in its own format (the same lines
between "<<<<<<< SEARCH", "=======" and ">>>>>>> REPLACE", after the file
name), parsed by find_original_update_blocks and applied by do_replace,
the two functions its EditBlockCoder calls. Each case prints one JSON line
with the time per call in nanoseconds and the outcome.
"""

from aider.coders.editblock_coder import DEFAULT_FENCE, do_replace, find_original_update_blocks

from peertiming import BUDGET_NS, outcome_apply, read, run, timed, try_call


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


def patch(case):
    content = read(case["file"])
    reply = to_aider(read(case["patch"]))
    fn = lambda: apply_block(reply, content)
    mean, med, _ = timed(lambda: try_call(fn), case.get("budget", BUDGET_NS))
    return mean, med, outcome_apply(fn)


def small_edits(case):
    content = read(case["file"])
    replies = [to_aider(b) for b in read(case["patch"]).split("\n%%%%\n")]

    def fn():
        cur = content
        for r in replies:
            cur = apply_block(r, cur)
        return cur

    mean, med, _ = timed(lambda: try_call(fn), case.get("budget", BUDGET_NS))
    return mean // len(replies), med // len(replies), outcome_apply(fn)


OPS = {"patch": patch, "small-edits": small_edits}


if __name__ == "__main__":
    run(OPS)
