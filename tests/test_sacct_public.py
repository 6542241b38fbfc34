"""Golden tests: every real capture in shared/datasets/public/sacct reads, with known numbers.

The folder lives beside the repository (``../shared``) or where SLURMLAB_SHARED points; the
tests skip when it is absent. Field orders of header-less files come from its README.
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path

import pytest

from slurmlab.records.sacct import SacctParseError, read_sacct, steps


def _shared() -> Path:
    env = os.environ.get("SLURMLAB_SHARED")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "shared"


SACCT = _shared() / "datasets/public/sacct"
pytestmark = pytest.mark.skipif(not SACCT.is_dir(), reason=f"public samples not found at {SACCT}")

# Field orders of the header-less files, from the folder's README.
ORDER_A = [
    "State",
    "JobID",
    "ReqCPUS",
    "ReqMem",
    "ReqNodes",
    "Constraints",
    "Submit",
    "Eligible",
    "Start",
    "Elapsed",
    "Suspended",
    "End",
    "ExitCode",
    "DerivedExitCode",
    "AllocNodes",
    "NCPUS",
    "MaxDiskRead",
    "MaxDiskWrite",
    "MaxPages",
    "MaxRSS",
    "MaxVMSize",
    "CPUTime",
    "UserCPU",
    "SystemCPU",
    "TotalCPU",
]
ORDER_A26 = [*ORDER_A, "Partition"]  # newer captures add Partition; 25-field rows are padded
ORDER_B = [
    "JobID",
    "JobName",
    "User",
    "Partition",
    "NodeList",
    "NNodes",
    "NCPUs",
    "NTasks",
    "State",
    "Submit",
    "Start",
    "End",
    "Timelimit",
    "Elapsed",
    "TotalCPU",
    "CPUTime",
    "UserCPU",
    "SystemCPU",
    "ReqMem",
    "MaxRSS",
    "MaxVMSize",
    "ReqTRES",
    "AllocTRES",
    "TRESUsageInMax",
    "TRESUsageInTot",
    "TRESUsageOutTot",
    "MaxDiskRead",
    "MaxDiskWrite",
    "MaxRSSNode",
    "MaxRSSTask",
    "MaxVMSizeNode",
    "MaxVMSizeTask",
    "MaxDiskReadNode",
    "MaxDiskReadTask",
    "MaxDiskWriteNode",
    "MaxDiskWriteTask",
    "Comment",
]
ORDER_C = [
    "User",
    "JobID",
    "JobName",
    "State",
    "Partition",
    "NCPUS",
    "NNodes",
    "CPUTime",
    "TotalCPU",
    "UserCPU",
    "SystemCPU",
    "ReqMem",
    "MaxRSS",
    "Submit",
    "Start",
    "End",
    "NodeList",
]
ORDER_D = [
    "jobid",
    "jobidraw",
    "cluster",
    "partition",
    "qos",
    "account",
    "group",
    "gid",
    "user",
    "uid",
    "submit",
    "eligible",
    "start",
    "end",
    "elapsed",
    "exitcode",
    "state",
    "nnodes",
    "ncpus",
    "reqcpus",
    "reqmem",
    "reqtres",
    "alloctres",
    "timelimit",
    "nodelist",
    "jobname",
]
ORDER_E = [
    "jobid",
    "jobidraw",
    "cluster",
    "partition",
    "account",
    "group",
    "gid",
    "user",
    "uid",
    "submit",
    "eligible",
    "start",
    "end",
    "elapsed",
    "exitcode",
    "state",
    "nnodes",
    "ncpus",
    "reqcpus",
    "reqmem",
    "reqgres",
    "reqtres",
    "timelimit",
    "nodelist",
    "jobname",
]
# The README calls the array file "order E (25 fields)", but its rows have 26: one more empty
# field after reqtres, which is alloctres (the D list's position).
ORDER_E_ALLOC = [*ORDER_E[:22], "alloctres", *ORDER_E[22:]]
ORDER_F = [
    "AdminComment",
    "AllocCPUS",
    "Elapsed",
    "JobID",
    "JobIDRaw",
    "MaxRSS",
    "NNodes",
    "NTasks",
    "ReqMem",
    "State",
    "Timelimit",
    "TotalCPU",
]

FIELDS = {
    "hb-jobinfo_sacct-snowman-delim.txt": ORDER_B,
    "hpc-cost-simulator_array.txt": ORDER_A,
    "hpc-cost-simulator_issue-17.txt": ORDER_A,
    "hpc-cost-simulator_issue-5.txt": ORDER_A,
    "hpc-cost-simulator_issue-59.txt": ORDER_A26,
    "hpc-cost-simulator_issue-61.txt": ORDER_A26,
    "hpc-cost-simulator_issue-63.txt": ORDER_A,
    "hpc-cost-simulator_issue-gl-20.txt": ORDER_A,
    "hpc-cost-simulator_multi-node.txt": ORDER_A,
    "hpc-cost-simulator_sacct-output-v2.txt": ORDER_A26,
    "reportseff_console-jobs.caretpipe.txt": ORDER_F,
    "reportseff_console-jobs-no-timelimit.caretpipe.txt": [f for f in ORDER_F if f != "Timelimit"],
    "reportseff_issue16-many-steps.caretpipe.txt": ORDER_F,
    "reportseff_issue58-timeout.caretpipe.txt": ORDER_F,
    "reportseff_energy-array.caretpipe.txt": [*ORDER_F[:10], "TRESUsageOutTot", *ORDER_F[10:]],
    "slyme_sacct_single_parallel_COMPLETED_parsable.txt": ORDER_C,
    "slyme_sacct_single_serial_COMPLETED_parsable.txt": ORDER_C,
    "xdmod_accounting-logs.psv": ORDER_D,
    "xdmod_non-ended-job-state.psv": ORDER_D,
    "xdmod_accounting-logs-with-job-arrays.psv": ORDER_E_ALLOC,
    "xdmod_utf8-multibyte-chars.psv": ORDER_E,
    "xdmod_reqgres-variants-synthetic.psv": ORDER_E,
}
#: Files with malformed rows on purpose (the upstream tests' error cases): line -> why.
EXPECTED_BAD = {
    "hpc-cost-simulator_issue-gl-20.txt": {
        6: "ReqMem 100Mcd",
        15: "MaxRSS 0.07Mnz",
        22: "truncated job line",
        31: "truncated .batch line",
    },
}


#: Files whose last line has no line end (hand-made upstream): read, with a warning that the
#: file may be truncated (sacct ends every line).
NO_LINE_END = {"slurm2sql_test-data2.psv"}

#: Files read with one warning on purpose: rows padded because they are short (a 25-field
#: export appended to a 26-field one), and a State sacct does not have (invented upstream).
EXPECTED_WARNING = {
    "hpc-cost-simulator_sacct-output-v2.txt": r"846 row\(s\) have fewer fields than the field",
    "hpc-cost-simulator_issue-61.txt": r"State 'INVALID' \(line\(s\) 4\) is not a sacct job state",
    # (XDMoD's field list has ReqGRES but no AllocTRES: the GPUs are those requested)
    "xdmod_reqgres-variants-synthetic.psv": r"the export has no AllocTRES, so NGPUS",
}


def _files():
    if not SACCT.is_dir():
        return []
    return sorted(p.name for p in SACCT.iterdir() if p.name != "README.md")


def _read(name: str, **kwargs):
    return read_sacct(SACCT / name, fields=FIELDS.get(name), **kwargs)


@pytest.mark.parametrize("name", _files())
def test_every_public_file_reads(name):
    """Each capture reads with no unexplained bad row; known bad rows are reported exactly."""
    expected = EXPECTED_BAD.get(name, {})
    if expected:
        with pytest.raises(SacctParseError) as info:
            _read(name)
        assert info.value.line == min(expected)
        with pytest.warns(UserWarning, match="left out 4 malformed"):
            jobs = _read(name, errors="warn")
        assert jobs.attrs["bad_lines"] == sorted(expected)
    elif name in NO_LINE_END or name in EXPECTED_WARNING:
        match = EXPECTED_WARNING.get(name, "the last line has no line end")
        with pytest.warns(UserWarning, match=match) as caught:
            jobs = _read(name)
        assert len([w for w in caught if _COMMENTS not in str(w.message)]) == 1
        assert jobs.attrs["bad_rows"] == 0
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            warnings.filterwarnings("ignore", message=f".*{re.escape(_COMMENTS)}")  # (see below)
            jobs = _read(name)
        assert jobs.attrs["bad_rows"] == 0
    assert len(jobs) + len(steps(jobs)) > 0
    assert jobs["State"].notna().all() or "State" not in jobs.attrs["fields"]


#: The warning about '#' lines added to a capture (sacct writes none).
_COMMENTS = "'#' comment line(s)"


@pytest.mark.parametrize("name", _files())
def test_comment_lines_added_to_a_capture_are_said(name):
    """The captures' own '#' notes (a title, the sbatch line) are skipped and named."""
    lines = (SACCT / name).read_bytes().decode("utf-8", "replace").splitlines()
    notes = [n for n, line in enumerate(lines, start=1) if line.lstrip().startswith("#")]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _read(name, errors="warn")
    said = [str(w.message) for w in caught if _COMMENTS in str(w.message)]
    if not notes:
        assert said == []
    else:
        assert len(said) == 1
        assert f"skipped {len(notes)} {_COMMENTS}, at line(s) " in said[0]
        assert ", ".join(map(str, notes[:20])) in said[0]


