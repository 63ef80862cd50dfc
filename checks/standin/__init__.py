"""Folder of the CPU-backed torch_npu stand-in (see standin/torch_npu/_emulator.py).

Not imported as `checks.standin`: this folder itself is put first on sys.path of an emulated smoke
child, so that `import torch_npu` finds standin/torch_npu.
"""
