"""torchrun launch options shared by the commands that run a script (smoke, validate, profile).

`launch_options` adds --nproc-per-node, --nnodes, --node-rank, --master-addr, --master-port and
--progress-timeout, and hands the command one keyword `launch`: None without --nproc-per-node (one
process, as before; scripts that start their own ranks with mp.spawn need no flag), else the
keyword arguments of checks.distributed.run.LaunchSpec. The options pass straight to torchrun.
"""

from __future__ import annotations

import functools

import click


def launch_options(func):
    @click.option("--nproc-per-node", type=click.IntRange(min=1), help="Run the script as N ranks on this node under torchrun (python -m torch.distributed.run); every rank is checked.")
    @click.option("--nnodes", default="1", show_default=True, help="torchrun --nnodes (multi-node runs on real hosts; with --nproc-per-node).")
    @click.option("--node-rank", type=click.IntRange(min=0), default=0, show_default=True, help="torchrun --node-rank (with --nproc-per-node).")
    @click.option("--master-addr", help="torchrun --master-addr (default for one node: torchrun --standalone).")
    @click.option("--master-port", type=click.IntRange(min=1, max=65535), help="torchrun --master-port.")
    @click.option("--progress-timeout", type=click.FloatRange(min=0, min_open=True), help="With --nproc-per-node: stop the job when no rank finished an optimizer step for this many seconds, and name the rank that stopped.")
    @functools.wraps(func)
    def wrapper(*args, nproc_per_node, nnodes, node_rank, master_addr, master_port, progress_timeout, **kwargs):
        launch = None
        if nproc_per_node is not None:
            launch = {"nproc_per_node": nproc_per_node, "nnodes": str(nnodes), "node_rank": node_rank,
                      "master_addr": master_addr, "master_port": master_port}
        elif nnodes != "1" or node_rank or master_addr or master_port:
            raise click.UsageError("--nnodes/--node-rank/--master-addr/--master-port need --nproc-per-node")
        elif progress_timeout is not None:  # one process has no ranks to watch: say so, never ignore it
            raise click.UsageError("--progress-timeout needs --nproc-per-node (one process: use --timeout)")
        return func(*args, launch=launch, progress_timeout=progress_timeout, **kwargs)

    return wrapper
