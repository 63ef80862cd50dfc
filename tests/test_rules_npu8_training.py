"""Rules NPU8xx training loop: beyond their embedded examples, exact places and false-positive traps
taken from the shapes of real training scripts (nanoGPT, timm, MAE, YOLOv5, pytorch/examples).

Static tests: torch is never imported here.
"""

from __future__ import annotations

import textwrap

import pytest

from tests.rule_helpers import analyze, of_code


def lines_of(source: str, code: str, filename: str = "train.py") -> list[int]:
    return [f.line for f in of_code(analyze(textwrap.dedent(source), filename), code)]


# ---- NPU801 float16 without loss scaling ----------------------------------------------------------

def test_fp16_autocast_reported_at_the_autocast_call():
    source = """\
        import torch
        def train(model, loader, optimizer):
            for x, y in loader:
                with torch.autocast(device_type="npu", dtype=torch.half):
                    loss = model(x, y)
                loss.backward()
                optimizer.step()
    """
    assert lines_of(source, "NPU801") == [4]


def test_fp16_quiet_when_a_scaler_object_comes_from_elsewhere():
    """MAE / DeiT: the engine gets `loss_scaler` from main.py and calls it instead of backward."""
    source = """\
        import torch
        def train_one_epoch(model, loader, optimizer, loss_scaler):
            for x in loader:
                with torch.cuda.amp.autocast():
                    loss = model(x)
                loss_scaler(loss, optimizer, parameters=model.parameters())
    """
    assert lines_of(source, "NPU801") == []


def test_half_model_only_when_an_optimizer_trains_it():
    trained = "import torch\nnet = Net().half()\nopt = torch.optim.Adam(net.parameters())\nnet(x).sum().backward()\nopt.step()\n"
    frozen_teacher = "import torch\nteacher = Teacher().half()\nopt = torch.optim.Adam(student.parameters())\nloss = student(x, teacher(x))\nloss.backward()\n"
    assert lines_of(trained, "NPU801") == [2]
    assert lines_of(frozen_teacher, "NPU801") == []


# ---- NPU802 clipping scaled gradients -------------------------------------------------------------

def test_clip_on_scaled_gradients_pytorch_examples_mingpt_shape():
    """pytorch/examples distributed/minGPT-ddp/mingpt/trainer.py `_run_batch` (commit 77f55b9):
    clips right after the scaled backward, on the amp branch."""
    source = """\
        import torch
        class Trainer:
            def _run_batch(self, source, targets):
                with torch.amp.autocast(device_type=self.device_type, dtype=torch.float16, enabled=self.use_amp):
                    _, loss = self.model(source, targets)
                self.optimizer.zero_grad(set_to_none=True)
                if self.use_amp:
                    self.scaler.scale(loss).backward()
                    torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_norm_clip)
                    self.scaler.step(self.optimizer)
                    self.scaler.update()
                else:
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_norm_clip)
                    self.optimizer.step()
    """
    assert lines_of(source, "NPU802") == [9]  # the amp branch only; the float32 branch is right


def test_clip_after_unscale_of_another_scaler_is_still_reported():
    source = """\
        import torch
        scaler_g.scale(loss).backward()
        scaler_d.unscale_(opt_d)
        torch.nn.utils.clip_grad_norm_(gen.parameters(), 1.0)
    """
    assert lines_of(source, "NPU802") == [4]


def test_nanogpt_clip_shape_is_quiet():
    """nanoGPT train.py (commit 3adf61e): backward in the micro-step loop, unscale_ then clip after it."""
    source = """\
        import torch
        for micro_step in range(gradient_accumulation_steps):
            with ctx:
                logits, loss = model(X, Y)
                loss = loss / gradient_accumulation_steps
            scaler.scale(loss).backward()
        if grad_clip != 0.0:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        scaler.step(optimizer)
        scaler.update()
    """
    assert lines_of(source, "NPU802") == []
    assert lines_of(source, "NPU803") == []


# ---- NPU803 / NPU804 / NPU805 gradient accumulation -----------------------------------------------

ACCUMULATION = """\
    import torch
    from torch.nn.parallel import DistributedDataParallel as DDP
    model = DDP(net, device_ids=[local_rank])
    for epoch in range(epochs):
        for i, (x, y) in enumerate(loader):
            loss = criterion(model(x / 255.0), y)
            loss.backward()
            if (i + 1) % accum_steps == 0:
                optimizer.step()
                optimizer.zero_grad()
            scheduler.step()
"""


def test_accumulation_findings_at_their_lines_and_name_the_count():
    findings = analyze(textwrap.dedent(ACCUMULATION), "train.py")
    (not_divided,) = of_code(findings, "NPU803")
    assert (not_divided.line, not_divided.column) == (7, 9)
    assert "accum_steps" in not_divided.message  # the count as written, not invented
    assert [f.line for f in of_code(findings, "NPU804")] == [7]
    (scheduler,) = of_code(findings, "NPU805")
    assert scheduler.line == 11 and "accum_steps" in scheduler.message


