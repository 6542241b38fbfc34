"""read_swf on small hand-written Standard Workload Format texts, plain and gzipped.

SWF fields: job submit wait run alloc_procs avg_cpu used_mem req_procs req_time req_mem
status user group executable queue partition preceding_job think_time (-1: missing).
"""

from __future__ import annotations

import gzip
from datetime import timedelta

import pandas as pd
import pytest

from slurmlab.errors import SlurmlabError
from slurmlab.records.swf import read_swf, swf_cluster
from slurmlab.sim.simulate import simulate
from slurmlab.spec.cluster import Cluster

HEADER = """\
; Version: 2.2
; UnixStartTime: 1000000000
; MaxProcs: 8
; MaxNodes: 8
"""


def swf_line(job, submit, run, alloc, req_procs, req_time, user=1) -> str:
    """One record with the fields read_swf uses; the rest are -1."""
    f = [job, submit, -1, run, alloc, -1, -1, req_procs, req_time, -1, 1, user, 1, -1, 1, 1, -1, -1]
    return " ".join(str(x) for x in f)


def write(tmp_path, text: str, name: str = "trace.swf", gz: bool = False):
    path = tmp_path / (name + (".gz" if gz else ""))
    if gz:
        with gzip.open(path, "wt") as fh:
            fh.write(text)
    else:
        path.write_text(text)
    return path


def table(workload) -> list[tuple]:
    """(id, submit, width, runtime, limit s) of each job, in queue order."""
    return [
        (j.id, j.submit, j.spec.ntasks, j.runtime, j.spec.time_limit.total_seconds())
        for j in workload.jobs
    ]


@pytest.mark.parametrize("gz", [False, True])
def test_header_gives_machine_size_and_origin(tmp_path, gz):
    """MaxProcs is the machine size; UnixStartTime anchors time zero. Plain or gzipped."""
    path = write(tmp_path, HEADER + swf_line(1, 0, 100, 4, 4, 200) + "\n", gz=gz)
    w = read_swf(path)
    assert w.max_procs == 8
    assert w.kind == "trace"
    assert w.origin == pd.Timestamp(1000000000, unit="s")
    assert table(w) == [("1", 0.0, 4, 100.0, 200.0)]


def test_width_and_limit_fall_back_when_requests_are_missing(tmp_path):
    """Width = requested processors if > 0 else allocated; limit = requested time if > 0
    else the run time (at least 1 s)."""
    lines = [
        swf_line(1, 0, 100, 4, 2, 300),  # requested 2 procs, 300 s
        swf_line(2, 5, 100, 4, -1, -1),  # falls back to 4 allocated, limit = run = 100
        swf_line(3, 5, 0, 1, 1, -1),  # zero run time kept, limit at least 1 s
    ]
    w = read_swf(write(tmp_path, HEADER + "\n".join(lines) + "\n"))
    assert table(w) == [
        ("1", 0.0, 2, 100.0, 300.0),
        ("2", 5.0, 4, 100.0, 100.0),
        ("3", 5.0, 1, 0.0, 1.0),
    ]


def test_jobs_without_processors_or_run_time_are_dropped_with_a_warning(tmp_path):
    """Width <= 0 or unknown run time (-1): dropped, and counted in a warning, never silently."""
    lines = [
        swf_line(1, 0, 100, 4, 4, 200),
        swf_line(2, 1, -1, 4, 4, 200),  # unknown run time
        swf_line(3, 2, 50, -1, -1, 200),  # no processors at all
        swf_line(4, 3, 0, 2, 2, 200),  # zero run time: kept
    ]
    path = write(tmp_path, HEADER + "\n".join(lines) + "\n")
    with pytest.warns(UserWarning, match="dropped 2 of 4 jobs"):
        w = read_swf(path)
    assert [j.id for j in w.jobs] == ["1", "4"]
    assert w.dropped == 2


