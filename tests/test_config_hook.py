"""The ConfigChecker hook `apply` adds: where it goes, where the pack is written, the run-time switch,
and that a hooked model stays picklable. The runtime tests run the instrumented scripts for real
(msprobe is installed in the development environment)."""
from __future__ import annotations

import json
import os
import textwrap
import zipfile
from pathlib import Path

import pytest

from migrate.codemods.config_check_hooks import DEFAULT_NPU_PACK
from migrate.rewrite import instrument_source
from tests.helpers import run_python

MODEL = '''
import copy
import io
import sys

import torch
import torch.nn as nn
import torch.multiprocessing as mp


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


def evaluate(model):
    model(torch.randn(2, 4))


def main():
    model = Net()
    model.to("cpu")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    if "--string-frame" in sys.argv:  # random calls from a `python -c` / exec frame, as under mp.spawn
        import inspect
        searches = []
        search = inspect.getmodule
        inspect.getmodule = lambda *args, **kwargs: searches.append(1) or search(*args, **kwargs)
        exec(compile("for _ in range(20):\\n    torch.rand(2)\\n", "<string>", "exec"))
        inspect.getmodule = search
        print("MODULE SEARCHES", len(searches))
    for _ in range(2):
        loss = model(torch.randn(3, 4)).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    buf = io.BytesIO()
    torch.save(model, buf)
    clone = copy.deepcopy(model)
    clone(torch.randn(1, 4))
    if "--spawn" in sys.argv:
        p = mp.get_context("spawn").Process(target=evaluate, args=(model,))
        p.start()
        p.join()
        assert p.exitcode == 0, p.exitcode
    print("HOOKS", len(model._forward_pre_hooks), len(clone._forward_pre_hooks))


if __name__ == "__main__":
    main()
'''


def _write_instrumented(tmp_path: Path, source: str = MODEL, zip_path: str = DEFAULT_NPU_PACK) -> Path:
    result = instrument_source(textwrap.dedent(source), zip_path=zip_path)
    assert result.model_found, result.message
    script = tmp_path / "train.py"
    script.write_text(result.text)
    return script


def _run(script: Path, *args, **env):
    full = {k: v for k, v in os.environ.items() if k not in ("RANK", "NPU_MIGRATE_CONFIG_CHECK", "NPU_MIGRATE_CONFIG_CHECK_DIR")}
    full.update(env)
    return run_python(str(script), *args, text=True, cwd=script.parent, env=full, timeout=300)


# ---------------------------------------------------------------- placement (static)
def test_optimizer_built_from_self_in_init_is_hooked_where_the_caller_builds_it():
    source = textwrap.dedent('''
        import torch
        import torch.nn as nn


        class Agent(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)
                self.opt = torch.optim.Adam(self.parameters(), lr=1e-3)


        def main():
            agent = Agent()
            agent.to("cpu")
            agent.train()
            run(agent)
        ''')
    result = instrument_source(source, zip_path="p.zip")
    lines = result.text.splitlines()
    assert result.model_found and "_npu_config_check(self" not in result.text
    hook = lines.index('        _npu_config_check(agent, "p.zip")')
    assert lines[hook - 2] == "    agent.train()" and lines[hook + 1] == "    run(agent)"


def test_self_model_without_a_caller_is_a_manual_item_not_a_hook_in_the_class():
    source = "import torch\n\n\nclass Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n" \
             "        self.opt = torch.optim.SGD(self.parameters(), lr=0.1)\n"
    result = instrument_source(source, zip_path="p.zip")
    assert not result.model_found and result.text == source
    assert "inside its own class" in result.message


def test_optimizer_from_a_model_method_is_hooked_after_the_last_placement():
    source = textwrap.dedent('''
        import torch


        def fit(trainer, module, data):
            module.to(trainer.device)
            module = module.float()
            optimizer = module.configure_optimizers()
            for batch in data:
                optimizer.step()
        ''')
    result = instrument_source(source, zip_path="p.zip")
    lines = result.text.splitlines()
    hook = lines.index('        _npu_config_check(module, "p.zip")')
    assert lines[hook - 2] == "    module = module.float()"
    assert lines[hook + 1] == "    optimizer = module.configure_optimizers()"


