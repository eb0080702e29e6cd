#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
python3 -c 'import temps; assert temps.c_to_f(100) == 212; assert temps.c_to_f(0) == 32; assert temps.c_to_k(0) == 273.15; assert temps.k_to_c(273.15) == 0'
