#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
printf 'def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n' > misc.py
printf '\n\ndef slugify(s):\n    return s.strip().lower().replace(" ", "-")\n' >> text.py
sed -i 's/from misc import/from text import/' main.py
