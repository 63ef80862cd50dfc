"""summary.html of validate and profile (migrate/report/html_page.py): real HTML rendered from
summary.md (headings, tables, lists, code), the loss plot embedded as a data URI, user text escaped.
Before: the markdown inside one <pre>, the plot a relative <img> that broke once the page moved."""
from __future__ import annotations

import base64
from html.parser import HTMLParser
from pathlib import Path

from checks.profile.findings import PerfFinding, ProfileResult
from checks.profile.report import write_summary as write_profile_summary
from checks.validate.report import write_summary as write_validate_summary
from checks.validate.run import ValidateResult
from migrate.report.html_page import render

HOSTILE = "<script>alert(1)</script> a|b"


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def _parse(page: str) -> _Tags:
    parser = _Tags()
    parser.feed(page)
    return parser


def test_markdown_subset_becomes_elements_and_text_stays_text():
    md = "\n".join(["# Title `x<y>`", "", "Some **bold** and [a link](losses.csv) and [bad](javascript:alert(1)).", "",
                    "| a | b |", "|---|---|", f"| {HOSTILE.replace('|', chr(92) + '|')} | `c` |", "",
                    "- one", "- two <i>", "", "```", "<b>raw</b>", "```", "", "![plot](p.png)"])
    page = render(md, title="t <1>", images={"p.png": b"\x89PNG-bytes"})
    tags = _parse(page)
    assert {"h1", "strong", "a", "table", "th", "td", "ul", "li", "pre", "code", "img"} <= set(tags.tags)
    assert "script" not in tags.tags and "b" not in tags.tags and "i" not in tags.tags
    assert HOSTILE in "".join(tags.text) and "<b>raw</b>" in "".join(tags.text)
    assert tags.tags.count("a") == 1 and 'href="losses.csv"' in page  # the javascript: link stays text
    assert "data:image/png;base64," + base64.b64encode(b"\x89PNG-bytes").decode() in page
    assert tags.tags.count("td") == 2  # the escaped | stayed inside its cell


def test_validate_summary_html_is_rendered_with_the_plot_inside(tmp_path):
    svg = tmp_path / "losses.svg"
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg"><text>plot</text></svg>')
    from checks.validate.loss_compare import LossAlignment, LossRow

    losses = LossAlignment((LossRow(1, 2.0, 2.5, 0.5, 0.25, False),), 1e-3, 1e-5, "float32", 0, 0.5, 0.25)
    result = ValidateResult("fail", 1, (f"losses differ at {HOSTILE}",), tmp_path, True, losses=losses, loss_plot=svg,
                            notes=("<b>a note</b>",))
    _, html_path = write_validate_summary(result)
    page = Path(html_path).read_text()
    tags = _parse(page)
    assert "pre" not in tags.tags and {"h1", "ul", "img", "table"} <= set(tags.tags)
    assert "data:image/svg+xml;base64," + base64.b64encode(svg.read_bytes()).decode() in page
    assert "![losses](losses.svg)" in (tmp_path / "summary.md").read_text()  # summary.md links the file
    assert "script" not in tags.tags and "b" not in tags.tags and HOSTILE in "".join(tags.text)


def test_profile_writes_summary_html_beside_summary_md(tmp_path):
    finding = PerfFinding("host_sync", "/w/train.py", 100, 1.0, "loss.item() <script>x</script>", "log every N steps",
                          2.5, "high", ".item()")
    result = ProfileResult("/w/train.py", "emulated", 0, steps=3, steps_run=4, findings=(finding,), step_time_ms=10.0)
    write_profile_summary(result, str(tmp_path / "summary.md"))
    tags = _parse((tmp_path / "summary.html").read_text())
    assert "table" in tags.tags and "script" not in tags.tags
    assert "loss.item() <script>x</script>" in "".join(tags.text)
