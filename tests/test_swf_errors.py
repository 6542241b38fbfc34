"""read_swf rejects a bad trace with one error naming the file, the line, the field and the
value, and how to fix it: nothing is silently dropped, truncated or read as something else.

SWF fields are numbers, -1 when missing (counts whole; times may have fractions, as SWF
v2.2 allows): ``nan``, ``inf`` and fractions in the counts slurmlab reads are errors, as are a missing submit time, repeated job numbers, header
fields that are not numbers, and files that are not (gzipped) text.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import re

import pytest

from slurmlab.errors import SlurmlabError
from slurmlab.records.swf import SWF_FIELDS, read_swf, read_swf_table

HEADER = "; MaxProcs: 8\n"
GOOD = "1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1"


def record(**fields) -> str:
    """A good SWF record (job 2) with some fields replaced by the given texts."""
    values = dict(zip(SWF_FIELDS, GOOD.split(), strict=True)) | {"job": "2", "submit": "5"}
    values |= {k: str(v) for k, v in fields.items()}
    return " ".join(values[f] for f in SWF_FIELDS)


def write(tmp_path, text: str, name: str = "trace.swf"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def raises_at(path, line: int, *fragments: str):
    """pytest.raises for an error that starts with ``PATH: line N:`` and contains fragments."""
    pattern = re.escape(f"{path}: line {line}: ") + ".*".join(re.escape(f) for f in fragments)
    return pytest.raises(SlurmlabError, match=pattern)


# -- records: the bad record is on line 3, after the header and one good record -----------------
BAD_RECORDS = [
    # (field, text, what the error says after the field and value)
    ("submit", "nan", "not a finite number"),  # it made the simulation hang
    ("submit", "inf", "not a finite number"),
    ("job", "nan", "not a finite number"),
    ("run", "nan", "not a finite number"),
    ("run", "-inf", "not a finite number"),
    ("req_time", "inf", "not a finite number"),
    ("req_time", "Infinity", "not a finite number"),
    ("user", "nan", "not a finite number"),
    ("avg_cpu", "1e400", "not a finite number"),  # overflows to inf
    ("think_time", "NaN", "not a finite number"),
    ("req_time", "ten", "not a number"),
]


@pytest.mark.parametrize(("field", "text", "rule"), BAD_RECORDS)
def test_a_value_that_is_not_a_finite_number_is_an_error(tmp_path, field, text, rule):
    """nan / inf / words in any field: the error names file, line, field and the text."""
    path = write(tmp_path, HEADER + GOOD + "\n" + record(**{field: text}) + "\n")
    with raises_at(path, 3, f"field {field!r} is {text!r}, {rule}"):
        read_swf(path)


FRACTIONS = [
    ("alloc_procs", "0.5"),
    ("req_procs", "2.5"),
    ("job", "1.7"),  # was truncated to job 1
    ("user", "3.25"),
    ("executable", "7.5"),
]


@pytest.mark.parametrize(("field", "text"), FRACTIONS)
def test_a_fraction_in_a_field_read_as_a_whole_number_is_an_error(tmp_path, field, text):
    """Processors, job numbers, users: a fraction is an error, never truncated (times may
    have fractions, SWF v2.2: see test_qa_stop25_swf)."""
    path = write(tmp_path, HEADER + GOOD + "\n" + record(**{field: text}) + "\n")
    with raises_at(path, 3, f"field {field!r} is {text}, not a whole number"):
        read_swf(path)


MISSING = [
    ("submit", "-1", "field 'submit' is -1 (SWF's missing): a job needs its submit time"),
    ("submit", "-30", "field 'submit' is -30: a job needs its submit time"),
    ("job", "-1", "field 'job' is -1 (SWF's missing): every record needs its job number"),
]


@pytest.mark.parametrize(("field", "text", "message"), MISSING)
def test_a_missing_submit_time_or_job_number_is_an_error(tmp_path, field, text, message):
    """A job cannot be replayed without its submit time or named without its number."""
    path = write(tmp_path, HEADER + GOOD + "\n" + record(**{field: text}) + "\n")
    with raises_at(path, 3, message, "fix or delete the line"):
        read_swf(path)


def test_a_repeated_job_number_names_both_lines(tmp_path):
    """Job numbers are unique: the error names the repeating line and the first one."""
    path = write(tmp_path, HEADER + GOOD + "\n" + record(job=3) + "\n" + record(job=1) + "\n")
    with raises_at(path, 4, "field 'job': job number 1 repeats the one on line 2"):
        read_swf(path)


def test_the_first_bad_line_in_the_file_is_the_one_named(tmp_path):
    """Whatever the rule each breaks, the error names the earliest bad line."""
    path = write(
        tmp_path,
        HEADER + GOOD + "\n" + record(job=2, submit=-1) + "\n" + record(job=3, req_procs=0.5),
    )
    with raises_at(path, 3, "field 'submit' is -1"):
        read_swf(path)


def test_huge_finite_values_are_not_mistaken_for_infinity(tmp_path):
    """Two values whose sum overflows are still finite numbers (here, in unused fields)."""
    path = write(tmp_path, HEADER + record(avg_cpu="1e308", used_mem="1e308") + "\n")
    assert len(read_swf(path)) == 1


def test_unused_fields_may_hold_fractions(tmp_path):
    """Fields slurmlab does not read (average CPU time, memory...) are kept as written."""
    path = write(tmp_path, HEADER + record(avg_cpu="12.75", used_mem="0.5") + "\n")
    table, _ = read_swf_table(path)
    assert list(table["avg_cpu"]) == [12.75]
    assert [j.id for j in read_swf(path).jobs] == ["2"]


# -- header fields --------------------------------------------------------------------------
BAD_HEADERS = [
    # (header lines, the line and field named, the value, a fragment of the fix)
    ("; MaxProcs: 100 (in 4 partitions)\n", 1, "MaxProcs", "100 (in 4 partitions)", "--procs N"),
    ("; MaxProcs: many\n", 1, "MaxProcs", "many", "not a whole number"),
    ("; MaxProcs: nan\n", 1, "MaxProcs", "nan", "not a whole number"),
    ("; MaxProcs:\n", 1, "MaxProcs", "", "not a whole number"),
    ("; MaxProcs: 12.5\n", 1, "MaxProcs", "12.5", "not a whole number"),
    ("; MaxProcs: 0\n", 1, "MaxProcs", "0", "at least 1 processor"),
    ("; MaxProcs: -4\n", 1, "MaxProcs", "-4", "at least 1 processor"),
    ("; Version: 2.2\n; MaxNodes: lots\n", 2, "MaxNodes", "lots", "not a whole number"),
    ("; MaxProcs: -1\n; MaxNodes: 0\n", 2, "MaxNodes", "0", "at least 1 processor"),
    ("; UnixStartTime: 843480031.5\n", 1, "UnixStartTime", "843480031.5", "whole seconds"),
    ("; MaxProcs: 8\n; UnixStartTime: soon\n", 2, "UnixStartTime", "soon", "whole seconds"),
]


@pytest.mark.parametrize(("header", "line", "field", "value", "fix"), BAD_HEADERS)
def test_a_header_field_that_is_not_a_whole_number_is_an_error(
    tmp_path, header, line, field, value, fix
):
    """MaxProcs, MaxNodes, UnixStartTime: never ignored or half-read when malformed."""
    path = write(tmp_path, header + GOOD + "\n")
    with raises_at(path, line, f"header field {field!r} is {value!r}", fix):
        read_swf(path)


def test_procs_replaces_a_malformed_max_procs(tmp_path):
    """--procs (procs=) sets the machine, so a header the reader cannot use is not read."""
    path = write(tmp_path, "; MaxProcs: 100 (in 4 partitions)\n" + GOOD + "\n")
    assert read_swf(path, procs=100).max_procs == 100


# -- files that are not SWF text ------------------------------------------------------------
def test_a_truncated_gzip_file_is_an_error_naming_it(tmp_path):
    path = tmp_path / "trace.swf.gz"
    path.write_bytes(gzip.compress((HEADER + GOOD + "\n").encode() * 50)[:40])
    with pytest.raises(SlurmlabError, match=re.escape(f"{str(path)!r}: cannot read its gzip")):
        read_swf(path)


def test_a_gzip_file_cut_after_some_lines_names_the_last_line_read(tmp_path):
    path = tmp_path / "trace.swf.gz"
    lines = "".join(record(job=n, submit=n) + "\n" for n in range(1, 5001))
    data = gzip.compress((HEADER + lines).encode())
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(SlurmlabError, match=r"cannot read its gzip data after line \d+ .*corrupt"):
        read_swf(path)


def test_a_corrupt_gzip_header_is_an_error_naming_the_file(tmp_path):
    path = tmp_path / "trace.swf.gz"
    path.write_bytes(b"\x1f\x8b\x07\x00" + b"\x00" * 6 + b"x" * 12)  # unknown method 7
    with pytest.raises(SlurmlabError, match="trace.swf.gz.*Unknown compression method"):
        read_swf(path)


@pytest.mark.parametrize(
    ("compress", "kind"), [(bz2.compress, "bzip2"), (lzma.compress, "xz")], ids=["bz2", "xz"]
)
def test_another_compression_is_an_error_saying_how_to_undo_it(tmp_path, compress, kind):
    path = tmp_path / "trace.swf"
    path.write_bytes(compress((HEADER + GOOD + "\n").encode()))
    with pytest.raises(SlurmlabError, match=f"'{re.escape(str(path))}' is {kind}-compressed"):
        read_swf(path)


def test_a_directory_is_an_error_naming_it(tmp_path):
    folder = tmp_path / "traces.swf"
    folder.mkdir()
    with pytest.raises(SlurmlabError, match=r"traces.swf' is a directory; give a trace file"):
        read_swf(folder)


# -- the machine size argument --------------------------------------------------------------
@pytest.mark.parametrize("procs", [0, -4, 2.5, True, "8"])
def test_procs_must_be_a_whole_number_of_at_least_one(tmp_path, procs):
    """procs=0 used to mean "use MaxProcs" and a negative size was taken as the machine."""
    path = write(tmp_path, HEADER + GOOD + "\n")
    with pytest.raises(SlurmlabError, match=re.escape(f"procs={procs!r}: the machine size")):
        read_swf(path, procs=procs)


def test_procs_and_cluster_together_are_an_error(tmp_path):
    from slurmlab.spec.cluster import Cluster

    path = write(tmp_path, HEADER + GOOD + "\n")
    with pytest.raises(SlurmlabError, match="give procs=8 .* or cluster='tiny', not both"):
        read_swf(path, procs=8, cluster=Cluster.preset("tiny"))
