"""Property and fuzz tests of the sacct field parsers and of read_sacct as a whole."""

from __future__ import annotations

import contextlib
import io

import pandas as pd
import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slurmlab.records import sacct
from slurmlab.records.sacct import (
    SacctParseError,
    expand_nodelist,
    gres_gpus,
    parse_duration,
    parse_job_id,
    parse_memory,
    parse_reqmem,
    parse_state,
    parse_tres,
    read_sacct,
    tres_gpus,
)
from slurmlab.records.schema import STATE_ABBREVIATIONS, STATES

durations = st.integers(min_value=0, max_value=500 * 86400)


def _sacct_duration(seconds: int, millis: int | None) -> str:
    days, rest = divmod(seconds, 86400)
    h, rest = divmod(rest, 3600)
    m, s = divmod(rest, 60)
    text = f"{h:02d}:{m:02d}:{s:02d}"
    if days:
        text = f"{days}-{text}"
    if millis is not None and not days and not h:
        text = f"{m:02d}:{s:02d}.{millis:03d}"  # sacct's CPU-time form
    return text


@given(durations, st.one_of(st.none(), st.integers(0, 999)))
def test_duration_text_round_trips(seconds, millis):
    text = _sacct_duration(seconds, millis)
    expected = pd.Timedelta(seconds=seconds)
    if "." in text:
        expected += pd.Timedelta(milliseconds=millis)
    assert parse_duration(text) == expected


def test_duration_forms_from_real_exports():
    assert parse_duration("22-08:05:48") == pd.Timedelta(days=22, hours=8, minutes=5, seconds=48)
    assert parse_duration("451-06:00:24").days == 451
    assert parse_duration("00:00.001") == pd.Timedelta(milliseconds=1)
    assert parse_duration("14:00") == pd.Timedelta(minutes=14)  # two parts are MM:SS
    assert parse_duration("Partition_Limit") is None and parse_duration("") is None


@given(st.lists(st.text(max_size=12), min_size=1, max_size=50))
def test_vectorised_durations_match_the_scalar_parser(values):
    arr = pa.array(values, pa.string())
    vec, bad = sacct._durations(arr)
    for value, got, is_bad in zip(values, vec.to_pylist(), bad):
        try:
            want = parse_duration(value)
        except SacctParseError:
            assert is_bad
            continue
        assert not is_bad
        assert (got is None and want is None) or pd.Timedelta(got) == want


@given(st.lists(st.text(alphabet="0123456789.KMGTPnc xb", max_size=10), min_size=1, max_size=50))
def test_vectorised_memory_matches_the_scalar_parser(values):
    vec, _per, bad = sacct._memory(pa.array(values, pa.string()), 1 / 1024**2)
    for value, got, is_bad in zip(values, vec.to_pylist(), bad):
        try:
            want = parse_memory(value)  # a bare number: bytes by default
        except SacctParseError:
            assert is_bad
            continue
        assert not is_bad and (got == want or (got is None and want is None))


@given(st.integers(0, 10**7), st.sampled_from(["K", "M", "G", "T"]))
def test_memory_units_are_binary(number, unit):
    factor = {"K": 1 / 1024, "M": 1, "G": 1024, "T": 1024**2}[unit]
    assert parse_memory(f"{number}{unit}") == number * factor


def test_reqmem_legacy_suffix_and_blank():
    assert parse_reqmem("0n") == (0, "node")
    assert parse_reqmem("100Mc") == (100, "cpu")
    assert parse_reqmem("2T") == (2 * 1024 * 1024, None)
    assert parse_reqmem("") == (None, None)
    assert parse_memory("0.07Mn") == 0.07  # the suffix leaked into a usage field


@given(
    st.integers(0, 16),
    st.integers(0, 16),
    st.permutations(["cpu=8", "mem=64G", "node=1", "billing=8"]),
)
def test_typed_and_untyped_gpus_are_never_summed(untyped, typed, others):
    """sacct writes gres/gpu as the total, at least the typed entries' sum; a smaller total
    contradicts them (test_qa_stop26_fuzz_records)."""
    untyped += typed
    items = [*others, f"gres/gpu:a100={typed}", f"gres/gpu={untyped}"]
    assert tres_gpus(",".join(items)) == untyped
    assert tres_gpus(",".join([*others, f"gres/gpu:a100={typed}", "gres/gpu:a40=1"])) == typed + 1


def test_tres_mig_names_and_order():
    assert tres_gpus("gres/gpu:a100_1g.5gb=2,cpu=1") == 2
    assert parse_tres("fs/disk=0,energy=30") == {"fs/disk": "0", "energy": "30"}


def test_legacy_gres():
    assert [
        gres_gpus(t)
        for t in (
            "gpu:4",
            "gpu:V100:2",
            "gpu:P100:2(IDX:0-1)",
            "hbm:0,gpu:4,bandwidth:4G",
            "gpu:0(IDX:N/A)",
        )
    ] == [4, 2, 2, 4, 0]


