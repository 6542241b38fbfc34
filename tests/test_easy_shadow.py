"""EASY's kept search of a blocked job decides what searching again would decide.

``Easy`` plans the first blocked job of a pass in a profile of the running jobs. When the
previous search of the same job shows the new profile gives the same start and nodes
(``backfill._Shadow.holds``), the pass plans it without searching and builds the profile
only when a later job needs it (``backfill._Late``); a later job whose window ends by the
plan's start is then tested on what is free now (``_Late.before``). Each is checked call
by call here (the kept plan against a search of the rebuilt profile; "fits as on free
now" against the rebuilt profile's window), and runs with the shortcut switched off
(every plan searched in a profile built at once) must give every job the same state,
start, end, nodes, pending reasons, planned starts and their nodes.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from slurmlab import Cluster, Lab, simulate
from slurmlab.policies import backfill
from slurmlab.policies.profile import make_profile
from slurmlab.spec.synthetic import ai_workload
from slurmlab.spec.workload import Workload
from tests.test_speed_paths_equal import (
    GPUS,
    KINDS,
    SETTINGS,
    events,
    gpu_workloads,
    history,
    job,
    lab_session,
    replaced,
    run_or_refused,
)

#: GPU requests whose fit is their fit mask's (the kind the kept search serves), and others
FIXED = [
    "--gres=gpu:1 -n 1",
    "-N 2 --ntasks-per-node=2 --gres=gpu:1",
    "--gres=gpu:2 --ntasks-per-node=1 -p all",
    "-N 2 --ntasks-per-node=1 --gres=gpu:2",
    "-N 3 --ntasks-per-node=1 --gres=gpu:1 -p all",
]


#: (args, run time): a job of 4 nodes waiting behind long jobs while short ones end and
#: start on the other nodes, one every 37 s
BLOCKED = [("-N 1 --ntasks-per-node=1 --gres=gpu:4 -t 30", 1500)] * 2
BLOCKED += [("-N 4 --ntasks-per-node=1 --gres=gpu:2 -p all -t 10", 300)]
BLOCKED += [(f"--gres=gpu:1 -n 1 -t {2 + k % 3}", 60 + 20 * (k % 4)) for k in range(20)]


def _never(self, *args) -> bool:
    return False


@contextmanager
def checked():
    """Every kept plan checked against a search of the profile the pass would build, and
    every "fits as on free now" against that profile's window: yields the counts of both."""
    holds, before, build = (
        backfill._Shadow.__dict__["holds"],
        backfill._Late.__dict__["before"],
        backfill._Late.__dict__["build"],
    )
    counts = {"kept": 0, "before": 0}

    def check_holds(self, job, view, free, ran):
        got = holds(self, job, view, free, ran)
        if got:
            prof = make_profile(view.now, free, view.capacity, list(ran.values()), view.weights)
            found = prof.earliest(job.request, job.plan_mask, job.limit)
            assert found is not None and found[1:] == (self.start, self.nodes), (job, found)
            counts["kept"] += 1
        return got

    def check_before(self, now, end, free):
        got = before(self, now, end, free)
        if got:
            prof = build(self, now)
            assert np.array_equal(prof._window(0, end), free)
            assert np.array_equal(prof.free[0], free)
            counts["before"] += 1
        return got

    with (
        replaced(backfill._Shadow, "holds", check_holds),
        replaced(backfill._Late, "before", check_before),
    ):
        yield counts


def with_and_without(run) -> tuple[list, list, dict]:
    """``run()`` (a simulation) checked call by call, and with the kept search switched off."""
    with checked() as counts:
        fast = history(run())
    with replaced(backfill._Shadow, "holds", _never):
        full = history(run())
    return fast, full, counts


@SETTINGS
@given(n=st.integers(40, 250), seed=st.integers(0, 10_000), load=st.sampled_from([0.7, 0.9, 1.3]))
def test_the_kept_plan_is_the_searched_one_on_random_ai_workloads(n, seed, load):
    """Random AI workloads (multi-node GPU jobs of the teaching kind) on the ``ai`` preset:
    every kept plan is the one a search finds, and the run is the one searching every plan."""
    cluster = Cluster.preset("ai")
    workload = ai_workload(n, cluster, seed=seed, load=load)
    fast, full, _counts = with_and_without(lambda: simulate(cluster, workload, "easy").sim)
    assert fast == full


@SETTINGS
@given(data=st.data())
def test_the_kept_plan_is_the_searched_one_at_random_with_events(data):
    """Random GPU workloads, mostly of fixed tasks per node, with maintenance windows, node
    failures, updates, cancels and requeues: every kept plan is the one a search finds, and
    the run is the one searching every plan."""
    workload = data.draw(gpu_workloads(kinds=(*FIXED, *FIXED, *KINDS)))
    extra = data.draw(events(workload))
    with checked():
        fast = run_or_refused(GPUS, workload, "easy", **extra)
    if fast is None:
        return
    with replaced(backfill._Shadow, "holds", _never):
        full = run_or_refused(GPUS, workload, "easy", **extra)
    assert history(fast) == history(full)


def test_the_kept_plan_is_used_and_decides_the_same():
    """(So the tests above test something.) ``BLOCKED``, and an AI workload: the blocked
    job's plan is kept pass after pass, later jobs are tested on what is free now, and the
    runs are the ones searching every plan."""
    workload = Workload(
        tuple(job(f"j{k}", args, 37 * k, runtime) for k, (args, runtime) in enumerate(BLOCKED))
    )
    fast, full, counts = with_and_without(lambda: simulate(GPUS, workload, "easy").sim)
    assert counts["kept"] and counts["before"] and fast == full
    cluster = Cluster.preset("ai")
    workload = ai_workload(300, cluster, seed=1)
    fast, full, counts = with_and_without(lambda: simulate(cluster, workload, "easy").sim)
    assert counts["kept"] > 50 and counts["before"] > 20 and fast == full


def test_a_lab_stepped_by_hand_decides_as_without_the_kept_plan():
    """A lab driven step by step (submissions between steps, an update, a drain and a
    resume, a requeue) under easy decides as searching every plan."""
    fast, full, _counts = with_and_without(lambda: lab_session("easy", FIXED * 4))
    assert fast == full


def test_a_policy_object_shared_by_runs_plans_as_without_the_kept_plan():
    """The kept search lives in the policy object: two labs sharing one object, stepped in
    turn, and a run after them plan as with the shortcut off (its checks read only the
    pass's own state and what the kept search found)."""
    policy = backfill.Easy()
    workload = Workload(
        tuple(job(f"j{k}", args, 37 * k, runtime) for k, (args, runtime) in enumerate(BLOCKED))
    )

    def shared():
        first, second = Lab(GPUS, policy), Lab(GPUS, policy)
        for args, runtime in BLOCKED:
            first.sbatch(args, runtime=runtime)
            second.sbatch(args, runtime=runtime + 30)
            first.advance(37)
            second.advance(41)
        first.run()
        second.run()
        return [first.sim, second.sim, simulate(GPUS, workload, policy).sim]

    with checked() as counts:
        fast = [history(sim) for sim in shared()]
    assert counts["kept"]
    with replaced(backfill._Shadow, "holds", _never):
        assert fast == [history(sim) for sim in shared()]