def test_optimizer_from_a_factory_handed_the_model_is_hooked_after_the_last_placement():
    """timm's train.py: `optimizer = create_optimizer_v2(model, **optimizer_kwargs(cfg=args))`."""
    source = textwrap.dedent('''
        import torch
        from timm import create_model
        from timm.optim import create_optimizer_v2


        def main(args):
            model = create_model(args.model, num_classes=10)
            model.to(device=args.device)
            optimizer = create_optimizer_v2(model, opt="sgd", lr=0.1)
            scheduler = build_scheduler(optimizer)
        ''')
    result = instrument_source(source, zip_path="p.zip")
    assert result.model_found, result.message
    lines = result.text.splitlines()
    hook = lines.index('        _npu_config_check(model, "p.zip")')
    assert lines[hook - 2] == "    model.to(device=args.device)"
    assert lines[hook + 1] == '    optimizer = create_optimizer_v2(model, opt="sgd", lr=0.1)'
    # a factory handed something not built here first (the function's config parameter): nothing guessed
    other = source.replace("create_optimizer_v2(model,", "create_optimizer_v2(args,")
    assert not instrument_source(other, zip_path="p.zip").model_found


def test_a_model_handed_to_a_trainer_that_builds_its_optimizer_is_hooked_before_the_handoff():
    """karpathy/minGPT projects/adder/adder.py: `Trainer(config.trainer, model, train_dataset)`; the
    optimizer is built in mingpt/trainer.py from `model.configure_optimizers(config)`."""
    source = textwrap.dedent('''
        import torch
        from mingpt.model import GPT
        from mingpt.trainer import Trainer

        if __name__ == "__main__":
            config = get_config()
            train_dataset = AdditionDataset(config.data, split="train")
            model = GPT(config.model)
            model.to("cpu")
            trainer = Trainer(config.trainer, model, train_dataset)
            trainer.run()
        ''')
    result = instrument_source(source, zip_path="p.zip")
    assert result.model_found, result.message
    lines = result.text.splitlines()
    hook = lines.index('        _npu_config_check(model, "p.zip")')
    assert lines[hook - 2] == '    model.to("cpu")'
    assert lines[hook + 1] == "    trainer = Trainer(config.trainer, model, train_dataset)"
    # data or a config handed first is never taken for the model; nothing else bound here: nothing guessed
    for other in ("Trainer(config.trainer, train_dataset)", "Trainer(args.model, train_dataset)"):
        assert not instrument_source(source.replace("Trainer(config.trainer, model, train_dataset)", other)).model_found


def test_a_model_handed_to_a_lightning_fit_by_keyword_is_hooked_after_it_is_built():
    """ashleve/lightning-hydra-template src/train.py: `trainer.fit(model=model, datamodule=datamodule)`,
    the optimizer comes from the LightningModule's `configure_optimizers` (another file)."""
    source = textwrap.dedent('''
        import hydra


        def train(cfg):
            datamodule: LightningDataModule = hydra.utils.instantiate(cfg.data)
            model: LightningModule = hydra.utils.instantiate(cfg.model)
            trainer: Trainer = hydra.utils.instantiate(cfg.trainer)
            if cfg.get("train"):
                trainer.fit(model=model, datamodule=datamodule)
        ''')
    result = instrument_source(source, zip_path="p.zip")
    assert result.model_found, result.message
    lines = result.text.splitlines()
    hook = lines.index('        _npu_config_check(model, "p.zip")')
    assert lines[hook - 2] == "    model: LightningModule = hydra.utils.instantiate(cfg.model)"


