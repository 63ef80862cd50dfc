"""A CPU training loop that saves a checkpoint every 2 steps and resumes from `--resume FILE`.

Correct as written: the checkpoint holds the model, optimizer, scheduler, GradScaler, the torch RNG
state and the step, and the resume restores all of them and skips the batches already seen.
`--defect` plants one defect (the state a resume then loses):
  model-only        saves the model's state_dict alone (and the resume loads only that)
  scaler-not-saved  the GradScaler is left out of the checkpoint
  scheduler-not-restored  the scheduler is saved but not loaded
  rng-not-restored  the RNG state is saved but not loaded
  data-reset        the step is restored, but the data starts again at the first batch
  clip-scaled       (not a resume defect) clip_grad_norm_ before scaler.unscale_: clips loss-scaled gradients
"""
import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--ckpt", default="ckpt.pt")
parser.add_argument("--resume", default=None)
parser.add_argument("--defect", default="none")
parser.add_argument("--steps", type=int, default=40)
args = parser.parse_args()

torch.manual_seed(0)
data = torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randn(64, 1))
loader = torch.utils.data.DataLoader(data, batch_size=8, generator=torch.Generator().manual_seed(0))
model = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.Dropout(0.5), torch.nn.Linear(16, 1))
optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 0.8 ** step)
scaler = torch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=1)  # the scale doubles every step

step = 0
rng = None
if args.resume:
    ckpt = torch.load(args.resume, weights_only=False)
    if args.defect == "model-only":
        model.load_state_dict(ckpt)
    else:
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        if args.defect != "scheduler-not-restored":
            scheduler.load_state_dict(ckpt["scheduler"])
        if "scaler" in ckpt:
            scaler.load_state_dict(ckpt["scaler"])
        step = ckpt["step"]
        rng = ckpt["rng"]


def save():
    if args.defect == "model-only":
        torch.save(model.state_dict(), args.ckpt)
        return
    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
             "rng": torch.get_rng_state(), "step": step}
    if args.defect != "scaler-not-saved":
        state["scaler"] = scaler.state_dict()
    torch.save(state, args.ckpt)


def batches(start):
    position = 0 if args.defect == "data-reset" else start % len(loader)
    while True:
        it = iter(loader)
        for _ in range(position):  # the batches of this epoch seen before the checkpoint
            next(it)
        position = 0
        yield from it


if rng is not None and args.defect != "rng-not-restored":
    torch.set_rng_state(rng)
for x, y in batches(step):
    if step >= args.steps:
        break
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    if args.defect != "clip-scaled":
        scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    scheduler.step()
    step += 1
    if step % 2 == 0:
        save()
