"""Runtime side of npu-migrate: smoke runs, the in-child bootstrap, the CPU-backed torch_npu stand-in.

Imports torch only lazily (inside the smoke child); the parent side (checks.smoke) never does.
"""
