#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
python3 -c 'from join import join; assert join([1, 2]) == "1;2"; assert join([1, 2], "-") == "1-2"'
