"""Stop 28's researcher review ("what if we changed the policy?"): each finding with its
input and exact outcome."""

from __future__ import annotations

import dataclasses
import math
import warnings

import pandas as pd
import pytest

import slurmlab
from slurmlab import (
    Account,
    Cluster,
    JobSpec,
    NodeFailure,
    Qos,
    Scenario,
    Workload,
    WorkloadJob,
    ai_workload,
    analysis,
    simulate,
    viz,
)
from slurmlab.errors import SlurmlabError, collected_warnings, effective_action, warn_at_caller

MINI = """ClusterName=mini
SchedulerParameters=bf_job_part_count_reserve=10
GresTypes=gpu
NodeName=node[1-4] CPUs=16 RealMemory=64000 Gres=gpu:a100:2
PartitionName=main Nodes=node[1-4] Default=YES MaxTime=1-00:00:00
"""
NOT_MODELLED = (
    "slurm.conf line 2: SchedulerParameters bf_job_part_count_reserve: not modelled by "
    "slurmlab's slurm policy, which ignores them (it models bf_interval, bf_resolution, "
    "bf_window, bf_max_job_test, bf_node_space_size, bf_max_job_array_resv, bf_max_job_user, "
    "bf_max_job_assoc, bf_max_job_part, bf_max_job_user_part, bf_max_job_start, bf_min_age_reserve, "
    "bf_min_prio_reserve, default_queue_depth, sched_interval)"
)


def job(args: str, runtime: float = 3600, submit: float = 0, id: str | None = None):
    return WorkloadJob(JobSpec.from_args(args.split()), submit=submit, runtime=runtime, id=id)


@pytest.fixture(scope="module")
def mini() -> Cluster:
    return Cluster.from_slurm_conf(MINI)


@pytest.fixture(scope="module")
def small(mini) -> Workload:
    return ai_workload(20, mini, seed=1)


@pytest.fixture(scope="module")
def requeued():
    """One 2-GPU job, its node failing half-way: requeued once (NODE_FAIL, then COMPLETED)."""
    w = Workload([job("-N 1 --gres=gpu:2 -t 2:00:00", id="train")])
    return simulate(
        "tiny", w, policy="easy", failures=[NodeFailure("node1", at=1800, down_for=600)]
    )


def texts(caught) -> list[str]:
    return [str(w.message) for w in caught]


# -- 1. a sweep shows each warning once ---------------------------------------------------------
def test_a_sweep_shows_a_warning_once_under_the_default_action(mini, small):
    """20 runs reading .metrics (pandas enters catch_warnings blocks, which made Python forget
    the warnings it had shown) show the slurm.conf warning once, at the sweep's line."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        waits = [
            simulate(mini, small, policy="slurm", bf_window=60 * k).metrics["mean_wait_s"]
            for k in range(1, 21)
        ]
    assert len(waits) == 20
    assert texts(caught) == [NOT_MODELLED]
    assert caught[0].filename == __file__


def test_an_analyzer_in_a_loop_warns_once(requeued):
    """utilization without a capacity, 5 times from one line: one warning."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for _ in range(5):
            analysis.utilization(requeued.jobs_all_runs)
    assert texts(caught) == [
        "utilization: no capacity given, so it is inferred as the peak allocation seen in the "
        "export (a lower bound: utilization looks higher than it was); pass "
        "capacity=Cluster.preset(...) or Cluster.from_slurm_conf(...)"
    ]


def test_always_error_and_ignore_act_as_python_has_them(mini, small):
    """The user's explicit filters are untouched: always shows every copy, error raises at
    the first, ignore shows none."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            simulate(mini, small, policy="slurm")
    assert texts(caught) == [NOT_MODELLED] * 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="bf_job_part_count_reserve: not modelled"):
            simulate(mini, small, policy="slurm")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore")
        simulate(mini, small, policy="slurm")
    assert caught == []


def test_pytest_warns_sees_a_warning_shown_before(mini, small):
    """A warning already shown under the default action is still seen by pytest.warns (and
    by a filter for its message only: matched as warnings matches it)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        simulate(mini, small, policy="slurm")
        with pytest.warns(UserWarning, match="bf_job_part_count_reserve"):
            simulate(mini, small, policy="slurm")
        warnings.filterwarnings("always", message="slurm.conf line 2")
        simulate(mini, small, policy="slurm")
        simulate(mini, small, policy="slurm")
    assert texts(caught) == [NOT_MODELLED] * 3  # (pytest.warns kept its own)


