"""QA stop 26, input fuzzing of the records and the command line: bad input gets one clear
error (or warning) naming the file, the line, the field and the value and how to fix it;
nothing is silently dropped or misread, and no input file is ever lost.

The findings are numbered as in the fuzzing report: 2.1 (outputs over inputs), 1.5 (a
pyarrow traceback on stderr), 2.4 (TRES), 2.5 (impossible sacct times), 3.5-3.9 (messages)
and 2.8/2.9 (SWF numbers, statuses, preceding jobs, header fields without their colon).
"""

from __future__ import annotations

import gzip
import io
import os
import warnings

import pytest

from slurmlab.anonymize import anonymize_file
from slurmlab.cli import main
from slurmlab.errors import SlurmlabError
from slurmlab.records.sacct import SacctParseError, read_sacct
from slurmlab.records.swf import read_swf
from slurmlab.report import write_report

EXPORT = (
    "JobID|JobIDRaw|State|Partition|Submit|Start|End|Elapsed|NNodes|NCPUS|NodeList|AllocTRES\n"
    "7|7|COMPLETED|main|2026-01-05T00:00:00|2026-01-05T00:00:00|2026-01-05T00:50:00|00:50:00|"
    "1|2|node1|billing=2,cpu=2,gres/gpu=1,mem=4000M,node=1\n"
)
SCENARIO = "cluster: tiny\njobs:\n  - {submit: 0, runtime: 5, args: '-N 1'}\n"
SWF_HEADER = "; MaxProcs: 8\n"
SWF_GOOD = "1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1"


def cli(capsys, *args: str) -> tuple[int, str]:
    """Run ``slurmlab ARGS``: (exit code, stderr)."""
    code = main([str(a) for a in args])
    return code, capsys.readouterr().err


def one_error(err: str) -> str:
    """The one ``slurmlab: error:`` line, without its prefix."""
    assert err.startswith("slurmlab: error: ") and err.count("\n") == 1, err
    return err[len("slurmlab: error: ") : -1]


