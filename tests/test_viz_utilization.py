"""utilization_figure never draws a count on a percent axis."""

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
    assert fig.layout.yaxis2.title.text == "allocated gpus"


def test_without_any_capacity_the_only_axis_counts():
    fig = utilization_figure(frame(False))
    assert {t.yaxis for t in fig.data} == {"y"}
    assert fig.layout.yaxis.tickformat is None
    assert fig.layout.yaxis.title.text == "allocated gpus"
