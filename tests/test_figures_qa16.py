"""Figures and the analyzers behind them (QA findings): utilization_figure never draws a count
on a percent axis; pending_over_time ends at the export's end; measured columns are named."""

from __future__ import annotations

import pandas as pd

from slurmlab.viz import utilization_figure


def frame(with_capacity: bool) -> pd.DataFrame:
    t = pd.to_datetime(["2026-01-05 00:00", "2026-01-05 01:00"])
    rows = [
        {"time": t[0], "Partition": "gpu", "resource": "gpus", "used": 4.0, "capacity": 8.0},
        {"time": t[1], "Partition": "gpu", "resource": "gpus", "used": 8.0, "capacity": 8.0},
        {"time": t[0], "Partition": "debug", "resource": "gpus", "used": 8.0, "capacity": None},
        {"time": t[1], "Partition": "debug", "resource": "gpus", "used": 2.0, "capacity": None},
    ]
    out = pd.DataFrame(rows)
    if not with_capacity:
        out["capacity"] = None
    out["utilization"] = out["used"] / out["capacity"].astype(float)
    return out


def test_a_group_without_capacity_goes_on_a_count_axis():
    fig = utilization_figure(frame(True))
    traces = {t.name: t for t in fig.data}
    assert list(traces["gpu"].y) == [0.5, 1.0] and traces["gpu"].yaxis == "y"
    debug = traces["debug (allocated; no capacity given)"]
    assert list(debug.y) == [8.0, 2.0] and debug.yaxis == "y2"
    assert fig.layout.yaxis.tickformat == ".0%"
    assert fig.layout.yaxis2.title.text == "allocated GPUs"


def test_without_any_capacity_the_only_axis_counts():
    fig = utilization_figure(frame(False))
    assert {t.yaxis for t in fig.data} == {"y"}
    assert fig.layout.yaxis.tickformat is None
    assert fig.layout.yaxis.title.text == "allocated GPUs"


def test_pending_over_time_of_jobs_still_pending_shows_them_at_the_end():
    """A table of jobs all still pending: the last tick is the export's end, where they
    all pend (the 5-minute ticks alone stopped before their submits)."""
    import warnings

    import slurmlab
    from slurmlab import analysis as an
    from slurmlab.spec.job import JobSpec
    from slurmlab.spec.workload import Workload, WorkloadJob

    def job(args, submit, runtime, id):
        return WorkloadJob(JobSpec.from_args(args), submit=submit, runtime=runtime, id=id)

    work = Workload(
        [job("-N 4 --exclusive -t 60", 0, 3000, "a"), job("-N 1 -t 10", 10, 50, "b"),
         job("-N 2 -t 10 --array=0-3", 20, 0, "c")]
    )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runs = slurmlab.simulate("tiny", work, "easy", until=1800).jobs_all_runs
    pending = an.pending_over_time(runs[runs["State"] == "PENDING"], freq="5min")
    assert pending["pending"].iloc[-1] == 5  # b and c's four tasks


def test_a_simulated_table_has_no_measured_columns_and_says_so():
    import warnings

    import pytest

    import slurmlab
    from slurmlab import analysis as an

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        work = slurmlab.Workload(
            [slurmlab.WorkloadJob(slurmlab.JobSpec.from_args("-N 1 -t 5"), 0, 60)]
        )
        jobs = slurmlab.simulate("tiny", work, "easy").jobs
    with pytest.raises(slurmlab.SlurmlabError, match="only a real export has"):
        an.cpu_efficiency(jobs)