def test_a_new_catch_warnings_block_shows_it_again(mini, small):
    """As Python's registry, slurmlab's is forgotten when the filters in force change (the
    user's own block, a test's); a block that came and went in between (pandas') does not."""
    for _ in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            for _ in range(2):  # (one line: a warning is once per line)
                simulate(mini, small, policy="slurm")
        assert texts(caught) == [NOT_MODELLED]


def test_a_warning_inside_the_engine_points_at_the_callers_line():
    """The engine's 'action refused' warning was reported at a line of engine.py: it is at
    the line that called simulate, and once over a loop."""
    from slurmlab.spec.workload import Action

    w = Workload([job("-N 1 -t 10", 60, id="a")])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for _ in range(3):
            simulate("tiny", w, actions=[Action(1, "requeue", "49")])
    assert texts(caught) == ["action requeue 49 at t=1s refused: Invalid job id specified: '49'"]
    assert caught[0].filename == __file__


def test_effective_action_is_found_as_warnings_finds_it():
    """The first matching filter's action (a plain-string module filter, as Python's own
    defaults have, matches exactly), else warnings.defaultaction."""
    with warnings.catch_warnings():
        warnings.resetwarnings()
        assert effective_action("x", UserWarning, "m", 1) == "default"
        warnings.filterwarnings("error", message="boom", module="pkg")
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        assert effective_action("boom now", UserWarning, "pkg", 3) == "error"
        assert effective_action("boom now", UserWarning, "other", 3) == "default"
        assert effective_action("boom", DeprecationWarning, "m", 3) == "ignore"
        warnings.filters.insert(0, ("always", None, UserWarning, "__main__", 0))
        assert effective_action("x", UserWarning, "__main__", 3) == "always"
        assert effective_action("x", UserWarning, "__main__x", 3) == "default"


def test_collected_warnings_restores_showwarning_and_passes_errors_through():
    """The block collects through warnings.showwarning and puts it back, also when the
    block raises; warn_at_caller inside it is shown at the block's end, once."""
    before = warnings.showwarning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        with pytest.raises(ZeroDivisionError), collected_warnings():
            for _ in range(2):
                warn_at_caller("first")
            1 / 0  # noqa: B018
    assert warnings.showwarning is before
    assert texts(caught) == ["first"]


# -- 2. analyzers on result.jobs after requeues -------------------------------------------------
MISSING = (
    "{who}: 1 requeued job(s) (Restarts > 0: JobID train) have runs before their last that "
    "are not in the table (it holds each job's last run, as sacct without -D does), so the "
    "{what} of those runs are left out; for a simulation pass result.jobs_all_runs (every "
    "run: the numbers then match result.metrics), for a real cluster export with sacct -D"
)