def test_the_first_argument_of_a_trainers_fit_is_the_model_even_a_parameter():
    """Lightning examples/fabric/build_your_own_trainer/run.py: `def train(model): ...
    trainer.fit(model, train_loader, val_loader)` (Lightning's `fit(model, train_dataloaders, ...)`)."""
    source = textwrap.dedent('''
        import torch


        def train(model):
            train_loader = torch.utils.data.DataLoader(data, batch_size=64)
            trainer = MyCustomTrainer(accelerator="auto", max_epochs=3)
            trainer.fit(model, train_loader)
        ''')
    result = instrument_source(source, zip_path="p.zip")
    assert result.model_found, result.message
    lines = result.text.splitlines()
    assert lines[lines.index('        _npu_config_check(model, "p.zip")') - 2] == "def train(model):"
    # `fit` on something that is no trainer (an estimator's `fit(X, y)`): nothing guessed
    assert not instrument_source(source.replace("trainer.fit(", "scaler.fit("), zip_path="p.zip").model_found


def test_apply_hooks_an_entry_whose_only_optimizer_is_built_by_its_trainer():
    """The structural step's cheap pre-check must not skip a file without `.parameters()` in it."""
    import ast

    from migrate.rewrite.structural import add_npu_structure

    source = "import torch\nfrom mingpt.trainer import Trainer\n\nmodel = GPT(cfg)\nTrainer(cfg.trainer, model, data).run()\n"
    result = add_npu_structure(source, ast.parse(source), torch_npu=True, transfer=True, hooks=True, zip_path="p.zip")
    assert '_npu_config_check(model, "p.zip")' in result.text, result


def test_a_models_own_parameter_selection_method_names_the_model():
    """lucidrains/PaLM-rlhf-pytorch train.py: `optim = Lion(model.palm_parameters(), lr=...)`."""
    source = "import torch\nfrom lion_pytorch import Lion\n\nmodel = PaLM(dim=8).to(device)\noptim = Lion(model.palm_parameters(), lr=1e-4)\n"
    result = instrument_source(source, zip_path="p.zip")
    assert result.model_found, result.message
    lines = result.text.splitlines()
    assert lines[lines.index('    _npu_config_check(model, "p.zip")') + 1] == "optim = Lion(model.palm_parameters(), lr=1e-4)"


def test_a_class_constructor_named_like_an_optimizer_is_not_a_model_method():
    source = "import torch\nimport torch.optim as optim\n\nmodel = Net()\nopt = optim.SGD(lr=0.1)\n"
    result = instrument_source(source, zip_path="p.zip")
    assert not result.model_found


# ---------------------------------------------------------------- run time


@pytest.mark.runtime
def test_pack_is_per_rank_in_its_folder(tmp_path):
    script = _write_instrumented(tmp_path)
    for rank in ("0", "3"):
        proc = _run(script, RANK=rank)
        assert proc.returncode == 0, proc.stderr[-3000:]
    packs = sorted(p.name for p in (tmp_path / "npu_config_check").iterdir())
    assert packs == ["npu_config_pack_rank0.log", "npu_config_pack_rank0.zip", "npu_config_pack_rank3.log", "npu_config_pack_rank3.zip"]
    assert not list(tmp_path.glob("*.zip"))  # nothing in the working directory itself


