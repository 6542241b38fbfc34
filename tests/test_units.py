"""Slurm's small value syntaxes: ``-t`` durations, memory sizes and hostlists."""

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from slurmlab.errors import SlurmlabError
from slurmlab.spec.units import (
    compress_hostlist,
    expand_hostlist,
    format_duration,
    parse_duration,
    parse_memory_mb,
    parse_seconds,
)

# -- durations -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("90", timedelta(minutes=90)),  # M
        ("1:30", timedelta(minutes=1, seconds=30)),  # M:S
        ("2:03:04", timedelta(hours=2, minutes=3, seconds=4)),  # H:M:S
        ("2-3", timedelta(days=2, hours=3)),  # D-H
        ("2-3:04", timedelta(days=2, hours=3, minutes=4)),  # D-H:M
        ("2-3:04:05", timedelta(days=2, hours=3, minutes=4, seconds=5)),  # D-H:M:S
        ("7-00:00:00", timedelta(days=7)),
        (" 30 ", timedelta(minutes=30)),
    ],
)
def test_duration_every_sbatch_form(text, expected):
    """-t accepts M, M:S, H:M:S, D-H, D-H:M and D-H:M:S; a bare number is minutes."""
    assert parse_duration(text) == expected


@pytest.mark.parametrize("text", ["UNLIMITED", "unlimited", "INFINITE"])
def test_duration_unlimited_is_none(text):
    """UNLIMITED (or INFINITE) means no time limit, which is None."""
    assert parse_duration(text) is None


def test_duration_numbers_are_minutes_and_timedeltas_pass_through():
    """A Python number is minutes, as sbatch reads a bare number; a timedelta is kept."""
    assert parse_duration(45) == timedelta(minutes=45)
    assert parse_duration(timedelta(hours=1)) == timedelta(hours=1)


@pytest.mark.parametrize("text", ["abc", "1-", "-5", "1:2:3:4", "1-2-3", "", "1h", "1.5", True])
def test_duration_malformed_names_the_value(text):
    """A malformed time limit raises an error quoting the value and the accepted forms."""
    with pytest.raises(SlurmlabError, match="invalid time") as exc:
        parse_duration(text)
    if isinstance(text, str) and text:
        assert repr(text) in str(exc.value)


@pytest.mark.parametrize(
    ("td", "text"),
    [
        (None, "UNLIMITED"),
        (timedelta(minutes=30), "30:00"),
        (timedelta(hours=2, minutes=5), "2:05:00"),
        (timedelta(days=1, hours=2), "1-02:00:00"),
        (timedelta(seconds=7), "0:07"),
    ],
)
def test_format_duration_like_slurm(td, text):
    """Durations print as Slurm prints them: [D-]H:MM:SS, MM:SS under an hour."""
    assert format_duration(td) == text


@given(st.integers(min_value=1, max_value=400 * 86400))
def test_format_then_parse_round_trips(seconds):
    """Whatever format_duration prints, parse_duration reads back to the same duration."""
    td = timedelta(seconds=seconds)
    assert parse_duration(format_duration(td)) == td


def test_parse_seconds_scenario_offsets():
    """Scenario offsets: a bare number is seconds, [D-]HH:MM:SS text is read as a clock."""
    assert parse_seconds(90) == 90.0
    assert parse_seconds("90") == 90.0
    assert parse_seconds("1:30") == 90.0
    assert parse_seconds("1:00:00") == 3600.0
    assert parse_seconds("1-00:00:00") == 86400.0
    for bad in (-1, "soon", True, float("nan"), "2x", "h"):
        with pytest.raises(SlurmlabError):
            parse_seconds(bad)


def test_parse_seconds_reads_day_forms_as_sbatch_t_does():
    """With days, Slurm's forms are D-H, D-H:M and D-H:M:S (sbatch -t reads them so): the
    same text is never one duration as a runtime and another as a time limit."""
    assert parse_seconds("1-12") == 36 * 3600.0
    assert parse_seconds("1-12:00") == 36 * 3600.0  # not 1 day 12 minutes
    assert parse_seconds("1-2:3") == 86400 + 2 * 3600 + 180.0
    assert parse_seconds("1-2:3:4") == 86400 + 2 * 3600 + 184.0
    for text in ("1-12", "1-12:00", "1-2:3", "1-2:3:4", "1:30", "1:00:00"):
        limit = parse_duration(text).total_seconds()
        assert parse_seconds(text) == limit, text


