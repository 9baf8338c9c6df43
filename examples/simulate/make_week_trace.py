#!/usr/bin/env python3
"""Writes week.jsonl: one week of a mixed GPU workload for `gpu-autoscaler simulate`.

Run it again (python3 make_week_trace.py > week.jsonl) after changing the mix; the seed is
fixed, so the same mix gives the same trace.

- an inference service on time-sliced L4 shares, following a daily cycle (quieter at
  weekends): replicas that each live an hour, started every quarter of an hour;
- fine-tuning jobs on a whole 8xH100 node, a few a day, an hour to eight;
- evaluation jobs on one H100 each, short and frequent in working hours: the work an
  idle timeout keeps warm nodes for, or makes wait for a new one;
- notebooks on MIG slices of the reconfigurable H100 pool in working hours, and a nightly
  batch of small MIG jobs;
- two multi-node training gangs (four 8-GPU pods that start together) on on-demand nodes;
- hourly cpu ETL jobs;
- and one six-hour spot stockout of H100s mid-week.
"""
import json
import math
import random

DAY = 24 * 3600
rng = random.Random(20261201)
GPU_TOLERATION = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


def pod(requests, annotations=None):
    spec = {"containers": [{"name": "main", "resources": {"requests": requests}}]}
    if any(k.startswith("nvidia.com/") for k in requests):
        spec["tolerations"] = GPU_TOLERATION
    out = {"spec": spec}
    if annotations:
        out["metadata"] = {"annotations": annotations}
    return out


def at(seconds):
    seconds = int(seconds)
    d, rest = divmod(seconds, DAY)
    h, rest = divmod(rest, 3600)
    m, s = divmod(rest, 60)
    return f"{d}d{h}h{m}m{s}s"


lines = []


def emit(t, name, run_for, p, count=1, gang=False):
    line = {"at": at(t), "name": name, "runFor": f"{int(run_for)}s", "pod": p}
    if count > 1:
        line["count"] = count
    if gang:
        line["gang"] = True
    lines.append((t, json.dumps(line, separators=(",", ":"))))


INFER = pod({"nvidia.com/gpu.shared": "1", "cpu": "2", "memory": "8Gi"},
            {"gpu-autoscaler.io/cuda-version": "12.4"})
FINETUNE = pod({"nvidia.com/gpu": "8", "cpu": "96", "memory": "1000Gi"})
EVAL = pod({"nvidia.com/gpu": "1", "cpu": "12", "memory": "120Gi"})
ETL = pod({"cpu": "4", "memory": "16Gi"})
MIG = {size: pod({f"nvidia.com/mig-{size}": "1", "cpu": "4", "memory": "32Gi"})
       for size in ("1g.10gb", "2g.20gb", "3g.40gb")}

for day in range(7):
    weekend = day >= 5
    base = day * DAY
    # Inference: replicas live four hours; a quarter of them start every hour.
    for hour in range(24):
        t = base + hour * 3600
        load = 0.5 + 0.5 * math.sin((hour - 8) / 24 * 2 * math.pi)  # peak at 14:00
        replicas = 6 + 40 * load * (0.5 if weekend else 1.0)
        count = max(1, round(replicas / 4 + rng.uniform(-1, 1)))
        emit(t, f"infer-d{day}-h{hour}", 4 * 3600, INFER, count)
    # Fine-tuning: whole H100 nodes.
    for j in range(rng.randint(1, 3) if weekend else rng.randint(4, 7)):
        t = base + rng.uniform(0, DAY)
        emit(t, f"finetune-d{day}-{j}", rng.uniform(1, 8) * 3600, FINETUNE)
    # Evaluations in working hours: a few minutes each, every few minutes on average.
    if not weekend:
        t = base + 8 * 3600
        while True:
            t += rng.expovariate(1 / (15 * 60))
            if t > base + 20 * 3600:
                break
            emit(t, f"eval-d{day}-{int(t - base)}", rng.uniform(5, 20) * 60, EVAL)
    # Notebooks in working hours, on MIG slices.
    if not weekend:
        for n in range(rng.randint(25, 40)):
            t = base + rng.uniform(9, 17) * 3600
            size = rng.choice(["1g.10gb", "1g.10gb", "2g.20gb", "3g.40gb"])
            emit(t, f"nb-d{day}-{n}", rng.uniform(0.5, 3) * 3600, MIG[size])
    # The nightly batch of small MIG jobs.
    emit(base + 1 * 3600, f"batch-d{day}", 40 * 60, MIG["1g.10gb"], count=56)
    # Hourly ETL on cpu nodes.
    for hour in range(24):
        emit(base + hour * 3600 + 300, f"etl-d{day}-h{hour}", 20 * 60, ETL, count=6)

# Two training runs of four whole nodes each, started together, kept off spot capacity: a
# reclaimed member would restart all four.
PRETRAIN = json.loads(json.dumps(FINETUNE))
PRETRAIN["spec"]["nodeSelector"] = {"eks.amazonaws.com/capacityType": "ON_DEMAND"}
for i, t in enumerate([1 * DAY + 20 * 3600, 4 * DAY + 2 * 3600]):
    emit(t, f"pretrain-{i}", 12 * 3600, PRETRAIN, count=4, gang=True)

lines.append((3 * DAY + 10 * 3600,
              json.dumps({"at": at(3 * DAY + 10 * 3600), "stockout": "h100-spot", "for": "6h"},
                         separators=(",", ":"))))

print("# One week of a mixed GPU workload; made by make_week_trace.py.")
for _, line in sorted(lines, key=lambda x: x[0]):
    print(line)