def test_queue_order_is_submit_time_then_job_number(tmp_path):
    """Jobs are queued by submit time, ties by job number, whatever the file order."""
    lines = [swf_line(3, 10, 1, 1, 1, 5), swf_line(2, 10, 1, 1, 1, 5), swf_line(1, 20, 1, 1, 1, 5)]
    w = read_swf(write(tmp_path, HEADER + "\n".join(lines) + "\n"))
    assert [j.id for j in w.jobs] == ["2", "3", "1"]


def test_job_wider_than_the_machine_is_an_error_naming_it(tmp_path):
    """A job wider than MaxProcs raises an error naming its line and job number."""
    path = write(
        tmp_path,
        HEADER + swf_line(1, 0, 10, 2, 2, 20) + "\n" + swf_line(7, 1, 10, 16, 16, 20) + "\n",
    )
    with pytest.raises(
        SlurmlabError, match=r"line 6: job 7 asks for 16 processors but the machine has 8"
    ):
        read_swf(path)


def test_skip_invalid_drops_and_counts_wide_jobs(tmp_path):
    """skip_invalid=True drops jobs wider than the machine and counts them in a warning."""
    path = write(
        tmp_path,
        HEADER + swf_line(1, 0, 10, 2, 2, 20) + "\n" + swf_line(7, 1, 10, 16, 16, 20) + "\n",
    )
    with pytest.warns(UserWarning, match="dropped 1 job wider than 8 processors"):
        w = read_swf(path, skip_invalid=True)
    assert [j.id for j in w.jobs] == ["1"]
    assert w.dropped == 1


def test_procs_overrides_the_header(tmp_path):
    """procs= sets the machine size, so a job wider than MaxProcs may fit."""
    path = write(tmp_path, HEADER + swf_line(7, 1, 10, 16, 16, 20) + "\n")
    assert read_swf(path, procs=16).max_procs == 16


def test_without_a_header_the_machine_is_the_widest_job(tmp_path):
    """No MaxProcs/MaxNodes: the machine is as wide as the widest job."""
    path = write(
        tmp_path, swf_line(1, 0, 10, 3, 3, 20) + "\n" + swf_line(2, 0, 10, 5, 5, 20) + "\n"
    )
    assert read_swf(path).max_procs == 5


def test_a_line_without_18_fields_is_an_error_naming_the_line(tmp_path):
    """A record must have 18 whitespace-separated fields: the error names the line."""
    path = write(tmp_path, HEADER + "1 0 -1 10 2\n")
    with pytest.raises(SlurmlabError, match=r"line 5: 5 fields, SWF has 18"):
        read_swf(path)


def test_a_field_that_is_not_a_number_is_an_error_naming_line_and_field(tmp_path):
    """A non-numeric value: the error names the line and the SWF field."""
    bad = swf_line(1, 0, 10, 2, 2, 20).replace(" 20 ", " ten ")
    path = write(tmp_path, HEADER + bad + "\n")
    with pytest.raises(SlurmlabError, match=r"line 5: field 'req_time' is 'ten', not a number"):
        read_swf(path)


def test_missing_file_is_an_error_naming_it(tmp_path):
    with pytest.raises(SlurmlabError, match="does not exist"):
        read_swf(tmp_path / "nope.swf")


def test_trace_replays_run_times_past_the_requested_time(tmp_path):
    """A trace records what happened: a job that ran past its request is not killed."""
    path = write(
        tmp_path,
        HEADER + swf_line(1, 0, 500, 8, 8, 100) + "\n" + swf_line(2, 1, 10, 8, 8, 100) + "\n",
    )
    w = read_swf(path)
    result = simulate(swf_cluster(w.max_procs), w, "easy")
    assert list(result.jobs["State"]) == ["COMPLETED", "COMPLETED"]
    assert list(result.seconds("Start")) == [0, 500]
    assert list(result.jobs["Timelimit"]) == [timedelta(seconds=100)] * 2