@pytest.fixture
def export(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "e.psv"
    path.write_text(EXPORT)
    return path


@pytest.fixture
def scenario(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO)
    return path


def read(text: str, **kwargs):
    return read_sacct(io.StringIO(text), **kwargs)


def sacct_error(text: str) -> SacctParseError:
    with pytest.raises(SacctParseError) as info:
        read(text)
    return info.value


# -- 2.1 an output is never an input, nor another output --------------------------------------
def test_report_over_its_export_is_refused_and_the_export_kept(export, capsys):
    """`slurmlab report e.psv -o e.psv` replaced the export with HTML."""
    code, err = cli(capsys, "report", "e.psv", "-o", "e.psv")
    assert code == 1
    assert one_error(err) == (
        "-o 'e.psv' is the export 'e.psv': writing it would destroy the export; give -o "
        "another name, e.g. -o report.html"
    )
    assert export.read_text() == EXPORT


def test_the_same_file_by_another_path_or_a_symlink_is_refused(export, capsys):
    """Paths are compared as files: ./e.psv is e.psv, and so is a symlink to it."""
    code, err = cli(capsys, "report", "e.psv", "-o", "./e.psv")
    assert code == 1
    assert one_error(err).startswith("-o './e.psv' is the export 'e.psv' (the same file): ")
    os.symlink("e.psv", "link.psv")
    code, err = cli(capsys, "report", "link.psv", "-o", "e.psv")
    assert code == 1
    assert one_error(err).startswith("-o 'e.psv' is the export 'link.psv' (the same file): ")
    assert export.read_text() == EXPORT


@pytest.mark.parametrize("flag", ["--sacct-out", "--jobs-out"])
def test_simulate_over_its_scenario_is_refused(scenario, capsys, flag):
    """`slurmlab simulate s.yaml --sacct-out s.yaml` replaced the scenario."""
    example = "jobs.psv" if flag == "--sacct-out" else "jobs.csv"
    code, err = cli(capsys, "simulate", "s.yaml", flag, "s.yaml", "--quiet")
    assert code == 1
    assert one_error(err) == (
        f"{flag} 's.yaml' is the input scenario 's.yaml': writing it would destroy the input "
        f"scenario; give {flag} another name, e.g. {flag} {example}"
    )
    assert scenario.read_text() == SCENARIO


def test_simulate_outputs_that_are_one_file_are_refused(scenario, capsys, tmp_path):
    """`--sacct-out x --jobs-out x`: one output overwrote the other."""
    code, err = cli(capsys, "simulate", "s.yaml", "--sacct-out", "x", "--jobs-out", "./x")
    assert code == 1
    assert one_error(err) == (
        "--jobs-out './x' and --sacct-out 'x' are one file (the same file): one would "
        "overwrite the other; give each its own name, e.g. --jobs-out jobs.csv --sacct-out "
        "jobs.psv"
    )
    assert not (tmp_path / "x").exists()


def test_simulate_over_the_slurm_conf_of_its_scenario_is_refused(tmp_path, capsys, monkeypatch):
    """The slurm.conf a scenario names (cluster: {slurm_conf: ...}) is an input too."""
    monkeypatch.chdir(tmp_path)
    conf = tmp_path / "my.conf"
    conf.write_text("NodeName=n[1-2] CPUs=4\nPartitionName=main Nodes=ALL Default=YES\n")
    (tmp_path / "s.yaml").write_text(
        SCENARIO.replace("cluster: tiny", "cluster: {slurm_conf: my.conf}")
    )
    code, err = cli(capsys, "simulate", "s.yaml", "--jobs-out", "my.conf", "--quiet")
    assert code == 1
    assert one_error(err).startswith(
        "--jobs-out 'my.conf' is the scenario's cluster.slurm_conf 'my.conf': writing it would "
        "destroy the scenario's cluster.slurm_conf; give --jobs-out another name"
    )
    code, err = cli(capsys, "simulate", "s.yaml", "--cluster", "my.conf", "--sacct-out", "my.conf")
    assert code == 1
    assert one_error(err).startswith("--sacct-out 'my.conf' is the --cluster slurm.conf 'my.conf'")
    assert conf.read_text().startswith("NodeName=n[1-2]")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["-o", "a.psv", "--mapping", "a.psv"],
            "-o 'a.psv' and --mapping 'a.psv' are one file: one would overwrite the other; "
            "give each its own name, e.g. -o anonymized.psv --mapping mapping.csv",
        ),
        (
            ["-o", "a.psv", "--mapping", "e.psv"],
            "--mapping 'e.psv' is the export 'e.psv': writing it would destroy the export; "
            "give --mapping another name, e.g. --mapping mapping.csv",
        ),
        (
            ["-o", "e.psv"],
            "-o 'e.psv' is the export 'e.psv': writing it would destroy the export; give -o "
            "another name, e.g. -o anonymized.psv",
        ),
    ],
    ids=["mapping-over-output", "mapping-over-export", "output-over-export"],
)
def test_anonymize_never_writes_over_the_export_or_its_other_output(
    export, capsys, tmp_path, args, message
):
    """The original export was replaced by the private mapping, or by its anonymized copy."""
    code, err = cli(capsys, "anonymize", "e.psv", *args)
    assert code == 1 and one_error(err) == message
    assert export.read_text() == EXPORT
    assert not (tmp_path / "a.psv").exists()


def test_the_python_api_keeps_the_export_too(export):
    with pytest.raises(SlurmlabError, match=r"mapping_path='e.psv' is the export being anonymized"):
        anonymize_file("e.psv", "a.psv", mapping_path="e.psv")
    with pytest.raises(SlurmlabError, match=r"output and mapping_path are one file \('a.psv'\)"):
        anonymize_file("e.psv", "a.psv", mapping_path="./a.psv")
    with pytest.raises(SlurmlabError, match=r"write_report: 'e.psv' is the export the job table"):
        write_report(read_sacct("e.psv"), "e.psv")
    assert export.read_text() == EXPORT


