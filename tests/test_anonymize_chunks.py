"""The anonymizer reads an export a chunk of lines at a time (so a large export never sits in
memory split into rows): whatever the chunk size, it writes exactly what it writes reading
the whole export at once, refuses the same line with the same error, and leaves nothing
behind when it refuses."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_sacct_public import FIELDS, SACCT

import slurmlab.anonymize as anon
from slurmlab.anonymize import Anonymizer, anonymize_file, anonymize_text
from slurmlab.records.sacct import SacctParseError, SacctParseWarning, read_sacct

HEADER = "JobID|User|JobName|State|Elapsed|Comment"
SHORT_HEADER = "JobID|User|State"


def _line(kind: str, i: int) -> list[str]:
    """The lines of one piece of an export (a row, or something between rows)."""
    job = f"{i}|usr{i}|jn{i}"
    return {
        "row": [f"{job}|COMPLETED|00:01:00|cm{i}"],
        "step": [f"{i}.batch|usr{i}|batch|COMPLETED|00:01:00|"],
        "pipe_in_name": [f"{i}|usr{i}|jn|{i}|COMPLETED|00:01:00|cm{i}"],
        "pipe_in_comment": [f"{job}|COMPLETED|00:01:00|cm|{i}"],
        "two_lines": [f"{job}|COMPLETED|00:01:00|cm{i}", f"more of cm{i}"],
        "three_lines": [f"{job}|COMPLETED|00:01:00|cm{i}", "and", f"more {i}"],
        "trailing": [f"{job}|COMPLETED|00:01:00|cm{i}|"],
        "short": [f"{i}|usr{i}|COMPLETED"],
        "truncated": [f"{i}|usr{i}"],
        "too_long": [f"{i}|usr{i}|jn{i}|COMPLETED|00:01:00|cm{i}|x|y"],
        "comment": [f"# note {i}"],
        "blank": [""],
        "header": [HEADER],
        "short_header": [SHORT_HEADER],
    }[kind]


KINDS = [
    "row",
    "row",
    "row",
    "step",
    "pipe_in_name",
    "pipe_in_comment",
    "two_lines",
    "three_lines",
    "trailing",
    "short",
    "truncated",
    "too_long",
    "comment",
    "blank",
    "header",
    "short_header",
]


def _export(pieces: list[str], runs: list[int]) -> str:
    """An export of ``pieces``, each repeated ``runs[i]`` times (runs of rows alike)."""
    lines, i = [HEADER], 0
    for kind, times in zip(pieces, runs):
        for _ in range(times):
            i += 1
            lines += _line(kind, i)
    return "\n".join(lines) + "\n"


def _outcome(text: str, chunk: int, monkeypatch, **kwargs):
    """What anonymize_text gives with ``chunk`` lines at a time: the text, or the error."""
    monkeypatch.setattr(anon, "CHUNK_LINES", chunk)
    try:
        return anonymize_text(text, Anonymizer("k"), **kwargs)
    except SacctParseError as exc:
        return (type(exc), exc.line, str(exc))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(KINDS), min_size=1, max_size=12),
    st.lists(st.integers(1, 7), min_size=12, max_size=12),
    st.sampled_from([1, 2, 3, 5, 8]),
    st.booleans(),
)
def test_any_chunk_size_gives_what_the_whole_export_gives(pieces, runs, chunk, crlf):
    text = _export(pieces, runs)
    if crlf:
        text = text.replace("\n", "\r\n")
    with pytest.MonkeyPatch.context() as mp:
        whole = _outcome(text, 10**9, mp)
        assert _outcome(text, chunk, mp) == whole


@pytest.mark.parametrize("chunk", [1, 2, 4])
def test_a_parsable_export_with_trailing_delimiters_is_cut_into_chunks(chunk, monkeypatch):
    """-p exports end every line with the delimiter: the chunks still cut between rows (a
    run of such rows holds no evidence that a cut could lose)."""
    rows = "".join(f"{i}|usr{i}|jn{i}|COMPLETED|00:01:00|cm{i}|\n" for i in range(1, 30))
    text = HEADER + "|\n" + rows + "30|usr30|jn|30|COMPLETED|00:01:00|c|m|\n"
    calls = []
    real = anon._resolve_items
    monkeypatch.setattr(anon, "_resolve_items", lambda *a, **k: calls.append(1) or real(*a, **k))
    whole = _outcome(text, 10**9, monkeypatch)
    calls.clear()
    assert _outcome(text, chunk, monkeypatch) == whole
    assert len(calls) > 5  # (resolved a chunk at a time, not all at the end)


def test_a_long_run_of_appended_rows_is_never_cut(monkeypatch):
    """Rows of fewer fields are read as an appended export only in a run of at least five:
    a chunk never ends inside such a run, however small the chunks."""
    text = HEADER + "\n1|a|j|COMPLETED|00:01:00|c\n"
    text += "".join(f"{i}|u{i}|COMPLETED\n" for i in range(2, 9))
    text += "9|b|j|COMPLETED|00:01:00|c\n"
    whole = _outcome(text, 10**9, monkeypatch)
    assert isinstance(whole, str) and "u5" not in whole  # (read as rows, pseudonymised)
    for chunk in (1, 2, 3, 4):
        assert _outcome(text, chunk, monkeypatch) == whole


SAMPLES = [
    "hb-jobinfo_sacct-snowman-delim.txt",
    "slurm2sql_test-data1.psv",
    "tdhock-slurm_sacct-all-cols.tsv",
    "xdmod_accounting-logs.psv",
]


@pytest.mark.skipif(not SACCT.is_dir(), reason="public samples not found")
@pytest.mark.parametrize("name", SAMPLES)
def test_real_exports_anonymize_the_same_in_chunks(tmp_path, monkeypatch, name):
    fields = FIELDS.get(name)
    outputs = []
    for chunk in (10**9, 7):
        monkeypatch.setattr(anon, "CHUNK_LINES", chunk)
        out = tmp_path / f"out-{chunk}.txt"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SacctParseWarning)
            anonymize_file(SACCT / name, out, salt="k", fields=fields)
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]


def test_a_refused_line_late_in_the_export_leaves_nothing_behind(tmp_path, monkeypatch):
    """Chunks before the bad line were already written, to a temporary file beside the
    output: it is removed, and an output already there stays as it was."""
    monkeypatch.setattr(anon, "CHUNK_LINES", 3)
    rows = "".join(f"{i}|usr{i}|jn{i}|COMPLETED|00:01:00|cm{i}\n" for i in range(1, 40))
    src = tmp_path / "in.psv"
    src.write_text(HEADER + "\n" + rows + "40|usr40\n")
    out = tmp_path / "out.psv"
    out.write_text("an earlier output\n")
    with pytest.raises(SacctParseError, match="cannot be anonymized safely") as info:
        anonymize_file(src, out, salt="k")
    assert info.value.line == 41
    assert out.read_text() == "an earlier output\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.psv", "out.psv"]
    # and a good export replaces it, with no temporary file left
    src.write_text(HEADER + "\n" + rows)
    anonymize_file(src, out, salt="k")
    assert "usr1" not in out.read_text() and len(read_sacct(out)) == 39
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.psv", "out.psv"]


def test_latin1_lines_are_kept_and_named_once(tmp_path, monkeypatch):
    """A line that is not UTF-8 is read as Latin-1 (no byte lost) with one warning naming
    the lines, as read_sacct says it, however the export is cut into chunks."""
    monkeypatch.setattr(anon, "CHUNK_LINES", 2)
    rows = [f"{i}|usr{i}|jn{i}|COMPLETED|00:01:00|cm{i}".encode() for i in range(1, 9)]
    rows[2] = rows[2].replace(b"jn3", b"j\xe9n3")
    rows[6] = rows[6].replace(b"cm7", b"c\xf6m7")
    src = tmp_path / "in.psv"
    src.write_bytes(HEADER.encode() + b"\n" + b"\n".join(rows) + b"\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = anonymize_file(src, tmp_path / "out.psv", salt="k")
    said = [str(w.message) for w in caught if issubclass(w.category, SacctParseWarning)]
    assert len(said) == 1 and "lines 4, 8 hold bytes that are not UTF-8" in said[0]
    assert ("job", "jén3") in result.mapping and ("text", "cöm7") in result.mapping


def test_the_output_is_written_where_writing_it_would_go(tmp_path):
    """Through a symlink (it stays one), into a device as it is (never replaced), and with the
    permissions a new file gets."""
    import os
    import stat

    src = tmp_path / "in.psv"
    src.write_text(HEADER + "\n1|usr1|jn1|COMPLETED|00:01:00|cm1\n")
    real = tmp_path / "real.psv"
    real.write_text("old\n")
    link = tmp_path / "link.psv"
    link.symlink_to(real)
    anonymize_file(src, link, salt="k")
    assert link.is_symlink() and "usr1" not in real.read_text() and "COMPLETED" in real.read_text()
    anonymize_file(src, os.devnull, salt="k")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    mask = os.umask(0)
    os.umask(mask)
    fresh = tmp_path / "fresh.psv"
    anonymize_file(src, fresh, salt="k")
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~mask
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "fresh.psv",
        "in.psv",
        "link.psv",
        "real.psv",
    ]


def test_an_existing_output_is_rewritten_in_place(tmp_path):
    """Its permissions and hard links stay (a private 0600 file stays private), a pipe is
    written as any file (``-o /dev/stdout | gzip``), and a refused export leaves the file
    as it was even where no other file could be made beside it."""
    import os
    import stat

    src = tmp_path / "in.psv"
    src.write_text(HEADER + "\n1|usr1|jn1|COMPLETED|00:01:00|cm1\n")
    out = tmp_path / "out.psv"
    out.write_text("old\n")
    out.chmod(0o600)
    twin = tmp_path / "twin.psv"
    os.link(out, twin)
    anonymize_file(src, out, salt="k")
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert twin.read_text() == out.read_text() != "old\n"
    read, write = os.pipe()
    try:
        anonymize_file(src, f"/proc/self/fd/{write}", salt="k")
        os.close(write)
        write = None
        with os.fdopen(read) as pipe:
            assert pipe.read() == out.read_text()
    finally:
        if write is not None:
            os.close(write)


def test_a_parse_error_comes_before_an_output_that_cannot_be_written(tmp_path):
    src = tmp_path / "in.psv"
    src.write_text(HEADER + "\n1|usr1\n")
    with pytest.raises(SacctParseError, match="cannot be anonymized safely"):
        anonymize_file(src, tmp_path / "no-such-folder" / "out.psv", salt="k")


@pytest.mark.parametrize("chunk", [1, 2, 10**9])
def test_an_export_of_headers_only_keeps_them(chunk, monkeypatch):
    text = HEADER + "\n" + HEADER + "\n" + SHORT_HEADER + "\n"
    monkeypatch.setattr(anon, "CHUNK_LINES", chunk)
    assert anonymize_text(text, Anonymizer("k")) == text


def test_the_latin1_warning_comes_first_even_when_a_later_line_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(anon, "CHUNK_LINES", 2)
    rows = [f"{i}|usr{i}|jn{i}|COMPLETED|00:01:00|cm{i}".encode() for i in range(1, 9)]
    rows[1] = rows[1].replace(b"jn2", b"j\xe9n2")
    rows[6] = b"7|usr7"
    src = tmp_path / "in.psv"
    src.write_bytes(HEADER.encode() + b"\n" + b"\n".join(rows) + b"\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(SacctParseError, match="cannot be anonymized safely"):
            anonymize_file(src, tmp_path / "out.psv", salt="k")
    assert any("line 3 holds bytes that are not UTF-8" in str(w.message) for w in caught)


def test_line_ends_are_told_from_the_first_characters_not_bytes(tmp_path):
    """As decode_export read them: a first CRLF beyond 65,536 bytes but within 65,536
    characters (multibyte job names) still makes the output CRLF."""
    name = "é" * 50
    rows = "".join(f"{i}|usr{i}|{name}|COMPLETED|00:01:00|cm{i}\n" for i in range(1, 600))
    text = HEADER + "\n" + rows + "600|usr600|jn|COMPLETED|00:01:00|cm\r\n"
    assert len(text.encode()) > 65536 + 100 and text.index("\r\n") < 65536
    src = tmp_path / "in.psv"
    src.write_bytes(text.encode())
    anonymize_file(src, tmp_path / "out.psv", salt="k")
    assert (tmp_path / "out.psv").read_bytes().count(b"\r\n") == 601
