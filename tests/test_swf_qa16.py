"""SWF reader: times too large for the calendar, ambiguous headers, limits a cluster's
partition would never run, and the hints in its errors."""

from __future__ import annotations

import pytest

from slurmlab import Cluster, SlurmlabError, read_swf

RECORD = "{job} {submit} -1 {run} 4 -1 -1 4 {req} -1 1 1 1 1 1 1 -1 -1\n"


def trace(tmp_path, *records, header="; MaxProcs: 8\n"):
    path = tmp_path / "t.swf"
    path.write_text(header + "".join(RECORD.format(**r) for r in records))
    return path


@pytest.mark.parametrize(
    ("record", "field"),
    [
        ({"job": 1, "submit": "1e12", "run": 100, "req": 200}, "submit"),
        ({"job": 1, "submit": 0, "run": 99999999999, "req": 200}, "run"),
    ],
)
def test_times_beyond_the_calendar_are_errors_naming_line_and_field(tmp_path, record, field):
    with pytest.raises(
        SlurmlabError, match=rf"line 2: field '{field}' is .* SWF times are seconds"
    ):
        read_swf(trace(tmp_path, record))


def test_a_unix_start_time_beyond_2100_is_an_error(tmp_path):
    path = trace(
        tmp_path,
        {"job": 1, "submit": 0, "run": 100, "req": 200},
        header="; MaxProcs: 8\n; UnixStartTime: 99999999999999\n",
    )
    with pytest.raises(SlurmlabError, match="line 2: header field 'UnixStartTime'"):
        read_swf(path)


def test_a_used_header_field_given_twice_differently_is_an_error(tmp_path):
    path = trace(
        tmp_path,
        {"job": 1, "submit": 0, "run": 100, "req": 200},
        header="; MaxProcs: 8\n; MaxProcs: 2\n",
    )
    with pytest.raises(SlurmlabError, match="line 2: header field 'MaxProcs' is '2', but line 1"):
        read_swf(path)


def test_errors_say_how_to_fix_the_line(tmp_path):
    path = tmp_path / "t.swf"
    path.write_text("1 0 -1 abc 4 -1 -1 4 200 -1 1 1 1 1 1 1 -1 -1\n")
    with pytest.raises(SlurmlabError, match="not a number; SWF fields are numbers"):
        read_swf(path)
    path.write_text("1 0 -1 100\n")
    with pytest.raises(SlurmlabError, match="start it with ';' if it is a comment"):
        read_swf(path)


def test_a_limit_over_the_partitions_max_time_is_refused_or_dropped(tmp_path):
    """On a cluster, a job whose limit exceeds the default partition's MaxTime would pend for
    ever (PartitionTimeLimit): an error naming it, or dropped and counted."""
    cluster = Cluster.from_slurm_conf(
        "NodeName=n[1-2] CPUs=8 RealMemory=8000\n"
        "PartitionName=p Nodes=n[1-2] Default=YES MaxTime=1:00:00\n"
    )
    path = trace(
        tmp_path,
        {"job": 1, "submit": 0, "run": 100, "req": 200_000},
        {"job": 2, "submit": 5, "run": 100, "req": 600},
    )
    with pytest.raises(
        SlurmlabError, match="line 2: job 1 asks for 200000 s, over the MaxTime of partition 'p'"
    ):
        read_swf(path, cluster=cluster)
    with pytest.warns(UserWarning, match="dropped 1 job over the MaxTime of partition 'p'"):
        work = read_swf(path, cluster=cluster, skip_invalid=True)
    assert [j.id for j in work.jobs] == ["2"] and work.dropped == 1