# -- 1.5 a non-UTF-8 byte in a short row: no pyarrow traceback -----------------------------------
@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
def test_a_short_row_with_a_byte_that_is_not_utf8_gives_only_the_error(tmp_path, capsys):
    """pyarrow's on_invalid decoded the row as strict UTF-8 and printed "Exception ignored in:
    <function _split.<locals>.on_invalid ...> UnicodeDecodeError" before the real error."""
    header, row = EXPORT.encode().splitlines()
    cut = row.replace(b"7|7|", b"8|\xff|", 1)[:30]  # (8|\xff|COMPLETED|main|2026-01-05T)
    path = tmp_path / "f.txt"
    path.write_bytes(header + b"\n" + row + b"\n" + cut + b"\n")
    code, err = cli(capsys, "summary", path)
    assert code == 1
    assert one_error(err) == (
        f"{path}, line 3: '8|\xff|COMPLETED|main|2026-01-05T': has 5 fields where the header "
        "has 12 (a truncated line?); check that the export was written completely; if rows of "
        "an export with fewer fields were appended here, put that export's header line before "
        "them; or read with --errors warn to leave the row out"
    )


# -- 2.4 TRES strings: every entry checked, none given twice --------------------------------------
def tres_row(tres: str) -> str:
    return EXPORT.replace("billing=2,cpu=2,gres/gpu=1,mem=4000M,node=1", tres)


WARN_ADVICE = "; or read with errors='warn' (skip the row) or errors='coerce' (NA)"
TRES_HINT = (
    "sacct writes TRES as billing=8,cpu=8,gres/gpu:a100=4,gres/gpu=4,mem=64G,node=1 (counts, "
    "and sizes with a unit); the value is corrupt or the columns are shifted" + WARN_ADVICE
)


@pytest.mark.parametrize(
    ("tres", "problem"),
    [
        (
            "cpu=abc,mem=64G,node=1,gres/gpu=2",
            "cpu=abc is not a count (a whole number of at least 0)",
        ),
        (
            "cpu=2,mem=lots,node=1,gres/gpu=2",
            "mem=lots is not a size (a number with an optional K/M/G/T/P unit, as mem=64G)",
        ),
        (
            "cpu=2,mem=64G,node=-3,gres/gpu=2",
            "node=-3 is not a count (a whole number of at least 0)",
        ),
        ("cpu=2,billing=8.5", "billing=8.5 is not a count (a whole number of at least 0)"),
    ],
)
def test_every_tres_entry_is_checked_as_sacct_writes_it(tres, problem):
    """Only gres/gpu was checked: cpu=abc,mem=lots,node=-3 was read as a good row."""
    error = sacct_error(tres_row(tres))
    assert str(error) == f"<buffer>, line 2, column AllocTRES: {tres!r}: {problem}; {TRES_HINT}"


def test_a_tres_given_twice_is_an_error_naming_both_values():
    """gres/gpu=4,gres/gpu=8 was read as 8 GPUs."""
    error = sacct_error(tres_row("cpu=2,gres/gpu=4,gres/gpu=8"))
    assert str(error) == (
        "<buffer>, line 2, column AllocTRES: 'cpu=2,gres/gpu=4,gres/gpu=8': gres/gpu is given "
        "twice (4 and 8); sacct writes each TRES once, as billing=8,cpu=8,gres/gpu=4,mem=64G,"
        "node=1; the value is corrupt or was edited: keep the right one" + WARN_ADVICE
    )


def test_a_gpu_total_below_its_typed_entries_is_an_error():
    """sacct writes gres/gpu=N as the total and gres/gpu:TYPE=M per type: a total of 2 beside
    4 a100s was read as 2 GPUs."""
    error = sacct_error(tres_row("cpu=2,gres/gpu:a100=4,gres/gpu=2"))
    assert str(error) == (
        "<buffer>, line 2, column AllocTRES: 'cpu=2,gres/gpu:a100=4,gres/gpu=2': gres/gpu=2 is "
        "fewer GPUs than its typed entries (gres/gpu:a100=4); sacct writes gres/gpu as the "
        "job's GPUs in all and gres/gpu:TYPE as the part of each type, so the total is at "
        "least their sum; the value is corrupt or was edited" + WARN_ADVICE
    )
    two = sacct_error(tres_row("gres/gpu:a100=2,gres/gpu:a40=2,gres/gpu=3"))
    assert "(gres/gpu:a100=2 + gres/gpu:a40=2 = 4)" in two.problem


