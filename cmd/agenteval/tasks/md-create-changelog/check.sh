#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
grep -q '^# Changelog' CHANGELOG.md
grep -q '^## 1.0.0' CHANGELOG.md
grep -q '^- First release' CHANGELOG.md