@pytest.mark.runtime
def test_pack_folder_from_the_environment(tmp_path):
    script = _write_instrumented(tmp_path)
    out = tmp_path / "run_outputs"
    proc = _run(script, NPU_MIGRATE_CONFIG_CHECK_DIR=str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (out / "npu_config_check" / "npu_config_pack_rank0.zip").is_file()


@pytest.mark.runtime
def test_switched_off_at_run_time(tmp_path):
    script = _write_instrumented(tmp_path)
    proc = _run(script, NPU_MIGRATE_CONFIG_CHECK="0")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not (tmp_path / "npu_config_check").exists()
    assert "HOOKS 0 0" in proc.stdout  # no hook on the model at all


@pytest.mark.runtime
def test_hooked_model_stays_picklable_deepcopyable_and_spawnable(tmp_path):
    script = _write_instrumented(tmp_path)
    proc = _run(script, "--spawn")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "HOOKS 1 0" in proc.stdout  # the running model keeps msprobe's hook; its copy goes without
    assert (tmp_path / "npu_config_check" / "npu_config_pack_rank0.zip").is_file()


@pytest.mark.runtime
def test_msprobe_hook_alone_breaks_pickling(tmp_path):
    """The control for the test above: msprobe's own hook is a closure (docs/config_check.md)."""
    code = textwrap.dedent('''
        import io, torch
        from msprobe.core.config_check import ConfigChecker
        model = torch.nn.Linear(2, 2)
        ConfigChecker(model, output_zip_path="pack.zip", fmk="pytorch")
        torch.save(model, io.BytesIO())
        ''')
    proc = run_python("-c", code, text=True, cwd=tmp_path, timeout=300)
    assert proc.returncode != 0 and "pickle" in proc.stderr.lower()


def test_a_wrapped_model_is_hooked_on_the_module_it_wraps(tmp_path, monkeypatch):
    """facebookresearch/vicreg calls `model.forward(x, y)` on its DDP wrapper: forward pre-hooks on the
    wrapper never fire and the pack held env and pip only; the wrapped module is called either way.
    The generated helper runs here against a recording ConfigChecker and a minimal torch.nn.Module."""
    import collections
    import io
    import sys
    import types

    from migrate.codemods import config_check_hooks as hooks

    class Module:
        def __init__(self):
            self._forward_pre_hooks = collections.OrderedDict()

    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(nn=types.SimpleNamespace(Module=Module)))
    given = []

    class Recorder:
        def __init__(self, model, output_zip_path, fmk):
            given.append(model)

    namespace = {"ConfigChecker": Recorder, hooks.SETUP: types.SimpleNamespace(started=0.0, output=io.StringIO())}
    exec(compile(hooks._HELPER, "helper", "exec"), namespace)
    class DistributedDataParallel(Module):
        pass

    class DataParallel(Module):
        pass

    inner, wrapper = Module(), DistributedDataParallel()
    wrapper.module = DataParallel()
    wrapper.module.module = inner  # DDP(DataParallel(net)): unwrapped all the way
    namespace[hooks.HELPER](wrapper, str(tmp_path / "pack.zip"))
    # a model of the user's that holds a submodule named `module` is no wrapper: hooked itself
    own = Module()
    own.module = Module()
    namespace[hooks.HELPER](own, str(tmp_path / "pack.zip"))
    assert given == [inner, own]


def test_a_hook_that_raises_is_logged_and_removed_never_stopping_the_run(tmp_path, monkeypatch):
    """tkipf/pygcn hands its model a sparse adjacency: msprobe's dataset checker measures every input
    (`max`) and raised from the hook, so the instrumented script died where the user's run trains."""
    import collections
    import io
    import sys
    import types

    from migrate.codemods import config_check_hooks as hooks

    class Module:
        def __init__(self):
            self._forward_pre_hooks = collections.OrderedDict()
            self._forward_pre_hooks_with_kwargs = {}

    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(nn=types.SimpleNamespace(Module=Module)))
    calls = []

    class RaisingChecker:  # registers a pre-hook the way msprobe does (with_kwargs), which fails on a sparse input
        def __init__(self, model, output_zip_path, fmk):
            def hook(module, args, kwargs):
                calls.append(args)
                raise NotImplementedError("Could not run 'aten::max' with arguments from the 'SparseCPU' backend")
            model._forward_pre_hooks[7] = hook
            model._forward_pre_hooks_with_kwargs[7] = True

    namespace = {"ConfigChecker": RaisingChecker, hooks.SETUP: types.SimpleNamespace(started=0.0, output=io.StringIO())}
    exec(compile(hooks._HELPER, "helper", "exec"), namespace)
    model = Module()
    namespace[hooks.HELPER](model, str(tmp_path / "pack.zip"))
    for _ in range(2):  # two forwards, as torch's _call_impl runs the pre-hooks
        for hook in list(model._forward_pre_hooks.values()):
            assert hook(model, ("x", "sparse adj"), {}) is None
    assert calls == [("x", "sparse adj")]  # ran once, then gone
    assert 7 not in model._forward_pre_hooks and 7 not in model._forward_pre_hooks_with_kwargs
    log = (tmp_path / "pack.log").read_text()
    assert "forward pre-hook removed, it raised NotImplementedError: Could not run 'aten::max'" in log