def test_tres_as_sacct_writes_it_still_reads():
    """A total above the typed entries (untyped GPUs too), sizes, energy, licenses."""
    tres = "billing=8,cpu=8,energy=30,fs/disk=0,gres/gpu:a100=2,gres/gpu=4,license/x=1,mem=1.50G,node=1"
    jobs = read(tres_row(tres))
    assert jobs[["NGPUS", "GPUType"]].values.tolist() == [[4, "a100"]]


def test_a_bad_tres_row_is_left_out_with_errors_warn():
    with pytest.warns(UserWarning, match=r"line 2, column AllocTRES: 'cpu=abc'"):
        jobs = read(tres_row("cpu=abc"), errors="warn")
    assert len(jobs) == 0 and jobs.attrs["bad_lines"] == [2]


# -- 2.5 impossible times ------------------------------------------------------------------------
TIMES_HINT = (
    "sacct never writes such times: the values are corrupt or the columns are shifted; check "
    "the export" + WARN_ADVICE
)


def times_row(start: str, end: str, elapsed: str, state: str = "COMPLETED") -> str:
    return EXPORT.replace(
        "2026-01-05T00:00:00|2026-01-05T00:50:00|00:50:00", f"{start}|{end}|{elapsed}"
    ).replace("|COMPLETED|", f"|{state}|")


def test_end_before_start_is_an_error_naming_both_columns():
    """End a year before Start was read; summary said "from X to X" and counted GPU-hours."""
    error = sacct_error(times_row("2026-01-05T00:00:00", "2025-01-05T00:00:00", "00:50:00"))
    assert str(error) == (
        "<buffer>, line 2, columns Start, End: 'Start=2026-01-05T00:00:00, "
        "End=2025-01-05T00:00:00': End is before Start, by 365-00:00:00 (more than a "
        "daylight-saving change: a run ends after it starts); " + TIMES_HINT
    )


def test_end_before_start_within_an_hour_is_a_warning():
    """sacct writes naive local times: when daylight-saving time ends, a run may seem to."""
    text = times_row("2026-10-25T02:50:00", "2026-10-25T02:10:00", "00:20:00")
    with pytest.warns(UserWarning, match=r"1 row\(s\) end before they start, by up to an hour "
                      r"\(line\(s\) 2\): sacct writes naive local times"):  # fmt: skip
        jobs = read(text)
    assert len(jobs) == 1


def test_an_elapsed_that_is_not_end_minus_start_is_an_error():
    error = sacct_error(times_row("2026-01-05T00:00:00", "2026-01-05T00:50:00", "10:00:00"))
    assert str(error) == (
        "<buffer>, line 2, columns Start, End, Elapsed: 'Start=2026-01-05T00:00:00, "
        "End=2026-01-05T00:50:00, Elapsed=10:00:00': Elapsed is 10:00:00 but End - Start is "
        "00:50:00: sacct writes Elapsed as End - Start (less any time suspended); " + TIMES_HINT
    )


def test_elapsed_allows_suspension_a_dst_hour_and_running_rows():
    """Elapsed = End - Start - Suspended; an hour off is a daylight-saving change; a RUNNING
    row's End may be the end of the export's window (XDMoD's exports)."""
    assert len(read(times_row("2026-01-05T00:00:00", "2026-01-05T00:50:00", "00:30:00"))) == 1
    assert len(read(times_row("2026-01-05T00:00:00", "2026-01-05T00:50:00", "01:50:00"))) == 1
    running = times_row("2026-01-05T00:00:00", "2026-01-05T00:00:00", "22:00:00", "RUNNING")
    assert len(read(running)) == 1
    text = (
        "JobID|State|Start|End|Suspended|Elapsed\n"
        "1|COMPLETED|2026-01-05T00:00:00|2026-01-05T00:50:00|00:20:00|00:30:00\n"
        "2|COMPLETED|2026-01-05T00:00:00|2026-01-05T00:50:00|00:00:00|00:30:00\n"
    )
    error = sacct_error(text)
    assert (error.line, error.column) == (3, "Start, End, Suspended, Elapsed")
    assert error.problem.startswith("Elapsed is 00:30:00 but End - Start is 00:50:00: sacct")


