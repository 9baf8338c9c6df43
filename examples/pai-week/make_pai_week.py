#!/usr/bin/env python3
"""Writes trace.jsonl: one week shaped after Alibaba PAI's 2020 GPU cluster trace, for
`gpu-autoscaler simulate --trace trace.jsonl --node-groups node-groups.yaml`.

Not tuned on: the controller was never adjusted to this week. It is a second, differently
shaped workload to check that what helps the bundled week is not fitted to it.

What it takes from the published trace (alibaba/clusterdata, cluster-trace-gpu-v2020, and
Weng et al., "MLaaS in the Wild", NSDI '22):
- GPU requests in percent of a GPU (plan_gpu: 50 is half a GPU): most tasks ask for a
  fraction of one GPU or one GPU, few for several; here 25% and 50% of a T4 are time-sliced
  shares (a quarter of a GPU each), 100% a whole GPU;
- a heterogeneous fleet of T4, V100 and P100-class GPUs (the trace's machines: V100, V100M32,
  T4, P100, MISC): here T4 pools shared and whole, a V100 pool, and A100 MIG slices standing in
  for the fractional work that asks for guaranteed memory;
- time of day and day of week kept in its timestamps, with submissions peaking in working hours
  and quieter nights and weekends;
- run times from seconds to days, heavy-tailed (most tasks short, a few running for days).

The figures below are our choices within those shapes, not fitted to the trace's data:
arrivals per hour, the request mix, and a log-normal run time with a median of 20 minutes
capped at three days. Run it again after changing them (python3 make_pai_week.py >
trace.jsonl); the seed is fixed.
"""
import json
import math
import random

DAY = 24 * 3600
PEAK = 60  # arrivals an hour at the busiest time of a weekday
rng = random.Random(20200701)
GPU_TOLERATION = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


def pod(requests, selector=None):
    spec = {"containers": [{"name": "main", "resources": {"requests": requests}}],
            "tolerations": GPU_TOLERATION}
    if selector:
        spec["nodeSelector"] = selector
    return {"spec": spec}


T4 = {"node.kubernetes.io/instance-type": "g4dn.12xlarge"}
# (weight, name, requests, node selector): the mix of GPU requests.
MIX = [
    (30, "share25", {"nvidia.com/gpu.shared": "1", "cpu": "4", "memory": "16Gi"}, None),
    (15, "share50", {"nvidia.com/gpu.shared": "2", "cpu": "6", "memory": "24Gi"}, None),
    (20, "t4x1", {"nvidia.com/gpu": "1", "cpu": "8", "memory": "32Gi"}, T4),
    (12, "v100x1", {"nvidia.com/gpu": "1", "cpu": "8", "memory": "48Gi"},
     {"nvidia.com/gpu.product": "Tesla-V100-SXM2-16GB"}),
    (6, "v100x4", {"nvidia.com/gpu": "4", "cpu": "28", "memory": "200Gi"},
     {"nvidia.com/gpu.product": "Tesla-V100-SXM2-16GB"}),
    (2, "v100x8", {"nvidia.com/gpu": "8", "cpu": "60", "memory": "450Gi"},
     {"nvidia.com/gpu.product": "Tesla-V100-SXM2-16GB"}),
    (8, "mig1g", {"nvidia.com/mig-1g.5gb": "1", "cpu": "4", "memory": "32Gi"}, None),
    (4, "mig2g", {"nvidia.com/mig-2g.10gb": "1", "cpu": "8", "memory": "64Gi"}, None),
    (3, "mig3g", {"nvidia.com/mig-3g.20gb": "1", "cpu": "12", "memory": "96Gi"}, None),
]
TOTAL = sum(w for w, *_ in MIX)


def rate_per_hour(t):
    day, hour = int(t // DAY), (t % DAY) / 3600
    diurnal = 0.35 + 0.65 * max(0.0, math.sin((hour - 7) / 14 * math.pi)) if 7 <= hour <= 21 \
        else 0.35
    return PEAK * diurnal * (0.5 if day >= 5 else 1.0)


def run_seconds():
    return min(3 * DAY, max(60, rng.lognormvariate(math.log(20 * 60), 1.6)))


def at(seconds):
    seconds = int(seconds)
    d, rest = divmod(seconds, DAY)
    h, rest = divmod(rest, 3600)
    m, s = divmod(rest, 60)
    return f"{d}d{h}h{m}m{s}s"


def pick():
    x = rng.uniform(0, TOTAL)
    for w, name, requests, selector in MIX:
        if x < w:
            return name, requests, selector
        x -= w
    return MIX[-1][1:]


lines = []
t, n = 0.0, 0
peak = PEAK
while True:
    # Thinning: a Poisson process at the peak rate, each arrival kept at rate(t)/peak.
    t += rng.expovariate(peak / 3600)
    if t >= 7 * DAY:
        break
    if rng.random() > rate_per_hour(t) / peak:
        continue
    name, requests, selector = pick()
    line = {"at": at(t), "name": f"{name}-{n}", "runFor": f"{int(run_seconds())}s",
            "pod": pod(requests, selector)}
    n += 1
    lines.append(json.dumps(line, separators=(",", ":")))

print("# One week shaped after Alibaba PAI 2020's GPU trace; made by make_pai_week.py.")
for line in lines:
    print(line)
