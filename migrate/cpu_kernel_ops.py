"""Registered ops with only a CPU kernel, in an extension that also has a CPU build (NPU508; label rule 48a a-3,
read as label rulings (L28) / (L69): a call that runs the CPU build's code is off CUDA).

An extension built twice, `_X_cpu` (CppExtension) and `_X_cuda` (CUDAExtension), may register ops whose function
has no CUDA kernel at all:

    std::tuple<torch::Tensor, torch::Tensor> subgraph(torch::Tensor idx, torch::Tensor rowptr) {
      if (idx.device().is_cuda()) {
    #ifdef WITH_CUDA
        AT_ERROR("No CUDA version supported");        // the CUDA branch only refuses
    #else
        AT_ERROR("Not compiled with CUDA support");
    #endif
      } else {
        return subgraph_cpu(idx, rowptr);
      }
    }
    static auto registry = torch::RegisterOperators().op("ns::saint_subgraph", &subgraph);

Every caller of `torch.ops.ns.saint_subgraph` already passes CPU tensors, and the CPU build serves them unchanged on
an NPU host: nothing on the calling line is to port. The op is recorded (fact `cpukernelop`, name `cpukernelop:ns::op`)
where the function a `.op("ns::op", &fn)` / `m.def("op", &fn)` registration names is defined in the same C++ source
(`.cpp` / `.cc`), and its body, once each `if (... is_cuda() ...) { ... }` branch holding only errors (`AT_ERROR`,
`TORCH_CHECK(false, ...)`, `throw`) and the preprocessor lines are taken out, names nothing CUDA (no `cuda`, no
`<<<`), and that says it runs the CPU kernel: such a refusing branch was there, or the body calls a `*_cpu(...)`
function (a body handing on to something else, `SPMMSum::apply(...)`, may reach CUDA there). NPU508 leaves its `torch.ops.<ns>.<op>` uses (and the calls through names bound to it) alone when the scan
also builds some extension for the CPU (`cpu_builds`); an op whose CUDA branch calls a kernel (`return op_cuda(...)`)
stays reported.
"""

from __future__ import annotations

import re

from migrate.repo_index import Definition

KIND = "cpukernelop"
_REGISTRATION = re.compile(r"\.\s*(?:op|def)\s*\(\s*\"(?:(\w+)::)?(\w+)[^\"]*\"\s*,\s*&?\s*(\w+)\s*\)")
_LIBRARY = re.compile(r"\bTORCH_LIBRARY(?:_FRAGMENT)?\s*\(\s*(\w+)\s*,")
_IS_CUDA_IF = re.compile(r"\bif\s*\(([^{;]*?\bis_cuda\s*\(\s*\)[^{;]*?)\)\s*\{")
_ERROR = re.compile(r"^\s*(?:AT_ERROR|TORCH_CHECK\s*\(\s*false|throw\b)")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_CPU_CALL = re.compile(r"\b\w+_cpu\s*\(")
_PREPROCESSOR = re.compile(r"^[ \t]*#[^\n]*", re.MULTILINE)


def key(namespace: str, op: str) -> str:
    return f"{KIND}:{namespace}::{op}"


def _block(text: str, start: int) -> int | None:
    """The index just past the `}` closing the `{` at `start`."""
    depth = 0
    for at in range(start, len(text)):
        if text[at] == "{":
            depth += 1
        elif text[at] == "}":
            depth -= 1
            if depth == 0:
                return at + 1
    return None


def _body(text: str, function: str) -> str | None:
    """The body of the function definition `function(...) {...}` in `text` (the first one), or None."""
    for match in re.finditer(r"\b" + re.escape(function) + r"\s*\(", text):
        at, depth = match.end() - 1, 0
        for at in range(match.end() - 1, len(text)):  # the parameter list, parentheses balanced
            depth += text[at] == "("
            depth -= text[at] == ")"
            if depth == 0:
                break
        rest = text[at + 1:at + 200]
        opening = re.match(r"\s*(?:const\s*)?(?:noexcept\s*)?\{", rest)
        if opening is None:
            continue  # a call or a declaration, not the definition
        start = at + 1 + opening.end() - 1
        end = _block(text, start)
        return text[start:end] if end else None
    return None


def _cpu_only(body: str) -> bool:
    body = _COMMENT.sub("", body)
    kept, at = [], 0
    for match in _IS_CUDA_IF.finditer(body):
        if match.start() < at or "!" in match.group(1):
            continue
        end = _block(body, match.end() - 1)
        if end is None:
            return False
        inner = _PREPROCESSOR.sub("", body[match.end():end - 1])
        statements = [s for s in inner.split(";") if s.strip()]
        if not statements or not all(_ERROR.match(s) for s in statements):
            return False  # the CUDA branch runs something: a kernel
        kept.append(body[at:match.start()])
        at = end
    kept.append(body[at:])
    rest = _PREPROCESSOR.sub("", "".join(kept))
    if "cuda" in rest.lower() or "<<<" in rest:
        return False
    # it says so: a CUDA branch that refuses, or a call of the CPU kernel by name (`return neighbor_sample_cpu(...)`);
    # a body handing on to something else (`SPMMSum::apply(...)`, a dispatcher) may reach CUDA there
    return len(kept) > 1 or _CPU_CALL.search(rest) is not None


def cpp_facts(path: str, text: str) -> list[Definition]:
    if not path.endswith((".cpp", ".cc", ".cxx")) or ("RegisterOperators" not in text and "TORCH_LIBRARY" not in text):
        return []
    library = _LIBRARY.search(text)
    out = []
    for match in _REGISTRATION.finditer(text):
        namespace = match.group(1) or (library.group(1) if library else None)
        if namespace is None:
            continue
        body = _body(text, match.group(3))
        if body is not None and _cpu_only(body):
            out.append(Definition(KIND, key(namespace, match.group(2)), path, text.count("\n", 0, match.start()) + 1, False))
    return out


def cpu_kernel_op(index, namespace: str, op: str) -> bool:
    """`torch.ops.<namespace>.<op>` runs only a CPU kernel, and the scan builds an extension for the CPU too."""
    return bool(index.cpu_built) and key(namespace, op) in index.namespaces
