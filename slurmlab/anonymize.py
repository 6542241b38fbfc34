"""Replace the people and places in a sacct export by stable pseudonyms, keeping the rest.

Users, groups, accounts, job names, work dirs, comments, submit lines, node names, UIDs/GIDs
(including the uid in ``CANCELLED by 1234``), clusters, WCKeys and reservations are replaced by
keyed hashes (HMAC-SHA256 with ``salt``): the same salt gives the same pseudonym in every
file, so exports of several months still join. Every other byte of a row is kept, so
``read_sacct`` reads the result like the original. ``#`` comment lines are dropped (they are
free text). Without a salt a random one is drawn and the pseudonyms cannot be reproduced.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import os
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import hostlist

from slurmlab.records.sacct import (
    SacctParseError,
    _layout,
    _load_bytes,
    _merge_free_text,
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


class Anonymizer:
    """Keyed, stable pseudonyms: ``Anonymizer(salt).pseudonym("user", "ann")``."""

    def __init__(self, salt: str | None = None) -> None:
        self.salt = (salt if salt is not None else secrets.token_hex(16)).encode("utf-8")
        self.result = AnonymizeResult()

    def _digest(self, kind: str, value: str) -> bytes:
        return hmac.new(self.salt, f"{kind}\x00{value}".encode(), hashlib.sha256).digest()

    def pseudonym(self, kind: str, value: str) -> str:
        if value in _KEEP:
            return value
        key = (kind, value)
        if key not in self.result.mapping:
            digest = self._digest(kind, value)
            if kind in ("uid", "gid"):
                new = str(10_000_000 + int.from_bytes(digest[:4], "big") % 90_000_000)
            elif kind == "node":
                new = f"n{digest[:4].hex()}"
            else:
                new = f"{kind}_{digest[:5].hex()}"
            self.result.mapping[key] = new
        self.result.replaced += 1
        return self.result.mapping[key]

    def nodes(self, value: str) -> str:
        if value in _KEEP:
            return value
        try:
            names = hostlist.expand_hostlist(value)
        except hostlist.BadHostlist:
            return self.pseudonym("node", value)
        return hostlist.collect_hostlist([self.pseudonym("node", n) for n in names])

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
        match = re.match(r"^(\s*CANCELLED by )(\S+)(.*)$", value)
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
        return value


def anonymize_text(
    text: str,
    anonymizer: Anonymizer,
    *,
    fields: Sequence[str] | str | None = None,
    delimiter: str | None = None,
    file: str = "<text>",
) -> str:
    """Anonymize the text of a ``-P``/``-p`` export (header or ``fields``) line by line."""
    lines = text.splitlines(keepends=True)
    data = [
        (i, line)
        for i, line in enumerate(lines, 1)
        if line.strip() and not line.lstrip().startswith("#")
    ]
    if not data:
        raise SacctParseError("has no rows to anonymize", file=file)
    sample = [line.rstrip("\r\n") for _, line in data[:20]]
    delim, header, names = _layout(file, sample, fields, delimiter)
    n = len(names)
    job_col = names.index("JobID") if "JobID" in names else None
    out: list[str] = []
    skip_header = header is not None
    for number, line in data:
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        if skip_header:
            skip_header = False
            out.append(line)
            continue
        pieces = body.split(delim)
        trailing = False
        if len(pieces) == n + 1 and pieces[-1] == "":
            pieces, trailing = pieces[:-1], True
        if len(pieces) < n:
            pieces = pieces + [None] * (n - len(pieces))  # appended exports: fewer columns
        elif len(pieces) > n:
            merged = _merge_free_text(names, pieces[:-1] if pieces[-1] == "" else pieces, delim)
            if merged is None:
                raise SacctParseError(
                    f"has {len(pieces)} fields where the header has {n}; it cannot be anonymized safely",
                    file=file,
                    line=number,
                    hint="export with --delimiter='^|^' so values cannot hold the delimiter",
                )
            trailing = pieces[-1] == ""
            pieces = merged
        is_step = job_col is not None and pieces[job_col] is not None and "." in pieces[job_col]
        new = [
            None if v is None else anonymizer.field(col, v, is_step)
            for col, v in zip(names, pieces)
        ]
        text_row = delim.join(v for v in new if v is not None) + (delim if trailing else "")
        out.append(text_row + ending)
    return "".join(out)


def anonymize_file(
    source: str | os.PathLike,
    output: str | os.PathLike,
    *,
    salt: str | None = None,
    fields: Sequence[str] | str | None = None,
    delimiter: str | None = None,
    mapping_path: str | os.PathLike | None = None,
) -> AnonymizeResult:
    """Write an anonymized copy of a sacct export (plain text, even from a .gz).

    ``mapping_path``, when given, receives a CSV of kind, original, pseudonym: keep it private.
    """
    name, data = _load_bytes(source)
    if data.lstrip()[:1] in (b"{", b"["):
        raise SacctParseError(
            "is a sacct --json export; the anonymizer reads text exports",
            file=name,
            hint="export with sacct -P (or read it with read_sacct and write_sacct first)",
        )
    anonymizer = Anonymizer(salt)
    text = anonymize_text(
        data.decode("utf-8", errors="replace"),
        anonymizer,
        fields=fields,
        delimiter=delimiter,
        file=name,
    )
    Path(output).write_text(text, encoding="utf-8", newline="")
    if mapping_path is not None:
        with open(mapping_path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["kind", "original", "pseudonym"])
            for (kind, original), new in sorted(anonymizer.result.mapping.items()):
                writer.writerow([kind, original, new])
    return anonymizer.result