def test_an_item_msprobe_cannot_collect_is_dropped_and_the_others_go_on(tmp_path, monkeypatch):
    """As msprobe 26.2 does (config_checker.py): the pack registers one collector per item in the class
    list `ConfigChecker.pre_forward_fun_list`, and the hook runs them in turn. pygcn's sparse input
    breaks the dataset collector only: weights and random must still be packed at every forward."""
    import collections
    import io
    import sys
    import types

    from migrate.codemods import config_check_hooks as hooks

    class Module:
        def __init__(self):
            self._forward_pre_hooks = collections.OrderedDict()
            self._forward_pre_hooks_with_kwargs = {}

    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(nn=types.SimpleNamespace(Module=Module)))
    packed = []

    class MsprobeLike:
        pre_forward_fun_list = []

        def __init__(self, model, output_zip_path, fmk):
            def collect_input(module, args, kwargs, step):
                raise NotImplementedError("Could not run 'aten::max' with arguments from the 'SparseCPU' backend")

            def collect_weights(module, args, kwargs, step):
                packed.append(("weights", step))

            def hook(module, args, kwargs):
                for collect in MsprobeLike.pre_forward_fun_list:
                    collect(module, args, kwargs, len(packed))

            MsprobeLike.pre_forward_fun_list += [collect_input, collect_weights]
            model._forward_pre_hooks[3] = hook
            model._forward_pre_hooks_with_kwargs[3] = True

    namespace = {"ConfigChecker": MsprobeLike, hooks.SETUP: types.SimpleNamespace(started=0.0, output=io.StringIO())}
    exec(compile(hooks._HELPER, "helper", "exec"), namespace)
    model = Module()
    namespace[hooks.HELPER](model, str(tmp_path / "pack.zip"))
    for _ in range(2):
        for hook in list(model._forward_pre_hooks.values()):
            hook(model, ("x", "sparse adj"), {})
    assert packed == [("weights", 0), ("weights", 1)] and 3 in model._forward_pre_hooks
    assert "collect_input dropped, it raised NotImplementedError" in (tmp_path / "pack.log").read_text()


def test_a_model_that_takes_no_pre_hook_still_runs_and_packs_env_and_pip(tmp_path, monkeypatch):
    """pyg-team/pytorch_geometric examples/jit/gin.py trains `torch.jit.script(model)`: msprobe 26.2
    registers its pre-hook in ConfigChecker.__init__ (config_checker.py `pack`), a ScriptModule refuses
    it, and the instrumented original died before its first step (validate: ERROR, nothing compared).
    The run must go on, the pack must still hold what needs no hook (msprobe's `ConfigChecker(None)`)."""
    import collections
    import io
    import sys
    import types

    from migrate.codemods import config_check_hooks as hooks

    class Module:
        def __init__(self):
            self._forward_pre_hooks = collections.OrderedDict()
            self._forward_pre_hooks_with_kwargs = {}

    class ScriptModule(Module):  # torch.jit.RecursiveScriptModule's answer
        def register_forward_pre_hook(self, hook, with_kwargs=False):
            raise RuntimeError("register_forward_pre_hook is not supported on ScriptModules")

    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(nn=types.SimpleNamespace(Module=Module)))
    packed = []

    class MsprobeLike:  # as msprobe's pack(): hook first (when there is a model), then every item that needs none
        def __init__(self, model, output_zip_path, fmk):
            if model:
                model.register_forward_pre_hook(lambda *args: None, with_kwargs=True)
            packed.append(("env", "pip", output_zip_path))

    namespace = {"ConfigChecker": MsprobeLike, hooks.SETUP: types.SimpleNamespace(started=0.0, output=io.StringIO())}
    exec(compile(hooks._HELPER, "helper", "exec"), namespace)
    model = ScriptModule()
    namespace[hooks.HELPER](model, str(tmp_path / "pack.zip"))
    assert packed == [("env", "pip", str(tmp_path / "pack.zip"))]
    assert type(model) is ScriptModule and not model._forward_pre_hooks
    log = (tmp_path / "pack.log").read_text()
    assert "forward pre-hook not placed on ScriptModule, it raised RuntimeError: register_forward_pre_hook is not" \
           " supported on ScriptModules; dataset, weights and random not packed" in log


