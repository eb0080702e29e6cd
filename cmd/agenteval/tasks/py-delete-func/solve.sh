#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
python3 - <<'PY'
s = open("orders.py").read()
start = s.index("def legacy_total")
end = s.index("def count")
open("orders.py", "w").write(s[:start] + s[end:])
PY
