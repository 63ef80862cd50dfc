"""npu-migrate: move PyTorch training code from CUDA GPUs to Ascend NPUs.

The static side (this package) never imports torch and never executes user code.
"""

__version__ = "0.1.0"
