#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
grep -q 'export interface User {' types.ts
grep -q 'import { User } from "./types";' app.ts
grep -q 'p: User' app.ts
! grep -q Person types.ts app.ts || exit 1