def test_every_file_in_the_folder_has_a_known_layout():
    headerless = {n for n in _files() if not n.startswith(("tdhock", "slurm2sql"))}
    assert headerless <= set(FIELDS)


def test_timeout_step_carries_the_job_state():
    jobs = _read("tdhock-slurm_sacct-manyfields.txt")
    assert jobs["State"].tolist() == ["TIMEOUT"]
    s = steps(jobs).set_index("StepID")
    assert s.loc["batch", "State"] == "CANCELLED"
    assert s.loc["batch", "ExitCode"] == "0:15"
    assert s.loc["batch", "JobState"] == "TIMEOUT"
    assert s["User"].isna().all()  # steps have a blank User


def test_snowman_delimiter_with_trailing_delimiter_and_typed_gpus():
    jobs = _read("hb-jobinfo_sacct-snowman-delim.txt")
    assert jobs.attrs["delimiter"] == "\u2603"
    assert jobs.attrs["format"] == "parsable"
    row = jobs.loc[jobs["AllocTRES"].str.contains("gres/gpu:v100=1", na=False)].iloc[0]
    assert row["NGPUS"] == 1  # gres/gpu:v100=1 and gres/gpu=1 are the same GPU
    assert row["GPUType"] == "v100"
    assert (jobs.loc[jobs["Start"].isna(), "NodeList"].isna()).all()  # "None assigned"
    assert "CANCELLED" in set(jobs["State"])