@pytest.mark.runtime
def test_hook_on_a_compiled_module_writes_its_pack(tmp_path):
    """msprobe's ConfigChecker asks `if model:`, which a torch.compile'd module answers with len() of
    the module it wraps (TypeError for a plain layer): the hook must attach and pack all the same."""
    source = MODEL.replace("    model = Net()\n", '    model = torch.compile(Net(), backend="eager")\n')
    assert source != MODEL
    proc = _run(_write_instrumented(tmp_path, source))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "HOOKS 1 0" in proc.stdout
    assert (tmp_path / "npu_config_check" / "npu_config_pack_rank0.zip").is_file()


@pytest.mark.runtime
def test_rerun_rewrites_one_pack_and_msprobe_stays_off_the_terminal(tmp_path):
    """msprobe appends to the zip (a re-run duplicated every entry, with zipfile's `Duplicate name`
    warnings) and prints INFO lines into the training output: the pack is emptied first, and what
    msprobe says goes to the pack's .log."""
    script = _write_instrumented(tmp_path)
    for _ in range(2):
        proc = _run(script)
        assert proc.returncode == 0, proc.stderr[-3000:]
        for stream in (proc.stdout, proc.stderr):
            assert "config checking" not in stream and "[INFO]" not in stream and "Duplicate name" not in stream, stream
    pack = tmp_path / "npu_config_check" / "npu_config_pack_rank0.zip"
    names = zipfile.ZipFile(pack).namelist()
    assert "random/rank0.json" in names and len(names) == len(set(names)), names
    log = (tmp_path / "npu_config_check" / "npu_config_pack_rank0.log").read_text()
    assert "pack result zip path" in log and "random/rank0.json" in log  # msprobe's lines, this run's only
    assert log.count("pack result zip path") == 1


@pytest.mark.runtime
def test_random_calls_from_a_string_frame_skip_inspects_module_search(tmp_path):
    """msprobe's tracker ran inspect.getframeinfo on every frame of every random call; for a `<string>`
    frame (mp.spawn children, exec) that searches all loaded modules: 23 ms a call. The hook's walk
    reads lines from linecache and records the same text (what `msprobe config_check` compares)."""
    script = _write_instrumented(tmp_path)
    proc = _run(script, "--string-frame")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "MODULE SEARCHES 0" in proc.stdout, proc.stdout
    with zipfile.ZipFile(tmp_path / "npu_config_check" / "npu_config_pack_rank0.zip") as pack:
        stacks = [entry["stack"] for entry in json.loads(pack.read("random/rank0.json"))["torch.rand"]]
    inner = next(stack for stack in stacks if stack[-1].startswith(f"File {tmp_path / '<string>'}, line 2, in <module>"))
    assert f"File {script}, line " in inner[-2] and "in main, exec(compile(" in inner[-2], inner
    assert inner[-1].endswith("in <module>, ")  # no source line for a `<string>` frame, as inspect gave


SPAWNED = '''
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def main(rank, world_size):
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model(torch.randn(3, 4)).sum().backward()
    opt.step()
    dist.destroy_process_group()


if __name__ == "__main__":
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=sys.argv[1])
    mp.spawn(main, args=(2,), nprocs=2)
'''


@pytest.mark.runtime
def test_mp_spawn_ranks_write_one_pack_each(tmp_path):
    """mp.spawn children have no RANK variable: the rank comes from torch.distributed (before, both
    ranks wrote rank0's pack)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = _run(_write_instrumented(tmp_path, SPAWNED), str(port))
    assert proc.returncode == 0, proc.stderr[-3000:]
    packs = sorted(p.name for p in (tmp_path / "npu_config_check").glob("*.zip"))
    assert packs == ["npu_config_pack_rank0.zip", "npu_config_pack_rank1.zip"]
