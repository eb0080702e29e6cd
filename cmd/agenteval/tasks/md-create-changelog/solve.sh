#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
printf '# Changelog\n\n## 1.0.0\n\n- First release\n' > CHANGELOG.md