@given(st.sampled_from(STATES), st.sampled_from(["", " by 1234", "+"]))
def test_every_documented_state_is_kept(state, suffix):
    assert parse_state(state + suffix) == state


def test_state_abbreviations():
    for short, full in STATE_ABBREVIATIONS.items():
        assert parse_state(short) == full


@given(
    st.integers(1, 10**9),
    st.lists(st.tuples(st.integers(0, 500), st.integers(0, 50)), min_size=1, max_size=5),
    st.one_of(st.none(), st.integers(1, 9)),
)
def test_pending_array_ranges_count_tasks(job, spans, throttle):
    parts = [f"{lo}-{lo + width}" if width else str(lo) for lo, width in spans]
    text = f"{job}_[{','.join(parts)}{'' if throttle is None else f'%{throttle}'}]"
    parsed = parse_job_id(text)
    assert parsed.array_job_id == str(job)
    assert parsed.array_tasks == sum(w + 1 for _, w in spans)


def test_nodelists():
    assert expand_nodelist("d13n[03,05,07-08,16]") == [
        "d13n03",
        "d13n05",
        "d13n07",
        "d13n08",
        "d13n16",
    ]
    assert expand_nodelist("None assigned") == []
    assert len(expand_nodelist("d07n07s02,d09n04s[01-02],hero[4515-4516]")) == 5


fuzz_rows = st.lists(
    st.lists(
        st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=15),
        min_size=0,
        max_size=8,
    ),
    max_size=8,
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    st.sampled_from(["JobID|State|Elapsed|ReqMem|AllocTRES|Submit", "", "JobID"]),
    fuzz_rows,
    st.sampled_from(["raise", "warn", "coerce"]),
)
def test_fuzz_reader_only_raises_its_own_error(header, rows, errors):
    text = header + "\n" + "\n".join("|".join(r) for r in rows)
    try:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            read_sacct(io.StringIO(text), errors=errors)
    except SacctParseError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_fuzz_bytes_only_raise_its_own_error(data):
    try:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            read_sacct(data, errors="coerce")
    except SacctParseError:
        pass


@settings(max_examples=200)
@given(st.text(max_size=30))
def test_scalar_parsers_only_raise_their_own_error(text):
    for parser in (
        parse_duration,
        parse_memory,
        parse_reqmem,
        parse_tres,
        tres_gpus,
        gres_gpus,
        parse_job_id,
        expand_nodelist,
        sacct.parse_timestamp,
    ):
        with contextlib.suppress(SacctParseError):
            parser(text)
    assert isinstance(parse_state(text), str)


_DUR_TEXT = st.lists(st.sampled_from(list("0123456789:-. ")), max_size=16).map("".join)
_JOBID_TEXT = st.lists(
    st.sampled_from([*"0123456789_[]%-+.,", "batch", "extern", "99999999999"]), max_size=14
).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(_DUR_TEXT, min_size=1, max_size=20))
def test_vectorised_durations_agree_on_sacct_like_text(values):
    """Long digit runs included: nothing may overflow int64 nanoseconds."""
    vec, bad = sacct._durations(pa.array(values, pa.string()))
    for value, got, is_bad in zip(values, vec.to_pylist(), bad):
        try:
            want = parse_duration(value)
        except SacctParseError:
            assert is_bad
            continue
        assert not is_bad and ((got is None and want is None) or pd.Timedelta(got) == want)


@settings(max_examples=300, deadline=None)
@given(st.lists(_JOBID_TEXT, min_size=1, max_size=20))
def test_vectorised_job_ids_agree_with_parse_job_id(values):
    out, bad = sacct._job_ids(pa.array(values, pa.string()))
    for i, value in enumerate(values):
        try:
            parts = parse_job_id(value)
        except SacctParseError:
            assert bad[i]
            continue
        assert not bad[i]
        assert out["AllocJobID"][i].as_py() == parts.job_id
        assert out["StepID"][i].as_py() == parts.step
        assert out["ArrayJobID"][i].as_py() == parts.array_job_id
        assert out["ArrayTaskID"][i].as_py() == parts.array_task_id
        assert out["ArrayTasks"][i].as_py() == parts.array_tasks
        assert out["HetJobOffset"][i].as_py() == parts.het_offset


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.sampled_from(
            [
                *"|0123456789_[]%-+.:#\n ,=KMGTnc",
                "JobID",
                "State",
                "Submit",
                "Elapsed",
                "ReqMem",
                "AllocTRES",
                "2024-01-01T00:00:00",
                "CANCELLED by 1",
                "gres/gpu=",
                "Unknown",
                "batch",
                "9" * 30,
            ]
        ),
        max_size=60,
    ).map("".join),
    st.sampled_from(["raise", "warn", "coerce"]),
    st.sampled_from(
        [None, ["JobID", "State"], ["JobID", "Elapsed", "ReqMem", "AllocTRES", "Submit"]]
    ),
)
def test_fuzz_sacct_like_text_only_raises_its_own_error(text, errors, fields):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.suppress(SacctParseError):
            read_sacct(io.StringIO(text), errors=errors, fields=fields)
