"""A notebook's JSON text with only the changed cells' `source` values rewritten in place: every other
byte (key order, indentation, escapes, the other cells) stays as it was. Re-serialising the parsed
notebook would be shorter but changes the layout of any notebook not written by nbformat itself."""

from __future__ import annotations

import difflib
import json
import re
from json.decoder import scanstring

_WS = re.compile(r"[ \t\n\r]*")


def _source_spans(text: str, cells: set[int]) -> dict[tuple, tuple[int, int]]:
    """Character spans of `cells[i].source` (and of each of its list items) for the given cells.
    Values off that path are skipped by the C decoder; only the path down to them is walked here."""
    decoder = json.JSONDecoder()
    spans: dict[tuple, tuple[int, int]] = {}

    def on_path(path: tuple) -> bool:
        return path[:1] in ((), ("cells",)) and (len(path) < 2 or path[1] in cells) and path[2:3] in ((), ("source",))

    def walk(i: int, path: tuple) -> int:
        i = _WS.match(text, i).end()
        start = i
        if text[i] in "{[" and on_path(path):
            close = "}" if text[i] == "{" else "]"
            i = _WS.match(text, i + 1).end()
            index = 0
            while text[i] != close:
                if close == "}":
                    key, i = scanstring(text, i + 1)
                    i = _WS.match(text, i).end() + 1  # past ':'
                else:
                    key, index = index, index + 1
                i = _WS.match(text, walk(i, path + (key,))).end()
                if text[i] == ",":
                    i = _WS.match(text, i + 1).end()
            end = i + 1
        else:
            _, end = decoder.raw_decode(text, i)
        if len(path) >= 3:  # ("cells", i, "source") and its items
            spans[path] = (start, end)
        return end

    walk(0, ())
    walk = None  # noqa: F841 -- a recursive closure holds its own cell (and the text): a cycle never collected
    return spans


def cell_source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _dump(value: str, ensure_ascii: bool) -> str:
    return json.dumps(value, ensure_ascii=ensure_ascii)


def _split_source(source: str) -> list[str]:
    return source.splitlines(keepends=True) if source else []


def notebook_text(text: str, cells, new_sources: dict[int, str]) -> str:
    """The notebook text with only the changed cells' `source` values rewritten in place."""
    changed = [i for i, s in new_sources.items() if s != cell_source(cells[i])]
    if not changed:
        return text
    spans = _source_spans(text, set(changed))
    ensure_ascii = not any(ord(ch) > 127 for ch in text) and "\\u" in text
    pieces: list[tuple[int, int, str]] = []
    for index in changed:
        start, end = spans[("cells", index, "source")]
        original = cells[index].get("source", "")
        new = new_sources[index]
        if isinstance(original, str):
            pieces.append((start, end, _dump(new, ensure_ascii)))
            continue
        old_items = list(original)
        new_items = _split_source(new)
        element_spans = [spans[("cells", index, "source", k)] for k in range(len(old_items))]
        element_text = [text[s:e] for s, e in element_spans]
        if len(old_items) == len(new_items):
            for k, (old, item) in enumerate(zip(old_items, new_items)):
                if old != item:
                    pieces.append((*element_spans[k], _dump(item, ensure_ascii)))
            continue
        if len(element_spans) >= 2:
            sep = text[element_spans[0][1] : element_spans[1][0]]
        elif element_spans:
            sep = "," + text[start + 1 : element_spans[0][0]]
        else:
            sep = ", "
        open_ws = text[start + 1 : element_spans[0][0]] if element_spans else ""
        close_ws = text[element_spans[-1][1] : end - 1] if element_spans else ""
        matcher = difflib.SequenceMatcher(a=old_items, b=new_items, autojunk=False)
        rendered: list[str] = []
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                rendered += element_text[i1:i2]
            else:
                rendered += [_dump(item, ensure_ascii) for item in new_items[j1:j2]]
        pieces.append((start, end, "[" + open_ws + sep.join(rendered) + close_ws + "]"))
    out = []
    cursor = 0
    for start, end, replacement in sorted(pieces):
        out.append(text[cursor:start])
        out.append(replacement)
        cursor = end
    out.append(text[cursor:])
    return "".join(out)
