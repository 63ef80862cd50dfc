"""summary.html of validate and profile: their summary.md rendered as a real HTML page, stdlib only.

The Markdown these commands write uses a small subset, and only that is rendered: `#` headings,
paragraphs, `- ` lists, `|` tables (`<br>` inside a cell), ``` fences, `code`, **bold**, [links](href)
and ![images](src).
Every piece of text is HTML-escaped before any markup is added (a script path or an error message
holding `<script>` stays text). An image whose src is in `images` (its bytes) is embedded as a data
URI, so the page is one file that still shows the plot when mailed or attached to a CI run. A link
to anything but a relative path or http(s) is shown as text.
"""

from __future__ import annotations

import base64
import html
import re

_STYLE = ("body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em;line-height:1.4}"
          "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;vertical-align:top}"
          "code,pre{background:#f4f4f4}pre{padding:.5em;overflow-x:auto}img{max-width:100%}")
_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_SAFE_HREF = re.compile(r"^(https?://|[^:]*$)")  # http(s) or no scheme at all


def render(markdown: str, *, title: str, images: dict[str, bytes] | None = None) -> str:
    images = images or {}
    body: list[str] = []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), len(lines))
            body.append("<pre><code>" + html.escape("\n".join(lines[i + 1:end])) + "</code></pre>")
            i = end + 1
        elif re.match(r"#{1,6} ", line):
            level = len(line) - len(line.lstrip("#"))
            body.append(f"<h{level}>{_inline(line[level + 1:], images)}</h{level}>")
            i += 1
        elif line.startswith("|"):
            end = next((j for j in range(i, len(lines)) if not lines[j].startswith("|")), len(lines))
            body.append(_table(lines[i:end], images))
            i = end
        elif line.startswith("- "):
            end = next((j for j in range(i, len(lines)) if not lines[j].startswith("- ")), len(lines))
            body.append("<ul>" + "".join(f"<li>{_inline(item[2:], images)}</li>" for item in lines[i:end]) + "</ul>")
            i = end
        elif line.strip():
            end = next((j for j in range(i, len(lines)) if not lines[j].strip() or _starts_block(lines[j])), len(lines))
            body.append("<p>" + " ".join(_inline(text, images) for text in lines[i:end]) + "</p>")
            i = max(end, i + 1)
        else:
            i += 1
    return (f"<!doctype html>\n<html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{_STYLE}</style></head>\n<body>\n" + "\n".join(body) + "\n</body></html>\n")


def _starts_block(line: str) -> bool:
    return line.startswith(("```", "|", "- ")) or bool(re.match(r"#{1,6} ", line))


def _cells(row: str) -> list[str]:
    row = row.strip()
    row = row[1:] if row.startswith("|") else row
    row = row[:-1] if row.endswith("|") and not row.endswith("\\|") else row
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", row)]


def _table(rows: list[str], images) -> str:
    head, rest = rows[0], rows[1:]
    if rest and re.fullmatch(r"\|?[\s:|-]+\|?", rest[0]):
        rest = rest[1:]
    out = ["<table><thead><tr>" + "".join(f"<th>{_cell(c, images)}</th>" for c in _cells(head)) + "</tr></thead><tbody>"]
    out += ["<tr>" + "".join(f"<td>{_cell(c, images)}</td>" for c in _cells(row)) + "</tr>" for row in rest]
    return "".join(out) + "</tbody></table>"


def _cell(text: str, images) -> str:
    """A table cell: `<br>` is the one HTML tag the summaries write (a line break inside a cell)."""
    return "<br>".join(_inline(part, images) for part in text.split("<br>"))


def _inline(text: str, images) -> str:
    parts = text.split("`")
    out = []
    for index, part in enumerate(parts):
        if index % 2 == 1 and index < len(parts) - 1:  # between a pair of backticks
            out.append(f"<code>{html.escape(part)}</code>")
            continue
        if index % 2 == 1:  # an unpaired backtick: as written
            part = "`" + part
        escaped = html.escape(part)
        escaped = _IMAGE.sub(lambda m: _image(m, images), escaped)
        escaped = _LINK.sub(_link, escaped)
        out.append(_BOLD.sub(r"<strong>\1</strong>", escaped))
    return "".join(out)


def _image(match: re.Match, images) -> str:
    alt, src = match.group(1), html.unescape(match.group(2))
    data = images.get(src)
    if data is not None:
        kind = "svg+xml" if src.lower().endswith(".svg") else "png"  # an SVG in <img> runs no script
        return f'<img alt="{alt}" src="data:image/{kind};base64,{base64.b64encode(data).decode()}">'
    return f'<img alt="{alt}" src="{html.escape(src)}">' if _SAFE_HREF.match(src) else match.group(0)


def _link(match: re.Match) -> str:
    label, href = match.group(1), html.unescape(match.group(2))
    return f'<a href="{html.escape(href)}">{label}</a>' if _SAFE_HREF.match(href) else match.group(0)
