#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
printf '\n## License\n\nMIT\n' >> README.md