def test_impossible_times_become_na_with_errors_coerce():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        back = read(
            times_row("2026-01-05T00:00:00", "2025-01-05T00:00:00", "00:50:00"), errors="coerce"
        )
        long = read(
            times_row("2026-01-05T00:00:00", "2026-01-05T00:50:00", "10:00:00"), errors="coerce"
        )
    assert back["End"].isna().all() and long["Elapsed"].isna().all()
    assert back.attrs["bad_lines"] == long.attrs["bad_lines"] == [2]


def test_a_nodelist_that_is_not_a_hostlist_is_an_error():
    """node[1- was read as a node name."""
    error = sacct_error(EXPORT.replace("|node1|", "|node[1-|"))
    assert str(error) == (
        "<buffer>, line 2, column NodeList: 'node[1-': is not a Slurm hostlist (unbalanced "
        "brackets); a NodeList looks like node[01-08],gpu3; the value is corrupt (cut short?) "
        "or the columns are shifted" + WARN_ADVICE
    )
    assert read(EXPORT.replace("|node1|", "|gpu[01-04,07],n-3.x|"))["NodeList"].tolist() == [
        "gpu[01-04,07],n-3.x"
    ]


# -- 3.5 JobIDRaw is named for its own value --------------------------------------------------
def test_a_bad_jobidraw_is_named_with_its_value():
    """A JobIDRaw 'abc' was blamed on column JobID, showing JobID's value."""
    named = EXPORT.replace("7|7|", "running|abc|")
    error = sacct_error(named)
    assert (error.line, error.column, error.value) == (
        2,
        "JobID, JobIDRaw",
        "JobID=running, JobIDRaw=abc",
    )
    assert str(error) == (
        "<buffer>, line 2, columns JobID, JobIDRaw: 'JobID=running, JobIDRaw=abc': JobID is a "
        "name, which is read only beside a numeric JobIDRaw, and JobIDRaw is not a number; give "
        "the row its numeric JobIDRaw (as write_sacct writes a simulation's scenario ids); if "
        "the columns are shifted (a user name where the JobID should be), check the field list "
        "or the delimiter" + WARN_ADVICE
    )
    blank = sacct_error(EXPORT.replace("7|7|", "running||"))
    assert blank.value == "JobID=running, JobIDRaw=" and blank.problem.endswith("JobIDRaw is blank")
    numeric = sacct_error(EXPORT.replace("7|7|", "7|x7|"))
    assert str(numeric) == (
        "<buffer>, line 2, column JobIDRaw: 'x7': is not a sacct JobIDRaw (a whole number: 123, "
        "or 123.batch on a step row); if the columns are shifted, check the field list or the "
        "delimiter" + WARN_ADVICE
    )


# -- 3.6 an empty header name ---------------------------------------------------------------
def test_an_empty_header_name_is_named_with_its_position():
    text = "JobID|State|Reason||Flags\n1|COMPLETED|None||SchedMain\n"
    error = sacct_error(text)
    assert str(error) == (
        "<buffer>: 'JobID|State|Reason||Flags': has a header whose field 4 (between Reason and "
        "Flags) has no name: every column of a sacct export has a field name; delete the extra "
        "'|' (two delimiters in a row) or name the column, as sacct -P -o JobID,... writes the "
        "header"
    )


