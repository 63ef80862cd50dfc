"""FileResult.keeping / FileResult.adding: how the repository-wide passes after the scan drop and add findings."""

from migrate.findings import Category, FileResult, Finding, Severity


def _finding(line: int, code: str) -> Finding:
    return Finding("pkg/ops.py", line, 1, line, 1, code, Severity.ERROR, Category.THIRD_PARTY, f"{code} here")


_RESULT = FileResult("pkg/ops.py", "python", 40, (_finding(3, "NPU501"), _finding(9, "NPU507")), suppressed=1,
                     facts=(("def", "module", "ops_ext", 1, True),))


def test_keeping_drops_only_what_the_test_refuses_and_keeps_the_rest_of_the_result():
    kept = _RESULT.keeping(lambda f: f.code != "NPU507")
    assert [f.line for f in kept.findings] == [3]
    assert (kept.path, kept.kind, kept.lines, kept.suppressed) == ("pkg/ops.py", "python", 40, 1)
    assert kept.facts is _RESULT.facts  # the repository index keys on the facts tuple


def test_keeping_everything_is_the_same_result():
    assert _RESULT.keeping(lambda f: True) is _RESULT


def test_adding_puts_new_findings_in_report_order_and_counts_suppressed_ones():
    added = _RESULT.adding([_finding(5, "NPU508"), _finding(1, "NPU505")], suppressed=2)
    assert [(f.line, f.code) for f in added.findings] == [(1, "NPU505"), (3, "NPU501"), (5, "NPU508"), (9, "NPU507")]
    assert added.suppressed == 3
    assert _RESULT.adding([]) is _RESULT