def test_pending_array_ranges_count_their_tasks():
    jobs = _read("xdmod_accounting-logs-with-job-arrays.psv")
    got = dict(zip(jobs["JobID"], jobs["ArrayTasks"]))
    assert got == {
        "4103947_100": 1,
        "4103947_[1-3]": 3,
        "4103947_[1,5]": 2,
        "4103947_[9-11,20]": 4,
        "4103947_[91,100-102]": 4,
        "4103947_[9-11,13,16-20]": 9,
    }
    assert set(jobs["ArrayJobID"]) == {"4103947"}
    assert jobs.loc[0, "ArrayTaskID"] == 100


def test_array_task_with_its_own_raw_id():
    jobs = _read("reportseff_console-jobs-no-timelimit.caretpipe.txt")
    row = jobs.set_index("JobID").loc["24220929_421"]
    assert row["JobIDRaw"] == "24221219"
    assert row["ReqMem"] == 16000 and row["ReqMemPer"] == "node"


def test_legacy_reqmem_suffixes_and_units():
    jobs = _read("xdmod_accounting-logs.psv").set_index("JobID")
    assert (jobs.loc["4103947", "ReqMem"], jobs.loc["4103947", "ReqMemPer"]) == (3000, "cpu")
    assert (jobs.loc["4107166", "ReqMem"], jobs.loc["4107166", "ReqMemPer"]) == (48000, "node")
    assert jobs.loc["4107166", "State"] == "CANCELLED"
    assert jobs.loc["4107166", "CancelledBy"] == "102216"
    assert jobs.loc["5692623", "NGPUS"] == 2
    assert pd_isna(jobs.loc["5692623", "Eligible"])


