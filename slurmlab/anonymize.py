"""Replace the people and places in a sacct export by stable pseudonyms, keeping the rest.

Users, groups, accounts, job names, work dirs, comments, submit lines, node names, UIDs/GIDs
(including the uid in ``CANCELLED by 1234``), clusters, WCKeys and reservations are replaced by
keyed hashes (HMAC-SHA256 with ``salt``): the same salt gives the same pseudonym in every
file, so exports of several months still join. Two values never share a pseudonym: UIDs and
GIDs go through a keyed permutation of 0..2**32-1 (one to one, still numbers), and a text
pseudonym that another value already has is made longer. Rows are split exactly as
``read_sacct`` splits them (a delimiter inside a free-text value, a newline inside a value,
an appended export with fewer columns); a line that cannot be split safely is refused, since
part of a value could otherwise pass through unchanged. A column that is not one of sacct's
fields (a site's own, or a header's unknown name) is pseudonymised whole, since nothing says
what it holds. The other fields are kept, so
``read_sacct`` reads the result like the original. ``#`` comment lines are dropped (they are
free text). Without a salt a random one is drawn and the pseudonyms cannot be reproduced.

Pseudonyms made by slurmlab before 2026-12-03 do not match the ones made now, even with the
same salt (text pseudonyms grew from 5 to 6 digest bytes, and UIDs/GIDs went from
``10M + hash mod`` to the keyed permutation), so files anonymized then do not join with files
anonymized now: re-anonymize the old files (from the originals) with the same salt.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import math
import numbers
import os
import re
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain, islice

import hostlist
import pandas as pd

from slurmlab.errors import SlurmlabError
from slurmlab.paths import same_file
from slurmlab.records.sacct import (
    SACCT_FIELDS,
    SacctParseError,
    _Found,
    _is_parsable,
    _layout,
    _Line,
    _line_items,
    _line_kind,
    _load_bytes,
    _resolve_items,
    _text_lines,
    export_lines,
)

__all__ = ["Anonymizer", "AnonymizeResult", "anonymize_file", "anonymize_text"]

#: column -> kind of pseudonym
_TEXT_COLUMNS = {
    "User": "user",
    "Group": "group",
    "Account": "account",
    "JobName": "job",
    "WorkDir": "path",
    "Comment": "text",
    "AdminComment": "text",
    "SystemComment": "text",
    "SubmitLine": "text",
    "StdOut": "path",
    "StdErr": "path",
    "StdIn": "path",
    "Cluster": "cluster",
    "WCKey": "wckey",
    "Reservation": "resv",
    "McsLabel": "text",
    "Extra": "text",
}
_NUMBER_COLUMNS = {"UID": "uid", "GID": "gid"}
_NODE_COLUMNS = {
    "NodeList",
    "FailedNode",
    "MaxRSSNode",
    "MaxVMSizeNode",
    "MaxDiskReadNode",
    "MaxDiskWriteNode",
    "MinCPUNode",
    "MaxPagesNode",
}
_STEP_NAMES = {"batch", "extern", "interactive"}
_KEEP = {"", "None assigned", "Unknown", "None", "(null)", '""'}


@dataclass
class AnonymizeResult:
    """What :func:`anonymize_file` did: values replaced and the mapping (kind, original) -> new."""

    replaced: int = 0
    # kept out of the repr: a notebook showing the result must not print (and save) the
    # secret original -> pseudonym pairs
    mapping: dict[tuple[str, str], str] = field(default_factory=dict, repr=False)

    def __repr__(self) -> str:
        kinds = sorted({kind for kind, _ in self.mapping})
        return (
            f"AnonymizeResult(replaced={self.replaced}, {len(self.mapping)} pseudonyms of "
            f"{', '.join(kinds) or 'nothing'}; .mapping holds the private key to them)"
        )


_CANCELLED_BY = re.compile(r"^(\s*CANCELLED by )(\S+)(.*)$")


class Anonymizer:
    """Keyed, stable pseudonyms: ``Anonymizer(salt).pseudonym("user", "ann")``.

    Within one Anonymizer two values of a kind never share a pseudonym.
    """

    def __init__(self, salt: str | int | None = None) -> None:
        salt = _salt(salt, "Anonymizer")
        self.salt = (salt if salt is not None else secrets.token_hex(16)).encode("utf-8")
        self.result = AnonymizeResult()
        self._owner: dict[tuple[str, str], str] = {}  # (kind, pseudonym) -> original
        # a node list -> (its pseudonym, the names it replaced, their (kind, name) ->
        # pseudonym pairs): an export repeats its node lists on every step row, and expanding
        # and collecting them was half the time
        self._node_lists: dict[str, tuple[str, int, tuple]] = {}

    def _digest(self, kind: str, value: str) -> bytes:
        return hmac.new(self.salt, f"{kind}\x00{value}".encode(), hashlib.sha256).digest()

    def _short(self, kind: str, value: str) -> str:
        """The pseudonym of a value, unless another value of its kind already has it."""
        digest = self._digest(kind, value)
        return f"n{digest[:6].hex()}" if kind == "node" else f"{kind}_{digest[:6].hex()}"

    def _longer(self, kind: str, value: str, attempt: int) -> str:
        digest = self._digest(f"{kind}\x00{attempt}", value).hex()[:20]
        if kind in ("uid", "gid"):  # still a number, above every permuted id
            return str(2**32 + int(digest, 16))
        return f"n{digest}" if kind == "node" else f"{kind}_{digest}"

    def _permute(self, kind: str, number: int) -> int:
        """A keyed permutation of 0..2**32-1 (an 8-round Feistel network): one to one."""
        left, right = number >> 16, number & 0xFFFF
        for round_ in range(8):
            mix = int.from_bytes(self._digest(f"{kind}-feistel-{round_}", str(right))[:2], "big")
            left, right = right, left ^ mix
        return (left << 16) | right

    def pseudonym(self, kind: str, value: str) -> str:
        if value in _KEEP:
            return value
        key = (kind, value)
        new = self.result.mapping.get(key)
        if new is None:
            number = value.strip()
            numeric = kind in ("uid", "gid")
            if numeric and number.isascii() and number.isdigit() and int(number) < 2**32:
                new = str(self._permute(kind, int(number)))
            else:  # (a uid that is not a 32-bit number: a number above them all)
                new = self._longer(kind, value, 0) if numeric else self._short(kind, value)
                attempt = 0
                while self._owner.get((kind, new), value) != value:
                    attempt += 1  # another value has this pseudonym: make this one longer
                    new = self._longer(kind, value, attempt)
            self._owner[(kind, new)] = value
            self.result.mapping[key] = new
        self.result.replaced += 1
        return new

    def nodes(self, value: str) -> str:
        if value in _KEEP:
            return value
        hit = self._node_lists.get(value)
        if hit is not None:  # (counted and mapped as each name's replacement is: the
            self.result.replaced += hit[1]  # result may be a new one since)
            self.result.mapping.update(hit[2])
            return hit[0]
        before = self.result.replaced
        try:
            names = hostlist.expand_hostlist(value)
        except hostlist.BadHostlist:
            names = [value]
            new = self.pseudonym("node", value)
        else:
            new = hostlist.collect_hostlist([self.pseudonym("node", n) for n in names])
        mapping = self.result.mapping
        pairs = tuple(
            (("node", n), mapping[("node", n)]) for n in dict.fromkeys(names) if n not in _KEEP
        )
        self._node_lists[value] = (new, self.result.replaced - before, pairs)
        return new

    def tres_nodes(self, value: str) -> str:
        """A TRES map whose values are node names (``cpu=cdr735,mem=cdr735``)."""
        if value in _KEEP:
            return value
        items = []
        for item in value.split(","):
            key, sep, node = item.partition("=")
            items.append(f"{key}{sep}{self.nodes(node) if sep else node}")
        return ",".join(items)

    def state(self, value: str) -> str:
        match = _CANCELLED_BY.match(value)
        if not match:
            return value
        return match.group(1) + self.pseudonym("uid", match.group(2)) + match.group(3)

    def field(self, column: str, value: str, is_step: bool) -> str:
        if column in _TEXT_COLUMNS:
            if column == "JobName" and is_step and value in _STEP_NAMES:
                return value
            return self.pseudonym(_TEXT_COLUMNS[column], value)
        if column in _NUMBER_COLUMNS:
            return self.pseudonym(_NUMBER_COLUMNS[column], value)
        if column in _NODE_COLUMNS:
            return self.nodes(value)
        if column.startswith("TRESUsage") and column.endswith("Node"):
            return self.tres_nodes(value)
        if column == "State":
            return self.state(value)
        if column not in _SACCT_NAMES:  # not a sacct field: nobody knows what it holds
            return self.pseudonym("text", value)
        return value


#: sacct's own field names: any other column (a site's extra one) is pseudonymised whole
_SACCT_NAMES = frozenset(SACCT_FIELDS)


def anonymize_text(
    text: str,
    anonymizer: Anonymizer,
    *,
    fields: Sequence[str] | str | None = None,
    delimiter: str | None = None,
    file: str = "<text>",
) -> str:
    """Anonymize the text of a ``-P``/``-p`` export (header or ``fields``) row by row.

    A row split over several lines (a newline inside a value) is written as one line; a line
    that cannot be split safely is a :class:`SacctParseError` and nothing is written.
    """
    out: list[str] = []
    _anonymize_lines(
        enumerate(_text_lines(text), 1),
        anonymizer,
        out.append,
        ending="\r\n" if "\r\n" in text[:65536] else "\n",
        fields=fields,
        delimiter=delimiter,
        file=file,
    )
    return "".join(out)


#: lines anonymized at a time: the rows of one chunk are held (about 15x their size) while
#: it is split and rewritten, never the whole export
CHUNK_LINES = 20_000


def _anonymize_lines(
    lines: Iterable[tuple[int, str]],
    anonymizer: Anonymizer,
    write: Callable[[str], object],
    *,
    ending: str,
    fields: Sequence[str] | str | None,
    delimiter: str | None,
    file: str,
) -> None:
    """Anonymize numbered lines, handing the output to ``write`` a chunk at a time.

    Rows are split as ``read_sacct`` splits them, chunk by chunk: a chunk ends before a line
    that starts a row of the regular width, which no row before it can reach into (a value
    spanning lines) and no run of rows alike can hold (appended rows of fewer fields). A
    :class:`SacctParseError` for the first line that cannot be split safely stops it (what
    was written before is the caller's to throw away)."""
    lines = (
        (number, line)
        for number, line in lines
        if line.strip() and not line.lstrip().startswith("#")
    )
    head = list(islice(lines, 20))
    if not head:
        raise SacctParseError("has no rows to anonymize", file=file)
    sample = [line for _, line in head]
    delim, header, names = _layout(file, sample, fields, delimiter)
    parsable = _is_parsable(sample, header is not None, delim, len(names))
    if header is not None:
        write(head[0][1] + ending)
        head = head[1:]
    pending: list[_Line] = []  # split, not yet resolved into rows
    scanned = 0  # (the pending items before this one are no place to cut)
    headers: list[int] = []  # header lines further down, among them
    texts: dict[int, str] = {}  # their text
    layout = None
    batch: list[tuple[int, str]] = []
    for number, line in chain(head, lines, [(None, None)]):
        if number is not None:
            batch.append((number, line))
            if len(batch) < CHUNK_LINES:
                continue
        known = len(headers)
        more, layout = _line_items(names, delim, parsable, batch, headers, layout)
        if len(headers) > known:  # (kept as they are)
            lookup = dict(batch)
            texts.update((n, lookup[n]) for n in headers[known:])
        pending += more
        batch = []
        cut = len(pending) if number is None else _last_cut(pending, parsable, scanned)
        if not cut and number is not None:
            scanned = len(pending)
            continue  # (no safe place yet: the chunk grows)
        done, pending = pending[:cut], pending[cut:]
        scanned = 0
        upto = pending[0].number if pending else math.inf
        found = _Found([], [], [])
        _resolve_items(done, delim, parsable, found)
        if found.bad:
            bad = min(found.bad, key=lambda b: b.line)
            raise SacctParseError(
                f"{bad.problem}; so it cannot be anonymized safely (part of a value could "
                "pass through unchanged)",
                file=file,
                line=bad.line,
                column=bad.column,
                value=bad.value,
                hint=re.sub(r";? or read with errors='warn'.*$", "", bad.hint),
            )
        out = {n: texts.pop(n) for n in [n for n in headers if n < upto]}
        headers = [n for n in headers if n >= upto]
        for row in found.rows:
            job = row.values[row.names.index("JobID")] if "JobID" in row.names else ""
            new = [
                anonymizer.field(column, value, "." in job)
                for column, value in zip(row.names, row.values)
            ]
            out[row.line] = delim.join(new) + (delim if row.trailing else "")
        write("".join(out[n] + ending for n in sorted(out)))


def _last_cut(items: list[_Line], parsable: bool, scanned: int = 0) -> int:
    """The last position (above 0) before which the items may be resolved on their own, or 0:
    an item that starts a row and sets it apart from no run (see ``_resolve_items``), so no
    row before it continues on it and no run of rows alike reaches over it. (Whether an item
    is such a place depends on it alone: the first ``scanned`` items are known not to be.)"""
    for k in range(len(items) - 1, max(scanned, 1) - 1, -1):
        item = items[k]
        if item.starts:
            kind = _line_kind(item)
            if kind is None or (parsable and kind[0] == "trailing"):
                return k
    return 0


def anonymize_file(
    source: str | os.PathLike,
    output: str | os.PathLike,
    *,
    salt: str | int | None = None,
    fields: Sequence[str] | str | None = None,
    delimiter: str | None = None,
    mapping_path: str | os.PathLike | None = None,
) -> AnonymizeResult:
    """Write an anonymized copy of a sacct export (plain text, even from a .gz).

    The pseudonyms are keyed by ``salt``: the same salt gives the same pseudonyms, so pass one
    to anonymize several exports consistently (they can then be joined). Without one a random
    salt is drawn and every call gives other pseudonyms. A whole number is taken as its
    digits (``salt=42`` is ``salt="42"``).

    ``mapping_path``, when given, receives a CSV of kind, original, pseudonym: keep it private.
    Neither may be the export itself, nor one the other (refused before anything is written).
    """
    salt = _salt(salt, "anonymize_file")
    for what, value in (("source", source), ("output", output), ("mapping_path", mapping_path)):
        if value is None and what == "mapping_path":
            continue
        if not isinstance(value, (str, os.PathLike)):
            kind = "None" if value is None else f"a {type(value).__name__}"
            table = (
                " (to anonymize a job table, write it first: write_sacct(jobs, 'export.psv'))"
                if isinstance(value, pd.DataFrame) and what == "source"
                else ""
            )
            raise SlurmlabError(
                f"anonymize_file: {what} is {kind}, not a file path; give the path of "
                + ("the sacct export" if what == "source" else "the file to write")
                + table
            )
    _refuse_overwrite(source, output, mapping_path)
    name, data = _load_bytes(source, "anonymize_file")
    if data.lstrip()[:1] in (b"{", b"["):
        raise SacctParseError(
            "is a sacct --json export; the anonymizer reads text exports",
            file=name,
            hint="export with sacct -P (or read it with read_sacct and write_sacct first)",
        )
    anonymizer = Anonymizer(salt)
    # The output is kept (as text, about the export's size) and written at the end, in
    # place, as before: a line that cannot be anonymized safely leaves an earlier output as
    # it was, and the file keeps its owner, permissions and links (a pipe or a device,
    # /dev/stdout, is written as any file)
    chunks: list[str] = []
    _anonymize_lines(
        export_lines(data, name),
        anonymizer,
        chunks.append,
        ending="\r\n" if "\r\n" in _head_text(data) else "\n",
        fields=fields,
        delimiter=delimiter,
        file=name,
    )
    with open(output, "w", encoding="utf-8", newline="") as handle:
        handle.writelines(chunks)
    del chunks
    if mapping_path is not None:
        with open(mapping_path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["kind", "original", "pseudonym"])
            for (kind, original), new in sorted(anonymizer.result.mapping.items()):
                writer.writerow([kind, original, new])
    return anonymizer.result


def _head_text(data: bytes) -> str:
    """The export's first 65,536 characters, as ``decode_export`` would read them (a byte
    that is not UTF-8 counts as one character, as Latin-1 reads it), to tell its line ends."""
    return data[: 4 * 65536].decode("utf-8", "surrogateescape")[:65536]


def _salt(salt, who: str) -> str | None:
    """The salt as text: a str, or a whole number as its digits (None: draw one)."""
    if salt is None or isinstance(salt, str):
        return salt
    if isinstance(salt, numbers.Integral) and not isinstance(salt, bool):
        return str(int(salt))
    raise SlurmlabError(
        f"{who}: salt={salt!r} is a {type(salt).__name__}; give text (salt='my-project-2024') "
        "or a whole number, kept private and the same for every export to join"
    )


def _refuse_overwrite(
    source: str | os.PathLike, output: str | os.PathLike, mapping: str | os.PathLike | None
) -> None:
    """The original export must survive, and the mapping must not replace the anonymized copy
    (by any name: ``./x``, a symlink, a hard link)."""
    if isinstance(source, (str, os.PathLike)) and os.path.isfile(source):
        for what, path in (("output", output), ("mapping_path", mapping)):
            if path is not None and same_file(path, source):
                raise SlurmlabError(
                    f"anonymize_file: {what}={str(path)!r} is the export being anonymized "
                    f"({str(source)!r}): writing it would destroy the original; give another path"
                )
    if mapping is not None and same_file(mapping, output):
        raise SlurmlabError(
            f"anonymize_file: output and mapping_path are one file ({str(output)!r}): the "
            "mapping would replace the anonymized export; give each its own path"
        )
