"""migrate/json_configs.py: a GPU-only option value in a JSON arguments file HfArgumentParser parses (NPU503)."""

import pytest

from migrate.engine import scan
from migrate.sources import classify

TRAIN = '''
import argparse

from transformers import HfArgumentParser, TrainingArguments


def setup():
    parser = argparse.ArgumentParser()
    parser.add_argument("--train_args_file", type=str, default="train_args/sft/qlora/qwen-7b-sft-qlora.json")
    args = parser.parse_args()
    parser = HfArgumentParser((TrainingArguments,))
    (training_args,) = parser.parse_json_file(json_file=args.train_args_file)
    return training_args
'''

TRAIN_DICT = '''
import json

from transformers import HfArgumentParser, TrainingArguments

with open("configs/run.json") as f:
    (training_args,) = HfArgumentParser((TrainingArguments,)).parse_dict(json.load(f))
'''

QLORA = """{
    "output_dir": "output/qwen-7b-sft-qlora",
    "learning_rate": 2e-4,
    "gradient_checkpointing": true,
    "optim": "paged_adamw_32bit",
    "fp16": true
}
"""

FULL = """{
    "output_dir": "output/qwen-7b-sft-full",
    "optim": "adamw_hf"
}
"""


def _npu503(tmp_path):
    result = scan([str(tmp_path)], use_cache=False, jobs=1)
    return sorted((f.path.replace(str(tmp_path), "").lstrip("/"), f.line, f.column, f.end_column) for r in result.files
                  for f in r.findings if f.code == "NPU503")


def _repo(tmp_path, script=TRAIN):
    (tmp_path / "train_args" / "sft" / "qlora").mkdir(parents=True)
    (tmp_path / "train_args" / "dpo" / "full").mkdir(parents=True)
    (tmp_path / "train_args" / "sft" / "qlora" / "qwen-7b-sft-qlora.json").write_text(QLORA)
    (tmp_path / "train_args" / "sft" / "qlora" / "yi-6b-sft-qlora.json").write_text(QLORA.replace("qwen-7b", "yi-6b"))
    (tmp_path / "train_args" / "dpo" / "full" / "qwen-7b-dpo-full.json").write_text(FULL)
    if script is not None:
        (tmp_path / "train.py").write_text(script)


def test_each_arguments_file_setting_a_bitsandbytes_optimizer(tmp_path):
    _repo(tmp_path)
    assert _npu503(tmp_path) == [("train_args/sft/qlora/qwen-7b-sft-qlora.json", 5, 5, 33),
                                 ("train_args/sft/qlora/yi-6b-sft-qlora.json", 5, 5, 33)]


def test_parse_dict_of_a_loaded_json_file_is_a_reader(tmp_path):
    _repo(tmp_path, TRAIN_DICT)
    assert [path for path, *_ in _npu503(tmp_path)] == ["train_args/sft/qlora/qwen-7b-sft-qlora.json",
                                                        "train_args/sft/qlora/yi-6b-sft-qlora.json"]


@pytest.mark.parametrize("script", [
    None,  # no Python code reads JSON arguments: the files are data (a saved run's arguments)
    "import json\nargs = json.load(open('train_args/sft/qlora/qwen-7b-sft-qlora.json'))\nprint(args['optim'])\n",
    "from transformers import HfArgumentParser\nargs = HfArgumentParser(()).parse_args_into_dataclasses()\n",
    "import json\nclass Reader:\n    def parse_json_file(self, p):\n        return json.load(open(p))\n"
    "rows = Reader().parse_json_file('train_args/sft/qlora/qwen-7b-sft-qlora.json')\n",
], ids=["no_reader_noop", "json_load_only_noop", "command_line_only_noop", "own_parse_json_file_noop"])
def test_no_hf_argument_parser_json_reader_noop(tmp_path, script):
    _repo(tmp_path, script)
    assert _npu503(tmp_path) == []


def test_json_classification():
    assert classify("package.json") == ()  # a bare name cannot be measured: not read
    assert classify("x.ipynb") == ("notebook",)


def test_large_json_file_is_not_read(tmp_path):
    data = tmp_path / "data.json"
    data.write_text("[" + ",".join(['{"optim": "paged_adamw_32bit"}'] * 20000) + "]")
    small = tmp_path / "args.json"
    small.write_text(QLORA)
    assert classify(str(data)) == ()
    assert classify(str(small)) == ("json-config",)