def pd_isna(value) -> bool:
    import pandas as pd

    return bool(pd.isna(value))


def test_mixed_column_counts_in_one_file():
    jobs = _read("hpc-cost-simulator_sacct-output-v2.txt")
    assert jobs.attrs["padded_rows"] == 846
    assert jobs.attrs["bad_rows"] == 0
    assert set(jobs["Partition"].dropna()) == {"partition1", "partition2"}


def test_many_steps_memory_is_the_max_over_steps():
    jobs = _read("reportseff_issue16-many-steps.caretpipe.txt")
    assert len(jobs) == 1 and len(steps(jobs)) == 38
    peak = steps(jobs)["MaxRSS"].max()
    assert jobs.loc[0, "MaxRSS"] == peak


def test_legacy_reqgres_gpu_counts():
    jobs = _read("xdmod_reqgres-variants-synthetic.psv")
    from slurmlab.records.sacct import gres_gpus

    text = (SACCT / "xdmod_reqgres-variants-synthetic.psv").read_text().splitlines()
    expected = [gres_gpus(line.split("|")[20]) for line in text]
    assert jobs["NGPUS"].tolist() == [0 if e is None else e for e in expected]


def test_utf8_job_name_and_tab_delimited_all_columns():
    assert _read("xdmod_utf8-multibyte-chars.psv")["JobName"].tolist() == ["a\u00e0b"]
    jobs = _read("tdhock-slurm_sacct-all-cols.tsv")
    assert jobs.attrs["delimiter"] == "\t"
    assert jobs["Constraints"].tolist() == ["[broadwell|skylake]"]
    assert jobs.loc[0, "ReqMemPer"] == "cpu"


def test_states_and_unknown_states():
    jobs = _read("hpc-cost-simulator_issue-61.txt")
    assert jobs.attrs["unknown_states"] == {"INVALID": 1}
    assert jobs["Start"].isna().all()  # Start=None
    multi = _read("tdhock-slurm_sacct-multitype.txt")
    assert multi.loc[multi["JobID"] == "14022192_[1-3]", "ArrayTasks"].item() == 3


def test_orphan_step_is_kept():
    jobs = _read("hpc-cost-simulator_issue-63.txt")
    assert len(jobs) == 0
    assert steps(jobs)["StepID"].tolist() == ["interactive"]