@pytest.mark.parametrize("gz", [False, True])
def test_a_utf8_byte_order_mark_is_skipped(tmp_path, gz):
    """A BOM before the first header line (editors on Windows write one) is not part of it."""
    path = write(tmp_path, "\ufeff" + HEADER + swf_line(1, 0, 100, 4, 4, 200) + "\n", gz=gz)
    w = read_swf(path)
    assert (w.max_procs, w.origin) == (8, pd.Timestamp(1000000000, unit="s"))


@pytest.mark.parametrize(
    ("header", "size"),
    [
        ("; MaxProcs: -1\n; MaxNodes: 6\n", 6),  # -1 is missing: MaxNodes, as without MaxProcs
        ("; MaxNodes: 6\n", 6),
        ("; MaxProcs: -1\n; MaxNodes: -1\n", 5),  # both missing: the widest job
        ("; MaxProcs: -1\n", 5),
        ("", 5),
    ],
)
def test_a_header_of_minus_one_is_missing(tmp_path, header, size):
    """SWF's -1 means missing in the header too: the size falls back as when it is absent."""
    lines = swf_line(1, 0, 10, 3, 3, 20) + "\n" + swf_line(2, 0, 10, 5, 5, 20) + "\n"
    assert read_swf(write(tmp_path, header + lines)).max_procs == size


@pytest.mark.parametrize(
    ("value", "origin"),
    [
        ("843480031", pd.Timestamp(843480031, unit="s")),
        ("843480031.0", pd.Timestamp(843480031, unit="s")),  # was silently ignored
        ("-1", None),  # missing: the default origin
    ],
)
def test_unix_start_time_is_a_whole_number_of_seconds(tmp_path, value, origin):
    from slurmlab.spec.workload import DEFAULT_ORIGIN

    path = write(tmp_path, f"; UnixStartTime: {value}\n" + swf_line(1, 0, 10, 2, 2, 20) + "\n")
    assert read_swf(path).origin == (origin if origin is not None else DEFAULT_ORIGIN)


def test_whole_numbers_may_be_written_as_floats(tmp_path):
    """1e2 and 4.0 are whole numbers: read as 100 and 4."""
    line = swf_line(1, 0, "1e2", "4.0", "4.0", "2e2")
    assert table(read_swf(write(tmp_path, HEADER + line + "\n"))) == [("1", 0.0, 4, 100.0, 200.0)]


def test_cluster_is_the_machine_that_decides_what_is_too_wide(tmp_path):
    """With cluster= (the CLI's --cluster), a job fits when the cluster can run it (tiny: 4
    nodes of 16 CPUs, so 32 processors is two nodes), whatever the header's MaxProcs says."""
    tiny = Cluster.preset("tiny")
    lines = [swf_line(1, 0, 10, 32, 32, 20), swf_line(2, 1, 10, 500, 500, 20)]
    path = write(tmp_path, "; MaxProcs: 1000\n" + "\n".join(lines) + "\n")
    with pytest.raises(
        SlurmlabError,
        match=r"line 3: job 2 asks for 500 processors, which cluster 'tiny' cannot give one job "
        r"\(partition 'main' has 64 CPUs on 4 nodes: it would pend for ever, PartitionConfig\); "
        r"pass "
        r"--skip-invalid",
    ):
        read_swf(path, cluster=tiny)
    dropped = r"dropped 1 job wider than cluster 'tiny' \(the first: line 3, job 2, 500 proc"
    with pytest.warns(UserWarning, match=dropped):
        w = read_swf(path, cluster=tiny, skip_invalid=True)
    assert [j.id for j in w.jobs] == ["1"]
    assert (w.dropped, w.max_procs) == (1, 64)
    assert list(simulate(tiny, w).jobs["NNodes"]) == [2]


def test_cluster_ignores_the_header_machine_size(tmp_path):
    """The header's MaxProcs describes the trace's machine, not the cluster it runs on."""
    path = write(tmp_path, "; MaxProcs: many\n" + swf_line(1, 0, 10, 32, 32, 20) + "\n")
    assert len(read_swf(path, cluster=Cluster.preset("tiny"))) == 1
