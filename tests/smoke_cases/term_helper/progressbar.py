"""Sizes a progress bar: shutil.get_terminal_size with a 0x0 fallback (a pipe without COLUMNS gives 0),
then the classic `stty size`, which needs a terminal on stdin (smoke's child has /dev/null)."""
import os
import shutil

WIDTH = shutil.get_terminal_size(fallback=(0, 0)).columns
print(f"progress bar width {WIDTH}")
rows, columns = os.popen("stty size 2>/dev/null").read().split()