# -- 3.7 report -o, anonymize -o and --mapping: messages like simulate --jobs-out's --------------
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["report", "e.psv", "-o", "/nonexistent/r.html"],
            "-o '/nonexistent/r.html': folder '/nonexistent' does not exist; create it first "
            "(mkdir -p /nonexistent) or choose another path",
        ),
        (
            ["report", "e.psv", "-o", "."],
            "-o '.' is a directory; give a file name, e.g. 'report.html'",
        ),
        (
            ["anonymize", "e.psv", "-o", "/nonexistent/x"],
            "-o '/nonexistent/x': folder '/nonexistent' does not exist; create it first "
            "(mkdir -p /nonexistent) or choose another path",
        ),
        (
            ["anonymize", "e.psv", "-o", "a.psv", "--mapping", "/nonexistent/m.csv"],
            "--mapping '/nonexistent/m.csv': folder '/nonexistent' does not exist; create it "
            "first (mkdir -p /nonexistent) or choose another path",
        ),
    ],
)
def test_outputs_that_cannot_be_written_are_named_before_any_work(
    export, capsys, tmp_path, args, message
):
    """They gave bare `[Errno 2]` / `[Errno 21]` text, and anonymize wrote -o before failing
    on --mapping."""
    code, err = cli(capsys, *args)
    assert code == 1 and one_error(err) == message
    assert not (tmp_path / "a.psv").exists()


def test_a_write_that_fails_afterwards_is_one_clear_line(export, capsys, monkeypatch):
    import pathlib

    def disk_full(self, *args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pathlib.Path, "write_text", disk_full)
    code, err = cli(capsys, "report", "e.psv", "-o", "r.html")
    assert code == 1
    assert (
        one_error(err)
        == "-o 'r.html': cannot write it (No space left on device); choose another path"
    )


# -- 3.8 report --capacity: the file and the plain value ------------------------------------------
def test_a_negative_capacity_names_the_file_and_the_plain_value(export, capsys, tmp_path):
    """It said `cpus=np.int64(-1)` and no file name."""
    (tmp_path / "cap.yaml").write_text("{main: {cpus: -1}}\n")
    code, err = cli(capsys, "report", "e.psv", "--capacity", "cap.yaml", "-o", "r.html")
    assert code == 1
    assert one_error(err) == (
        "--capacity 'cap.yaml': partition 'main': cpus=-1 is not a count; give a whole number "
        "of at least 0 (0 for a resource it does not have)"
    )


def test_the_utilization_api_shows_a_plain_value():
    import pandas as pd

    from slurmlab.analysis.utilization import utilization

    jobs = read(EXPORT)
    capacity = pd.DataFrame({"Partition": ["main"], "cpus": [-1]})
    with pytest.raises(
        SlurmlabError, match=r"capacity of partition 'main': cpus=-1 is not a count"
    ):
        utilization(jobs, capacity=capacity)


# -- 3.9 a .swf.gz that is not gzip ------------------------------------------------------------
def test_a_swf_gz_that_is_not_gzip_says_so(tmp_path):
    """It was read as text: "line 1: 4 fields, SWF has 18"."""
    path = tmp_path / "fake.swf.gz"
    path.write_text("not gzip at all\n")
    with pytest.raises(SlurmlabError) as info:
        read_swf(path)
    assert str(info.value) == (
        f"SWF file '{path}' is named .gz but is not gzip data (it starts b'not gzip at all\\n'); "
        "if it is a plain SWF trace, rename it to 'fake.swf'; else fetch it again (gzip -t FILE "
        "checks a gzipped file)"
    )


def test_gzip_data_that_is_not_text_says_so(tmp_path):
    path = tmp_path / "bin.swf.gz"
    path.write_bytes(gzip.compress(b"\x00\x01\xff" * 4))
    with pytest.raises(SlurmlabError) as info:
        read_swf(path)
    assert str(info.value) == (
        f"{path}: line 1: not text (its gzip data decompresses to bytes such as "
        "'\\x00\\x01\ufffd\\x00\\x01\ufffd\\x00\\x01\ufffd\\x00\\x01\ufffd'): an SWF trace is "
        "text, one job per line; check that the file is an SWF trace"
    )


def test_gzip_data_in_a_file_named_swf_is_read(tmp_path):
    """The reverse: read by its magic bytes, whatever its name (nothing is misread)."""
    path = tmp_path / "t.swf"
    path.write_bytes(gzip.compress((SWF_HEADER + SWF_GOOD + "\n").encode()))
    assert [j.id for j in read_swf(path).jobs] == ["1"]


