#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
printf 'def greet(name):\n    return "Hello, " + name + "!"\n' > greet.py