def test_accumulation_fixed_loop_is_quiet():
    fixed = """\
        import contextlib
        import torch
        from torch.nn.parallel import DistributedDataParallel as DDP
        model = DDP(net, device_ids=[local_rank])
        for epoch in range(epochs):
            for i, (x, y) in enumerate(loader):
                sync = (i + 1) % accum_steps == 0
                with contextlib.nullcontext() if sync else model.no_sync():
                    loss = criterion(model(x / 255.0), y) / accum_steps
                    loss.backward()
                if sync:
                    optimizer.step()
                    optimizer.zero_grad()
                    scheduler.step()
    """
    assert textwrap.dedent(ACCUMULATION) != textwrap.dedent(fixed)
    findings = analyze(textwrap.dedent(fixed), "train.py")
    assert [f.code for f in findings if f.code.startswith("NPU8")] == []
    # quiet because it is right, not because the `if sync:` loop went unrecognised
    undivided = textwrap.dedent(fixed).replace(", y) / accum_steps", ", y)")
    assert [f.line for f in of_code(analyze(undivided, "train.py"), "NPU803")] == [10]


def test_yolov3_darknet_subdivisions_shape():
    """eriklindernoren/PyTorch-YOLOv3 pytorchyolo/train.py (commit 1d621c8): backward every batch,
    step every `subdivisions` batches, loss never divided."""
    source = """\
        for batch_i, (_, imgs, targets) in enumerate(dataloader):
            batches_done = len(dataloader) * epoch + batch_i
            outputs = model(imgs)
            loss, loss_components = compute_loss(outputs, targets, model)
            loss.backward()
            if batches_done % model.hyperparams['subdivisions'] == 0:
                for g in optimizer.param_groups:
                    g['lr'] = lr
                optimizer.step()
                optimizer.zero_grad()
    """
    assert lines_of(source, "NPU803") == [5]


@pytest.mark.parametrize("loop", [
    # zero_grad every iteration: no accumulation at all
    "for i, x in enumerate(loader):\n    optimizer.zero_grad()\n    model(x).backward()\n    if i % 4 == 0:\n        optimizer.step()\n",
    # a GAN: the critic steps every iteration, the generator every n_critic
    "for i, x in enumerate(loader):\n    d_loss = critic(x)\n    d_loss.backward()\n    d_optimizer.step()\n"
    "    if i % n_critic == 0:\n        g_loss = gen_loss()\n        g_loss.backward()\n        g_optimizer.step()\n",
    # Accelerate divides by itself
    "for i, x in enumerate(loader):\n    accelerator.backward(model(x))\n    if i % 4 == 0:\n        optimizer.step()\n",
    # a range loop that steps inside
    "for _ in range(n_critic):\n    loss = critic(x)\n    loss.backward()\n    optimizer.step()\n    optimizer.zero_grad()\n",
])
def test_not_accumulation(loop):
    assert [f.code for f in analyze(loop) if f.code in {"NPU803", "NPU804", "NPU805"}] == []


# ---- NPU806 / NPU807 checkpoints -----------------------------------------------------------------

CIFAR = """\
    import torch
    parser.add_argument('--resume', '-r', action='store_true')
    if args.resume:
        checkpoint = torch.load('./checkpoint/ckpt.pth')
        net.load_state_dict(checkpoint['net'])
        start_epoch = checkpoint['epoch']
    optimizer = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=200)
    def test(epoch):
        state = {
            'net': net.state_dict(),
            'acc': acc,
            'epoch': epoch,
        }
        torch.save(state, './checkpoint/ckpt.pth')
"""


def test_model_only_checkpoint_kuangliu_cifar_shape():
    """kuangliu/pytorch-cifar main.py (commit 49b7aa9): the dict holds net / acc / epoch; --resume
    restarts SGD momentum and the cosine schedule."""
    assert lines_of(CIFAR, "NPU806") == [15]
    assert lines_of(CIFAR, "NPU807") == []  # what it saves, it restores


def test_model_only_checkpoint_quiet_once_the_optimizer_is_saved():
    full = CIFAR.replace("'epoch': epoch,\n", "'epoch': epoch,\n            'optimizer': optimizer.state_dict(),\n")
    assert lines_of(full, "NPU806") == []
    # ...and then the resume that ignores the saved optimizer is NPU807, at the torch.load
    found = of_code(analyze(textwrap.dedent(full), "train.py"), "NPU807")
    assert [f.line for f in found] == [4] and "'optimizer'" in found[0].message and "line 16" in found[0].message


def test_checkpoints_in_test_modules_are_fixtures():
    assert lines_of(CIFAR, "NPU806", filename="tests/test_resume.py") == []


def test_nanogpt_checkpoint_is_quiet():
    """nanoGPT train.py: `checkpoint` is both the loaded and the saved name; the resume reads every
    training key it saves."""
    source = """\
        import torch
        if init_from == 'resume':
            checkpoint = torch.load(ckpt_path, map_location=device)
            model.load_state_dict(checkpoint['model'])
            iter_num = checkpoint['iter_num']
            best_val_loss = checkpoint['best_val_loss']
        optimizer = model.configure_optimizers(weight_decay, learning_rate)
        if init_from == 'resume':
            optimizer.load_state_dict(checkpoint['optimizer'])
        checkpoint = None
        while True:
            checkpoint = {'model': raw_model.state_dict(), 'optimizer': optimizer.state_dict(),
                          'iter_num': iter_num, 'best_val_loss': best_val_loss}
            torch.save(checkpoint, 'ckpt.pt')
    """
    codes = [f.code for f in analyze(textwrap.dedent(source)) if f.code.startswith("NPU8")]
    assert codes == []
    # the same resume without the optimizer restore: the name's later reuse for the saved dict
    # does not hide it (only the uses before `checkpoint = None` belong to the loaded checkpoint)
    dropped = textwrap.dedent(source).replace("    optimizer.load_state_dict(checkpoint['optimizer'])", "    pass")
    found = of_code(analyze(dropped), "NPU807")
    assert [f.line for f in found] == [3] and "'optimizer'" in found[0].message
