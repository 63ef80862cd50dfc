"""One check per module, run in this order by migrate.doctor.runner. Each module has `ID`,
`TITLE` and `run(host, done) -> CheckResult`, where `done` holds the earlier checks' results."""

ORDER = (
    "python_version",
    "packages",
    "cann",
    "driver",
    "cann_stack",
    "cann_python",
    "torch_npu_import",
    "npu_usable",
    "env_vars",
    "tools",
)