@pytest.mark.parametrize(
    ("who", "call", "what"),
    [
        ("gpu_hours", lambda j: analysis.gpu_hours(j), "hours"),
        ("usage", lambda j: analysis.usage(j), "hours"),
        ("summary", lambda j: analysis.summary(j), "hours"),
        ("failure_cost", lambda j: analysis.failure_cost(j), "hours"),
        ("requeues", lambda j: analysis.requeues(j), "lost GPU-hours"),
        ("top_consumers", lambda j: analysis.top_consumers(j), "hours"),
        ("biggest_runs", lambda j: analysis.biggest_runs(j), "hours"),
        (
            "utilization",
            lambda j: analysis.utilization(j, capacity=Cluster.preset("tiny"), by=None),
            "allocations",
        ),
    ],
)
def test_an_analyzer_summing_runs_warns_once_when_earlier_runs_are_missing(
    requeued, who, call, what
):
    """result.jobs holds each job's last run (sacct without -D): its Restarts says the job
    ran before. Each analyzer that sums runs says so, once per call; on jobs_all_runs none."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call(requeued.jobs)
    assert texts(caught) == [MISSING.format(who=who, what=what)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call(requeued.jobs_all_runs)
    assert texts(caught) == []


def test_on_every_run_the_analyzers_equal_the_metrics(requeued):
    """GPU-hours 2.0 on result.jobs against 3.0 in .metrics; on jobs_all_runs they agree,
    and so does utilization (the documented way)."""
    m = requeued.metrics
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert analysis.gpu_hours(requeued.jobs) == 2.0
    runs = requeued.jobs_all_runs
    assert analysis.gpu_hours(runs) == m["gpu_hours"] == 3.0
    assert analysis.summary(runs).gpu_hours == 3.0
    u = analysis.utilization(runs, capacity=requeued.cluster, by=None, freq="1h")
    for resource, key in (("gpus", "gpu_utilization"), ("cpus", "utilization")):
        part = u[u.resource == resource]
        covered = part.covered.dt.total_seconds()
        got = (part.used * covered).sum() / (part.capacity * covered).sum()
        assert got == pytest.approx(m[key], rel=1e-12)


def test_missing_runs_of_an_export_without_duplicates():
    """A text export: job 7 requeued once with one row lacks a run; 8 (never requeued) and
    9 (requeued once, both rows: sacct -D) do not."""
    import io

    text = (
        "JobID|State|Submit|Elapsed|NCPUS|AllocTRES|Restarts\n"
        "7|COMPLETED|2024-01-01T02:00:00|03:00:00|8|cpu=8,gres/gpu=4|1\n"
        "8|COMPLETED|2024-01-01T02:00:00|03:00:00|8|cpu=8,gres/gpu=4|0\n"
        "9|NODE_FAIL|2024-01-01T00:00:00|01:00:00|8|cpu=8,gres/gpu=4|0\n"
        "9|COMPLETED|2024-01-01T02:00:00|03:00:00|8|cpu=8,gres/gpu=4|1\n"
    )
    from slurmlab.analysis._common import missing_runs

    assert missing_runs(slurmlab.read_sacct(io.StringIO(text))) == ["7"]


# -- 3. fair share and QOS settings that do nothing ---------------------------------------------
ACCOUNTS = (Account("llm", shares=90, users=("u",)), Account("vision", shares=10, users=("u",)))


def fair_work() -> Workload:
    return Workload(
        [
            WorkloadJob(
                JobSpec.from_args(["-N", "1", "-t", "30"]), runtime=600, account=a, user="u"
            )
            for a in ("llm", "vision")
        ]
    )


def test_shares_on_a_basic_priority_preset_are_warned_about():
    with pytest.warns(UserWarning) as caught:
        simulate("tiny", fair_work(), accounts=ACCOUNTS)
    assert texts(caught) == [
        "simulate: the accounts' shares (llm=90, vision=10) have no effect on cluster 'tiny': "
        "it has PriorityType=priority/basic, so a job's priority follows its submit order and "
        "no priority factor counts, as in Slurm; to use them, give the cluster "
        "PriorityType=priority/multifactor, PriorityWeightFairshare=10000 "
        "(dataclasses.replace(cluster, settings={**cluster.settings, 'PriorityType': "
        "'priority/multifactor', 'PriorityWeightFairshare': '10000'}), or in its slurm.conf)"
    ]
    assert caught[0].filename == __file__


def test_a_zero_fairshare_weight_is_warned_about_and_the_documented_fix_works():
    tiny = Cluster.preset("tiny")
    mf = dataclasses.replace(
        tiny, settings={**tiny.settings, "PriorityType": "priority/multifactor"}
    )
    with pytest.warns(UserWarning) as caught:
        simulate(mf, fair_work(), accounts=ACCOUNTS)
    assert texts(caught) == [
        "simulate: the accounts' shares (llm=90, vision=10) have no effect on cluster 'tiny': "
        "its PriorityWeightFairshare is 0, so the fair-share factor counts for nothing in a "
        "job's priority, as in Slurm; to use them, give the cluster PriorityWeightFairshare="
        "10000 (dataclasses.replace(cluster, settings={**cluster.settings, "
        "'PriorityWeightFairshare': '10000'}), or in its slurm.conf)"
    ]
    fair = dataclasses.replace(
        tiny,
        settings={
            **tiny.settings,
            "PriorityType": "priority/multifactor",
            "PriorityWeightFairshare": "10000",
        },
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = simulate(fair, fair_work(), accounts=ACCOUNTS)
    share = result.sshare().query("User == ''").set_index("Account")["RawShares"]
    assert (share["llm"], share["vision"]) == (90.0, 10.0)


def test_qos_priority_and_preempt_without_effect_are_warned_about():
    qos = [Qos("high", priority=100, preempt=("normal",)), Qos("normal")]
    with pytest.warns(UserWarning) as caught:
        simulate("tiny", Workload([job("-N 1 -t 10", 60)]), qos=qos)
    assert texts(caught) == [
        "simulate: the QOS preempt lists (high: normal) have no effect on cluster 'tiny': it "
        "has PreemptType=preempt/none, so no job is preempted, as in Slurm; to use them, give "
        "the cluster PreemptType=preempt/qos, PreemptMode=REQUEUE (dataclasses.replace("
        "cluster, settings={**cluster.settings, 'PreemptType': 'preempt/qos', 'PreemptMode': "
        "'REQUEUE'}), or in its slurm.conf)",
        "simulate: the QOS priorities (high=100) have no effect on cluster 'tiny': it has "
        "PriorityType=priority/basic, so a job's priority follows its submit order and no "
        "priority factor counts, as in Slurm; to use them, give the cluster "
        "PriorityType=priority/multifactor, PriorityWeightQOS=10000 (dataclasses.replace("
        "cluster, settings={**cluster.settings, 'PriorityType': 'priority/multifactor', "
        "'PriorityWeightQOS': '10000'}), or in its slurm.conf)",
    ]


def test_a_scenario_warns_when_it_loads_not_again_when_it_runs():
    doc = {
        "cluster": "tiny",
        "accounts": [{"name": "llm", "shares": 90}, {"name": "vision", "shares": 10}],
        "jobs": [{"submit": 0, "runtime": 60, "args": "-N 1 -t 10", "account": "llm"}],
    }
    with pytest.warns(UserWarning) as loading:
        scenario = Scenario.from_dict(doc)
    assert [t for t in texts(loading) if "shares" in t] != []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scenario.run()


# -- 4. goodput ---------------------------------------------------------------------------------
def test_goodput_says_its_unit_and_sums_to_the_metric():
    """A CPU-only job's hours are CPU-hours (unit column); the GPU-hours rows, summed, give
    metrics["goodput"]."""
    w = Workload(
        [
            job("-n 1 -c 16 -t 30", id="prep"),  # CPU-only, times out
            job("-N 1 --gres=gpu:2 -t 2:00:00", id="train"),
        ]
    )
    r = simulate("tiny", w, policy="easy")
    g = r.goodput()
    assert g[["JobID", "unit", "allocated_h", "useful_h", "goodput"]].to_dict("records") == [
        {"JobID": "prep", "unit": "CPU-hours", "allocated_h": 8.0, "useful_h": 0.0, "goodput": 0.0},
        {
            "JobID": "train",
            "unit": "GPU-hours",
            "allocated_h": 2.0,
            "useful_h": 2.0,
            "goodput": 1.0,
        },
    ]
    gpu = g[g.unit == "GPU-hours"]
    assert gpu.useful_h.sum() / gpu.allocated_h.sum() == r.metrics["goodput"] == 1.0


def test_goodput_over_nothing_allocated_is_nan():
    """A zero-runtime job, and a run where nothing started: NaN (null in --json), not 1.0."""
    w = Workload([job("-N 1 --gres=gpu:1 -t 5", 0, id="z")])
    assert math.isnan(simulate("tiny", w).metrics["goodput"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        none = simulate("tiny", w, policy="slurm", sched_interval=-1, bf_interval=-1)
    assert none.metrics["states"] == {"PENDING": 1}
    assert math.isnan(none.metrics["goodput"])


# -- 5. a workload's repr -----------------------------------------------------------------------
def test_a_workload_repr_is_one_line():
    w = ai_workload(2000, "ai", seed=1)
    assert repr(w) == (
        "Workload('ai-2000-seed1': 2000 jobs, submits 10.8 min to 40 d, kind scenario, "
        "origin 2026-01-05 00:00:00)"
    )
    two = Workload([job("-N 1", submit=0), job("-N 1", submit=5400)], name="two")
    assert repr(two) == (
        "Workload('two': 2 jobs, submits 0 s to 1.5 h, kind scenario, origin 2026-01-05 00:00:00)"
    )
    assert repr(Workload()) == (
        "Workload('workload': 0 jobs, kind scenario, origin 2026-01-05 00:00:00)"
    )
    scenario = dataclasses.replace(Scenario.from_dict({"cluster": "tiny", "jobs": []}), workload=w)
    assert len(repr(scenario)) < 1000


# -- 6. figure functions ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tables():
    r = simulate("tiny", ai_workload(30, "tiny", seed=2), policy="easy")
    j = r.jobs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "jobs": j,
            "util": analysis.utilization(j, capacity=r.cluster),
            "usage": analysis.usage(j),
            "waits": analysis.wait_times(j),
            "cost": analysis.failure_cost(j),
        }


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda t: viz.utilization_figure(t["util"], resource="gpu"),
            "utilization_figure: resource='gpu' is not one of 'cpus', 'gpus', 'nodes'; did you "
            "mean 'gpus'?",
        ),
        (
            lambda t: viz.utilization_figure(t["util"], by="Account"),
            "utilization_figure: by='Account' is not one of 'Partition' (the table's grouping "
            "column)",
        ),
        (
            lambda t: viz.usage_figure(t["usage"], by="User"),
            "usage_figure: by='User' is not one of 'Account' (the columns "
            "slurmlab.analysis.usage(jobs, by=...) grouped the table by)",
        ),
        (
            lambda t: viz.usage_figure(t["usage"], resource="gpu-hours"),
            "usage_figure: resource='gpu-hours' is not one of 'gpu_hours', 'cpu_hours', "
            "'node_hours'; did you mean 'gpu_hours'?",
        ),
        (
            lambda t: viz.usage_figure(t["usage"], top=0),
            "usage_figure: top=0: give a whole number of at least 1 (bars)",
        ),
        (
            lambda t: viz.wait_figure(t["waits"], by="QoS"),
            "wait_figure: by='QoS' is not one of 'JobID', 'JobIDRaw', 'User', 'Account', "
            "'Partition', 'QOS', 'NGPUS', 'NCPUS', 'Size'; did you mean 'QOS'?",
        ),
        (
            lambda t: viz.failure_figure(t["cost"], by="Partition"),
            "failure_figure: by='Partition' is not one of 'State' (the column "
            "slurmlab.analysis.failure_cost(jobs, by=...) grouped the table by)",
        ),
        (
            lambda t: viz.states_figure(analysis.summary(t["jobs"])),
            "states_figure: states is a Summary, not a {state: jobs} mapping; pass "
            "slurmlab.analysis.summary(jobs).states",
        ),
    ],
)
def test_a_wrong_figure_argument_names_it_and_the_allowed_ones(tables, call, message):
    with pytest.raises(SlurmlabError) as error:
        call(tables)
    assert str(error.value) == message


@pytest.mark.parametrize(
    ("call", "missing", "maker"),
    [
        (viz.utilization_figure, "'time', 'resource', 'used', 'capacity', 'utilization'",
         "slurmlab.analysis.utilization(jobs, ...)"),
        (viz.wait_figure, "'Wait'", "slurmlab.analysis.wait_times(jobs)"),
        (viz.pending_figure, "'time', 'pending'", "slurmlab.analysis.pending_over_time(jobs)"),
        (viz.failure_figure, "'gpu_hours', 'cpu_hours'",
         "slurmlab.analysis.failure_cost(jobs, by=...)"),
        (viz.usage_figure, "'gpu_hours'", "slurmlab.analysis.usage(jobs, by=...)"),
        (lambda j: viz.efficiency_figure(j, "cpu_efficiency"), "'cpu_efficiency'",
         "slurmlab.analysis.cpu_efficiency(jobs)"),
    ],
)  # fmt: skip
def test_the_job_table_given_to_a_figure_names_the_analyzer(tables, call, missing, maker):
    """The raw job table (a KeyError 'Wait', or 37 columns and by=, before): the missing
    columns, that it is a job table, and the analyzer whose table the figure draws."""
    with pytest.raises(SlurmlabError) as error:
        call(tables["jobs"])
    text = str(error.value)
    assert f"the table has no column(s) {missing} (it has JobID, JobIDRaw," in text
    assert text.endswith(f", ...); it is a job table, which the figure does not draw: pass {maker}")


def test_an_efficiency_column_that_holds_no_ratios():
    table = pd.DataFrame({"JobID": ["1"], "cpu_efficiency": [0.5]})
    with pytest.raises(SlurmlabError) as error:
        viz.efficiency_figure(table, "JobID")
    assert str(error.value) == (
        "efficiency_figure: column='JobID' holds no ratios (object); use 'cpu_efficiency'"
    )


# -- 7. simulate's arguments --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"policy": None},
            "simulate(policy=None): give a policy name ('fifo', 'easy', 'conservative', "
            "'slurm') or a policy object (one with a schedule(view) method returning a "
            "Decision: see slurmlab.policies.base, or slurmlab.policies.Easy())",
        ),
        (
            {"progres": True},
            "simulate() has no keyword progres=: did you mean progress=? (other keywords are "
            "the policy's parameters)",
        ),
        (
            {"enforce_time_limit": "no"},
            "simulate(enforce_time_limit='no'): enforce_time_limit is True, False or None (the "
            "workload's kind)",
        ),
        ({"progress": "yes"}, "simulate(progress='yes'): progress is True or False"),
        (
            {"bf_window": 60},
            "policy 'easy' has no parameter bf_window: bf_window is a parameter of "
            "policy='slurm'; it takes none, and simulate's own keywords are policy, seed, "
            "progress, enforce_time_limit, requeue_delay, actions, failures, random_failures, "
            "accounts, qos, reservations, until, slurmctld_start",
        ),
        (
            {"policy": "slurm", "name": "x"},
            "policy 'slurm' has no parameter name: the policy is named by policy= (to label "
            "runs, keep them in a dict); it takes bf_interval, bf_resolution, bf_window, "
            "bf_max_job_test, default_queue_depth, sched_interval, bf_node_space_size, "
            "bf_max_job_array_resv, bf_max_job_user, bf_max_job_assoc, bf_max_job_part, bf_max_job_user_part, "
            "bf_max_job_start, bf_min_age_reserve, bf_min_prio_reserve, and "
            "simulate's own keywords are policy, seed, progress, enforce_time_limit, "
            "requeue_delay, actions, failures, random_failures, accounts, qos, reservations, "
            "until, slurmctld_start",
        ),
        (
            {"policy": "slurm", "bf_windw": 60},
            "policy 'slurm' has no parameter bf_windw (did you mean bf_window?); it takes "
            "bf_interval, bf_resolution, bf_window, bf_max_job_test, default_queue_depth, "
            "sched_interval, bf_node_space_size, bf_max_job_array_resv, bf_max_job_user, "
            "bf_max_job_assoc, "
            "bf_max_job_part, bf_max_job_user_part, bf_max_job_start, bf_min_age_reserve, "
            "bf_min_prio_reserve, and simulate's own keywords are policy, seed, "
            "progress, enforce_time_limit, requeue_delay, actions, failures, random_failures, "
            "accounts, qos, reservations, until, slurmctld_start",
        ),
    ],
)
def test_simulate_refuses_a_wrong_argument_by_name(kwargs, message):
    with pytest.raises(SlurmlabError) as error:
        simulate("tiny", Workload([job("-N 1 -t 5", 3600)]), **kwargs)
    assert str(error.value) == message


def test_enforce_time_limit_false_is_honoured():
    w = Workload([job("-N 1 -t 5", 3600)])
    assert simulate("tiny", w, enforce_time_limit=False).metrics["states"] == {"COMPLETED": 1}
    assert simulate("tiny", w, enforce_time_limit=True).metrics["states"] == {"TIMEOUT": 1}


# -- 8. bounded slowdown on a stopped run -------------------------------------------------------
def test_the_metric_is_the_analyzer_over_the_jobs_that_ended():
    """As both docstrings say: the metric (1.0) averages jobs that ended; the analyzer lists
    the running one too (7.0), and given the ended jobs it gives the metric."""
    w = Workload(
        [
            job("-N 4 --exclusive -t 2:00:00", id="a"),
            job("-N 1 -t 30", 600, id="b"),
        ]
    )
    r = simulate("tiny", w, policy="easy", until=3900)
    j = r.jobs
    assert r.metrics["mean_bounded_slowdown"] == 1.0
    assert analysis.bounded_slowdown(j)["BoundedSlowdown"].mean() == 7.0
    ended = analysis.bounded_slowdown(j[j["End"].notna()])["BoundedSlowdown"].mean()
    assert ended == r.metrics["mean_bounded_slowdown"]
    assert 'jobs[jobs["End"].notna()]' in analysis.bounded_slowdown.__doc__
    assert 'jobs[jobs["End"].notna()]' in slurmlab.sim.metrics.__doc__


# -- 9. seed, params, progress -----------------------------------------------------------------
def test_seed_alone_changes_nothing_and_the_docstring_says_so():
    w = ai_workload(20, "tiny", seed=1)
    assert simulate("tiny", w, seed=0).jobs.equals(simulate("tiny", w, seed=5).jobs)
    assert "``seed`` matters only with ``random_failures``" in simulate.__doc__


def test_a_result_records_its_policy_parameters():
    """A bf_window sweep's results tell themselves apart (params, and the repr)."""
    w = ai_workload(10, "tiny", seed=1)
    a = simulate("tiny", w, "slurm", bf_window=60)
    b = simulate("tiny", w, "slurm", bf_window=120, bf_interval=5)
    assert a.params == {
        "bf_interval": 30.0, "bf_resolution": 60.0, "bf_window": 60, "bf_max_job_test": 500,
        "default_queue_depth": 100, "sched_interval": 60.0, "bf_node_space_size": None,
        "bf_max_job_array_resv": 20, "bf_max_job_user": 0, "bf_max_job_assoc": 0,
        "bf_max_job_part": 0,
        "bf_max_job_user_part": 0, "bf_max_job_start": 0, "bf_min_age_reserve": 0,
        "bf_min_prio_reserve": 0,
    }  # fmt: skip
    assert (b.params["bf_window"], b.params["bf_interval"]) == (120, 5)
    assert repr(a).startswith(
        "SimulationResult(policy='slurm', params={'bf_interval': 30.0, 'bf_resolution': 60.0, "
        "'bf_window': 60,"
    )
    easy = simulate("tiny", w)
    assert easy.params == {}
    assert repr(easy) == f"SimulationResult(policy='easy', wall_s={easy.wall_s:.3f})"


def test_progress_below_1000_jobs_draws_no_bar_as_documented(capsys):
    simulate("tiny", ai_workload(20, "tiny", seed=1), progress=True)
    assert capsys.readouterr().err == ""
    assert "``progress=True`` shows a progress bar for a workload of 1,000 jobs or more" in (
        simulate.__doc__
    )
