#!/usr/bin/env python3
"""Writes week.jsonl: a week of GPU work that claims its H100s through DRA, for
`gpu-autoscaler simulate --trace examples/dra/week.jsonl --node-groups
examples/dra/node-groups.yaml`.

Run it again (python3 make_dra_week.py > week.jsonl) after changing the mix; the seed is
fixed, so the same mix gives the same trace.

- evaluation jobs claiming one H100 each (template one-h100), frequent in working hours,
  half an hour to two hours;
- fine-tuning jobs claiming four H100s (template four-h100), a few a day, two to eight hours;
- hourly cpu ETL jobs that claim nothing.
"""
import json
import random

DAY = 24 * 3600
rng = random.Random(20261207)
GPU_TOLERATION = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


def claiming(template, cpu, memory):
    return {"spec": {
        "tolerations": GPU_TOLERATION,
        "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": template}],
        "containers": [{"name": "main", "resources": {
            "requests": {"cpu": cpu, "memory": memory}, "claims": [{"name": "gpu"}]}}]}}


EVAL = claiming("one-h100", "8", "64Gi")
FINETUNE = claiming("four-h100", "32", "256Gi")
ETL = {"spec": {"containers": [{"name": "main", "resources": {
    "requests": {"cpu": "4", "memory": "8Gi"}}}]}}

lines = [{"objects": "claims.yaml"}]


def emit(t, name, minutes, pod, namespace="ml"):
    lines.append({"at": int(t), "name": name, "namespace": namespace,
                  "runFor": f"{int(minutes)}m", "pod": pod})


for day in range(7):
    weekday = day < 5
    for hour in range(24):
        start = day * DAY + hour * 3600
        working = weekday and 8 <= hour < 19
        for i in range(rng.randint(2, 5) if working else rng.randint(0, 1)):
            emit(start + rng.randint(0, 3599), f"eval-{day}-{hour}-{i}", rng.randint(30, 120), EVAL)
        emit(start + 300, f"etl-{day}-{hour}", rng.randint(10, 40), ETL, "default")
    for i in range(rng.randint(2, 4) if weekday else 1):
        emit(day * DAY + rng.randint(6, 20) * 3600, f"finetune-{day}-{i}",
             rng.randint(120, 480), FINETUNE)

print("# A week of DRA GPU work: written by make_dra_week.py; see its docstring.")
for line in lines:
    print(json.dumps(line))