def test_parse_seconds_takes_timedeltas_and_refuses_times_no_simulation_can_hold():
    import pandas as pd

    assert parse_seconds(pd.Timedelta("30min")) == 1800.0  # (what sacct returns)
    assert parse_seconds(timedelta(hours=2)) == 7200.0
    for bad in (float("inf"), 2e9, "40000d", "1000000-00:00:00"):
        with pytest.raises(SlurmlabError, match=r"over 1e\+09 s"):
            parse_seconds(bad, what="runtime")
    with pytest.raises(SlurmlabError, match="must not be negative"):
        parse_seconds(pd.Timedelta(-5, "s"))


def test_parse_seconds_takes_a_number_with_a_unit_everywhere():
    """``45s``, ``30m``, ``2h``, ``1.5d``: the same forms in lab.advance, squeue(at=) and files."""
    assert [parse_seconds(t) for t in ("45s", "30m", "2h", "1.5d", "2 H")] == [
        45.0, 1800.0, 7200.0, 129600.0, 7200.0,
    ]  # fmt: skip
    from slurmlab import Lab

    lab = Lab("tiny")
    job = lab.sbatch("-N 1 -t 60", runtime="90m")
    lab.advance("2h")
    assert lab.now == 7200.0
    assert lab.result.squeue(at="30m").JOBID.tolist() == [str(job)]
    assert lab.result.squeue(at="91m").empty


# -- memory ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "mb"),
    [
        ("4000", 4000),
        ("4000M", 4000),
        ("64G", 65536),
        ("64g", 65536),
        ("64GB", 65536),
        ("1T", 1048576),
        ("1.5G", 1536),
        ("2048K", 2),
        ("512K", 1),  # partial MB rounds up
        ("0", 0),
        (8000, 8000),
    ],
)
def test_memory_sizes_in_mb(text, mb):
    """Memory is MB unless a K/M/G/T suffix says otherwise (1024-based), rounded up to MB."""
    assert parse_memory_mb(text) == mb


@pytest.mark.parametrize("text", ["lots", "-1", "64X", "G", "", -5])
def test_memory_malformed_names_the_value(text):
    """A malformed memory size raises an error quoting the value."""
    with pytest.raises(SlurmlabError, match="invalid memory"):
        parse_memory_mb(text)


# -- hostlists ------------------------------------------------------------------------------


def test_hostlist_expand_ranges_in_order():
    """A hostlist expands ranges with their zero padding, keeping the written order."""
    assert expand_hostlist("gpu[001-003],cpu1") == ["gpu001", "gpu002", "gpu003", "cpu1"]
    assert expand_hostlist("n[1,3-4]") == ["n1", "n3", "n4"]


def test_hostlist_compress_sorts_numerically():
    """Compression sorts numerically, as Slurm does (n9 before n10)."""
    assert compress_hostlist(["n10", "n9", "n1"]) == "n[1,9-10]"
    assert compress_hostlist(["gpu001", "gpu002", "gpu003", "gpu005"]) == "gpu[001-003,005]"


def test_hostlist_malformed():
    """An unbalanced bracket is an error naming the expression."""
    with pytest.raises(SlurmlabError, match="invalid hostlist 'gpu\\[01-'"):
        expand_hostlist("gpu[01-")


node_names = st.builds(
    lambda prefix, width, number: f"{prefix}{number:0{width}d}",
    st.sampled_from(["gpu", "cpu", "node", "a", "dgx-h100-"]),
    st.integers(min_value=1, max_value=4),
    st.integers(min_value=0, max_value=9999),
)


@given(st.sets(node_names, min_size=1, max_size=40))
def test_hostlist_round_trip(names):
    """Any set of node names survives compress then expand (as a set, without duplicates)."""
    expr = compress_hostlist(names)
    expanded = expand_hostlist(expr)
    assert sorted(expanded) == sorted(names)
    assert len(expanded) == len(names)
    assert compress_hostlist(expanded) == expr
