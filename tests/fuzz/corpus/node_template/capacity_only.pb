

capacity-only7


cpu
4

memory
-1Gi

nvidia.com/gpu
1.5