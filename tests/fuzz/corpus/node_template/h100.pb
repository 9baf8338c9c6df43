
•
h100-templateZ/
nvidia.com/gpu.productNVIDIA-H100-80GB-HBM3Z$
nvidia.com/mig.configall-3g.40gbb-
gpu-autoscaler.io/gpu-sharingtime-slicing'*%
nvidia.com/gpupresent
NoScheduleH
cpu
190
memory
1900Gi
nvidia.com/gpu
8
pods
110