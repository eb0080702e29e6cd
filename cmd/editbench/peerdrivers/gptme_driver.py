"""editbench peers: times gptme's own functions on editbench's inputs.

Run by `editbench peers` in a virtualenv holding gptme, one process per
operation: argv is OP CASES.json, where each case names its input files.
For each case it prints one JSON line: the mean and the median time per
call in nanoseconds, and the outcome ("applied:<sha256>", "refused:
<reason>", "parsed:<count>"), computed after the timed calls, so editbench
can check that every implementation did the same thing before comparing
times. Each timed region holds gptme's own call and nothing else (see
BENCH.md's "what is timed").
"""

import os
import shutil
from pathlib import Path

from gptme.tools import init_tools
from gptme.tools.base import ToolUse
from gptme.tools import patch as gpatch
from gptme.tools import read as gread
from gptme.tools import hashline_edit

from peertiming import BUDGET_NS, outcome_apply, read, run, timed, timed_rotating, try_call


def parse_whole(case):
    def prepare(v):
        text = read(v["reply"])
        return lambda: list(ToolUse.iter_from_content(text))

    mean, med, out = timed_rotating(case, prepare)
    return mean, med, "parsed:%d" % sum(1 for u in out if u.is_runnable)


def parse_stream(case):
    # gptme's _reply_stream (gptme/llm/__init__.py) with display off and
    # break_on_tooluse on, but not stopping at the first tool: the loop
    # appends each character, looks at the last line at each newline
    # (rsplit), and re-parses the whole output at each newline with
    # ToolUse.iter_from_content(streaming=True). Chunks are cut before timing.
    def prepare(v):
        text = read(v["reply"])
        chunks = [text[i : i + 16] for i in range(0, len(text), 16)]

        def fn():
            output = ""
            found = 0
            for chunk in chunks:
                for char in chunk:
                    output += char
                    if char == "\n":
                        output.rsplit("\n", 1)[-1]
                        found = len([t for t in ToolUse.iter_from_content(output, streaming=True) if t.is_runnable])
            return found

        return fn

    mean, med, _ = timed_rotating(dict(case, budget=0), prepare)
    return mean, med, "streamed"


def patch(case):
    content = read(case["file"])
    block = read(case["patch"])
    fn = lambda: gpatch.apply(block, content)
    mean, med, _ = timed(lambda: try_call(fn), case.get("budget", BUDGET_NS))
    return mean, med, outcome_apply(fn)


def small_edits(case):
    content = read(case["file"])
    blocks = read(case["patch"]).split("\n%%%%\n")

    def fn():
        cur = content
        for b in blocks:
            cur = gpatch.apply(b, cur)
        return cur

    mean, med, _ = timed(lambda: try_call(fn), case.get("budget", BUDGET_NS))
    return mean // len(blocks), med // len(blocks), outcome_apply(fn)


def anchors_render(case):
    # gptme's read tool: the whole file with line numbers. init_tools does
    # not load hashline_edit, so there is no [path#tag] header and its
    # SHA-256 of the content is not computed: the plain numbered view, the
    # least work gptme's side can do. It reads the file itself, from the
    # page cache here.
    path = Path(case["file"]).resolve()
    os.chdir(path.parent)

    def prepare(v):
        rel = Path(Path(v["file"]).resolve().name)
        return lambda: list(gread._read_one(rel))[-1].content

    mean, med, out = timed_rotating(case, prepare)
    if "too large" in out:
        return mean, med, "refused: " + out.split("\n")[0][:80]
    return mean, med, "rendered:%d" % len(out)


def anchors_apply(case):
    # hashline_edit's parse and apply of PUT ops on the content (the tag
    # check and the write to disk are left out).
    def prepare(v):
        content = read(v["file"])
        ops = read(v["ops"])

        def fn():
            _, _, parsed = hashline_edit._parse_operations(ops)
            return hashline_edit._apply_operations(content, parsed)

        return fn

    mean, med, _ = timed_rotating(case, prepare)
    return mean, med, outcome_apply(prepare(case))


def patch_disk(case):
    # The patch tool end to end on disk: execute_patch_impl (what
    # execute_patch runs once the user confirmed) reads the file, applies
    # the patch and writes the file back. Before each call, untimed, the
    # file is put back as it was. It works on its own copy of the input.
    work = Path(case["work"]) / "gptme" / Path(case["file"]).name
    work.parent.mkdir(parents=True, exist_ok=True)
    block = read(case["patch"])
    reset = lambda: shutil.copyfile(case["file"], work)

    def fn():
        for _ in gpatch.execute_patch_impl(block, work):
            pass

    mean, med, _ = timed(lambda: try_call(fn), case.get("budget", BUDGET_NS), reset=reset)
    reset()

    def once():
        fn()
        return read(str(work))

    out = outcome_apply(once)
    work.unlink()
    return mean, med, out


OPS = {
    "parse-whole": parse_whole,
    "parse-stream16": parse_stream,
    "patch": patch,
    "small-edits": small_edits,
    "anchors-render": anchors_render,
    "anchors-apply": anchors_apply,
    "patch-disk": patch_disk,
}


def main():
    init_tools(include_mcp=False)
    run(OPS)


if __name__ == "__main__":
    main()
