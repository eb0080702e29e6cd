"""Agreement of `agentls parse --blocks` with gptme's parser.

Usage: pip install gptme; python3 agree.py AGENTLS_BINARY...
SHOW=1 in the environment lists the disagreements. GPTME_TESTS=DIR (a
gptme checkout's tests/ folder) adds every markdown input its
test_codeblock.py passes to the parser, recorded by running each test.

The cases are the replies in tools/parse/testdata (replies/*.txt and
nested/*.md, nested/*.txt). gptme's answer is its complete (non-streaming)
parse, from the gptme package installed from PyPI; contents are compared
with line endings normalised, as gptme normalises them.
"""
import glob, inspect, json, os, subprocess, sys, types

import gptme.codeblock as cb

here = os.path.dirname(os.path.abspath(__file__))
binaries = sys.argv[1:]
extract = cb._extract_codeblocks

inputs = []
tests_dir = os.environ.get("GPTME_TESTS")
if tests_dir:
    def record(md, *a, **k):
        inputs.append(md)
        return extract(md, *a, **k)
    path = os.path.join(tests_dir, "test_codeblock.py")
    T = types.ModuleType("test_codeblock"); T.__file__ = path
    exec(compile(open(path).read(), path, "exec"), T.__dict__)
    T._extract_codeblocks = record
    for name, fn in inspect.getmembers(T, inspect.isfunction):
        if name.startswith("test_"):
            try:
                fn()
            except Exception:
                pass  # an assertion on gptme's own answer: the input is recorded
for f in sorted(glob.glob(os.path.join(here, "..", "replies", "*.txt")) +
                glob.glob(os.path.join(here, "*.md")) + glob.glob(os.path.join(here, "*.txt"))):
    if os.path.basename(f) != "README.md":
        inputs.append(open(f).read())
cases = list(dict.fromkeys(inputs))

def agentls(binary, md):
    out = subprocess.run([binary, "parse", "--blocks"], input=md.encode(), capture_output=True).stdout
    return [(b["lang"], b["content"].replace("\r\n", "\n").replace("\r", "\n")) for b in json.loads(out)]

for binary in binaries:
    dis = []
    for md in cases:
        g = [(b.lang, b.content) for b in extract(md)]
        a = agentls(binary, md)
        if g != a:
            dis.append((md, g, a))
    print(f"{binary}: {len(cases) - len(dis)}/{len(cases)} agree")
    if os.environ.get("SHOW"):
        for md, g, a in dis:
            print("=====", repr(md)[:300]); print("  gptme  ", repr(g)[:300]); print("  agentls", repr(a)[:300])