#: Golden numbers per file: (jobs, runs, steps, CPU-hours, GPU-hours) from ``summary()``.
#: A change here is a change in how slurmlab counts: explain it in the commit. None: the
#: export lacks the fields those hours need (no AllocTRES, no NCPUS), so they are unknown;
#: an export where nothing ran used 0 hours of each, whatever its fields.
#: runs are the allocation rows that started, as everywhere (usage, failure_cost): a pending
#: job or range, or a job cancelled before it started, is a job and not a run (each checked
#: by hand: no Start, or, in exports without Start, Elapsed 0, no step and a pending state).
GOLDEN = {
    "hb-jobinfo_sacct-snowman-delim.txt": (100, 90, 142, 121009.2, 220.404),
    "hpc-cost-simulator_array.txt": (8, 8, 8, 0.669, None),
    "hpc-cost-simulator_issue-17.txt": (2, 1, 2, 4.136, None),
    "hpc-cost-simulator_issue-5.txt": (1, 0, 0, 0.0, 0.0),
    "hpc-cost-simulator_issue-59.txt": (1, 1, 1, 0.342, None),
    "hpc-cost-simulator_issue-61.txt": (1, 0, 0, 0.0, 0.0),
    "hpc-cost-simulator_issue-63.txt": (0, 0, 1, 0.0, 0.0),
    "hpc-cost-simulator_issue-gl-20.txt": (9, 9, 8, 0.79, None),
    "hpc-cost-simulator_multi-node.txt": (1, 1, 1, 0.334, None),
    # 60 of its jobs never got an allocation (AllocNodes 0, Elapsed 0, Start = End): no runs
    "hpc-cost-simulator_sacct-output-v2.txt": (483, 423, 395, 26.646, None),
    "reportseff_console-jobs-no-timelimit.caretpipe.txt": (4, 4, 8, 23.027, None),
    "reportseff_console-jobs.caretpipe.txt": (4, 3, 6, 1.488, None),
    "reportseff_energy-array.caretpipe.txt": (4, 4, 8, 2.8, None),
    "reportseff_issue16-many-steps.caretpipe.txt": (1, 1, 38, 121.613, None),
    "reportseff_issue58-timeout.caretpipe.txt": (1, 1, 1, 2.016, None),
    "slurm2sql_test-data1.psv": (2, 2, 3, 7.119, None),
    "slurm2sql_test-data2.psv": (2, 2, 3, 7.119, None),
    "slyme_sacct_single_parallel_COMPLETED_parsable.txt": (1, 1, 2, 0.052, None),
    "slyme_sacct_single_serial_COMPLETED_parsable.txt": (1, 1, 1, 0.017, None),
    "tdhock-slurm_sacct-2019-11-21.txt": (4162, 64, 128, None, None),
    "tdhock-slurm_sacct-PENDING.txt": (2, 0, 0, 0.0, 0.0),
    "tdhock-slurm_sacct-all-cols.tsv": (1, 1, 2, 1.002, 0.0),
    "tdhock-slurm_sacct-job13936577.txt": (236, 236, 472, None, None),
    "tdhock-slurm_sacct-manyfields.txt": (1, 1, 2, 1.008, 0.0),
    "tdhock-slurm_sacct-multistep.txt": (999, 75, 150, None, None),
    "tdhock-slurm_sacct-multitype.txt": (5, 1, 2, None, None),
    "tdhock-slurm_sacct-multiuser.txt": (448, 62, 124, None, None),
    "tdhock-slurm_sacct-unrecognized-unit.txt": (396, 396, 587, None, None),
    "tdhock-slurm_slurm-dcast-agg.txt": (9730, 6943, 13886, None, None),
    "xdmod_accounting-logs-with-job-arrays.psv": (23, 6, 0, 110592.0, None),
    "xdmod_accounting-logs.psv": (4, 4, 0, 21626.493, 0.0),
    "xdmod_non-ended-job-state.psv": (2, 1, 0, 270.473, 0.0),
    "xdmod_reqgres-variants-synthetic.psv": (1, 24, 0, 1.707, 0.064),
    "xdmod_utf8-multibyte-chars.psv": (1, 1, 0, 576.0, 0.0),
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_summary_numbers(name):
    from slurmlab.analysis import summary

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = summary(_read(name, errors="warn"))
    assert (s.jobs, s.runs, s.steps) == GOLDEN[name][:3]
    for got, want in ((s.cpu_hours, GOLDEN[name][3]), (s.gpu_hours, GOLDEN[name][4])):
        assert (got is None) == (want is None)
        assert want is None or round(got, 3) == pytest.approx(want)
