#!/usr/bin/env bash
# The suite's figure for docs/performance.md: from pending GPU pods to the provider's increase,
# as each scale-up scenario noted it (note_increase_latency in scenario.sh), p50 and p99 by
# nearest rank. Usage: latency_report.sh SAMPLES_FILE. The file is removed once read, so the
# next run starts afresh.
set -euo pipefail
samples="${1:?SAMPLES_FILE}"
[[ -s "$samples" ]] || { echo "no scale-up scenario noted a latency in $samples" >&2; exit 1; }
python3 - "$samples" <<'PY'
import math, sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
values = sorted(float(r[0]) for r in rows)
if any(v < 0 for v in values):
    sys.exit("a negative latency: the samples are wrong")
rank = lambda q: values[max(0, math.ceil(q * len(values)) - 1)]
for r in sorted(rows, key=lambda r: float(r[0])):
    print(f"  {r[1]}: {float(r[0]):.2f}s")
print(f"pending GPU pods to the provider's increase, {len(values)} scale-ups over "
      f"{len({r[1] for r in rows})} scenario runs: p50 {rank(0.5):.2f}s, p99 {rank(0.99):.2f}s, "
      f"max {values[-1]:.2f}s")
PY
rm -f "$samples"
