#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
grep -q '^## License' README.md
grep -qi 'MIT' README.md
grep -q '^## Usage' README.md
test "$(grep -n '^## License' README.md | cut -d: -f1)" -gt "$(grep -n '^## Usage' README.md | cut -d: -f1)"