# -- 2.8 / 2.9 SWF: numbers as SWF writes them, statuses, preceding jobs, header colons ---------
def swf(tmp_path, record: str, header: str = SWF_HEADER):
    path = tmp_path / "t.swf"
    path.write_text(header + record + "\n", encoding="utf-8")
    return path


def swf_error(path) -> str:
    with pytest.raises(SlurmlabError) as info:
        read_swf(path)
    return str(info.value)


@pytest.mark.parametrize(
    ("text", "form"),
    [("１00", "characters that are not ASCII digits"), ("1_00", "a '_'"), ("+100", "a '+'")],
)
def test_swf_numbers_are_ascii_as_swf_writes_them(tmp_path, text, form):
    """float() read ``１00``, ``1_00`` and ``+100`` as 100."""
    path = swf(tmp_path, SWF_GOOD.replace(" 100 ", f" {text} ", 1))
    assert swf_error(path) == (
        f"{path}: line 2: field 'run' is {text!r}, not a number as SWF writes them (it has "
        f"{form}); write it with the ASCII digits 0-9, a leading '-' only for -1 (missing), "
        "e.g. 100"
    )


def test_an_unknown_swf_status_is_an_error(tmp_path):
    path = swf(tmp_path, SWF_GOOD.replace(" 1 1 1 ", " 9 1 1 ", 1))
    assert swf_error(path) == (
        f"{path}: line 2: field 'status' is 9, not an SWF status: 1 (completed), 0 (failed), "
        "5 (cancelled), -1 (missing), 2 (partial execution, to be continued), 3 (last partial "
        "execution, completed), 4 (last partial execution, failed); fix or delete the line"
    )


def test_a_negative_number_other_than_minus_one_is_an_error(tmp_path):
    """req_time -7 was read as missing: only -1 means missing."""
    path = swf(tmp_path, SWF_GOOD.replace(" 200 ", " -7 ", 1))
    assert swf_error(path) == (
        f"{path}: line 2: field 'req_time' is -7: SWF writes -1 for a missing value and no "
        "other negative number; fix or delete the line"
    )


def test_a_job_that_precedes_itself_is_an_error(tmp_path):
    path = swf(tmp_path, SWF_GOOD[: -len("-1 -1")] + "1 -1")
    assert swf_error(path) == (
        f"{path}: line 2: field 'preceding_job' is 1, the job's own number: a job cannot wait "
        "for itself to end; give the job it follows, or -1 for none; fix or delete the line"
    )


def test_an_unknown_preceding_job_is_a_warning(tmp_path):
    path = swf(tmp_path, SWF_GOOD[: -len("-1 -1")] + "77 -1")
    with pytest.warns(UserWarning) as caught:
        workload = read_swf(path)
    assert [str(w.message) for w in caught] == [
        f"{path}: line 2: field 'preceding_job' is 77, but no such job is in the trace; "
        "slurmlab replays the recorded submit times and does not use the field; write -1 if "
        "the job follows none"
    ]
    assert len(workload.jobs) == 1


def test_a_header_field_without_its_colon_is_named(tmp_path):
    """`; MaxProcs 64` was a comment, and the warning then said MaxProcs was absent."""
    path = swf(tmp_path, SWF_GOOD, header="; MaxProcs 64\n")
    with pytest.warns(UserWarning) as caught:
        workload = read_swf(path)
    assert [str(w.message) for w in caught] == [
        f"{path}: line 1: '; MaxProcs 64' is read as a comment: an SWF header field has a colon "
        "after its name; write '; MaxProcs: 64'",
        f"{path}: the header gives no machine size (MaxProcs and MaxNodes are absent or -1; "
        "line 1 writes MaxProcs without its colon (; MaxProcs: N)): the machine is taken to be "
        "4 processors, the widest job; pass --procs N (procs=N) to set its size",
    ]
    assert workload.max_procs == 4
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a comment that only starts with the word: no warning
        read_swf(swf(tmp_path, SWF_GOOD, header="; MaxProcs: 8\n; MaxNodes is unknown\n"))
