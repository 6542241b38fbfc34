"""Stop 27: findings of this stop's reviews, each with its input and exact outcome."""

from __future__ import annotations

from pathlib import Path

import pytest

from slurmlab.cli import main
from slurmlab.scenario import Scenario
from slurmlab.spec.slurm_conf import included_files

ROOT = Path(__file__).resolve().parents[1]
JOBS = "jobs:\n  - {submit: 0, runtime: 5, args: '-N 1'}\n"


@pytest.fixture
def split_conf(tmp_path, monkeypatch):
    """s.yaml naming conf/slurm.conf, which includes nodes.conf, (through %c)
    parts-demo.conf and twice a file of comments; and gres.conf."""
    monkeypatch.chdir(tmp_path)
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "slurm.conf").write_text(
        "ClusterName=Demo\nGresTypes=gpu\nInclude nodes.conf\nInclude parts-%c.conf\n"
        "Include empty.conf\nInclude empty.conf\n"  # (read twice, listed once)
    )
    (conf / "empty.conf").write_text("# nothing yet\n")
    (conf / "nodes.conf").write_text("NodeName=n[1-2] CPUs=4 Gres=gpu:2\n")
    (conf / "parts-demo.conf").write_text("PartitionName=main Nodes=ALL Default=YES\n")
    (conf / "gres.conf").write_text("NodeName=n[1-2] Name=gpu Count=2\n")
    (tmp_path / "s.yaml").write_text(
        "cluster: {slurm_conf: conf/slurm.conf, gres_conf: conf/gres.conf}\n" + JOBS
    )
    return conf


def test_included_files_are_the_files_include_lines_read(split_conf):
    assert included_files(split_conf / "slurm.conf") == (
        (split_conf / "nodes.conf").resolve(),
        (split_conf / "parts-demo.conf").resolve(),
        (split_conf / "empty.conf").resolve(),
    )


def test_a_scenario_lists_the_files_its_slurm_conf_includes(split_conf):
    scenario = Scenario.load("s.yaml")
    names = ("slurm.conf", "nodes.conf", "parts-demo.conf", "empty.conf", "gres.conf")
    assert scenario.sources == tuple((split_conf / n).resolve() for n in names)
    assert [what for what, _ in scenario.named_sources()] == [
        "the scenario's cluster.slurm_conf",
        "a file the scenario's cluster.slurm_conf includes",
        "a file the scenario's cluster.slurm_conf includes",
        "a file the scenario's cluster.slurm_conf includes",
        "the scenario's cluster.gres_conf",
    ]


def test_simulate_refuses_an_output_over_an_included_file(split_conf, capsys):
    """An output named like a file the slurm.conf includes would destroy the cluster's
    definition: refused before anything is written."""
    before = (split_conf / "nodes.conf").read_text()
    assert main(["simulate", "s.yaml", "--jobs-out", "conf/nodes.conf"]) == 1
    assert capsys.readouterr().err == (
        "slurmlab: error: --jobs-out 'conf/nodes.conf' is a file the scenario's "
        "cluster.slurm_conf includes 'conf/nodes.conf': writing it would destroy a file the "
        "scenario's cluster.slurm_conf includes; give --jobs-out another name, e.g. --jobs-out "
        "jobs.csv\n"
    )
    assert (split_conf / "nodes.conf").read_text() == before


def test_simulate_refuses_an_output_over_a_file_the_cluster_option_includes(split_conf, capsys):
    assert main(["simulate", "s.yaml", "--cluster", "conf/slurm.conf", "--sacct-out",
                 "conf/parts-demo.conf"]) == 1  # fmt: skip
    assert "is a file the --cluster slurm.conf includes" in capsys.readouterr().err
    assert (split_conf / "parts-demo.conf").read_text().startswith("PartitionName=main")


# -- docs review ---------------------------------------------------------------------------------
EXPORT = (
    "JobID|JobIDRaw|State|Partition|Submit|Start|End|Elapsed|NNodes|NCPUS|NodeList|User\n"
    "7|7|COMPLETED|main|2026-01-05T00:00:00|2026-01-05T00:00:00|2026-01-05T00:50:00|00:50:00|"
    "1|2|node1|ann\n"
)


def test_anonymize_without_a_salt_says_its_pseudonyms_change(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "e.psv").write_text(EXPORT)
    assert main(["anonymize", "e.psv", "-o", "a.psv"]) == 0
    assert capsys.readouterr().err == (
        "slurmlab: note: no --salt: a random salt was used, so another run (or another export) "
        "gets other pseudonyms; give --salt S to keep them the same\n"
    )
    assert main(["anonymize", "e.psv", "-o", "b.psv", "--salt", "S"]) == 0
    assert capsys.readouterr().err == ""


# -- the Lab in a long session ------------------------------------------------------------------
def _job(args: str, submit: float, runtime: float = 60):
    from slurmlab import JobSpec, WorkloadJob

    return WorkloadJob(JobSpec.from_args(args.split()), submit=submit, runtime=runtime)


def test_a_refused_workload_job_leaves_the_later_ones_to_arrive():
    """slurmctld refuses one sbatch and takes the next: the lab's advance raises the refusal
    at its instant, and the workload's later jobs still arrive (they were silently lost)."""
    from slurmlab import Lab, RequestError, Workload, simulate

    w = Workload([_job("-t 5", 0), _job("--gres=gpu:9 -t 5", 100), _job("-t 5 -J later", 200)])
    with pytest.raises(RequestError, match=r"workload job 2, submitted at t=100s"):
        simulate("ai", w)  # (a run stops at the refusal, as before)
    lab = Lab("ai", workload=w)
    with pytest.raises(RequestError, match=r"workload job 2, submitted at t=100s"):
        lab.advance("2m")
    assert lab.now == 100
    lab.run()
    table = lab.sacct()
    assert list(table["JobName"]) == ["sbatch", "later"]
    assert list(table["State"]) == ["COMPLETED", "COMPLETED"]


def test_advance_leaves_no_spent_event_behind():
    """After advance() the next event is the next thing that happens (simpy's run(until)
    left its stop event in the queue, so an idle lab never looked finished)."""
    from slurmlab import Lab

    lab = Lab("tiny")
    lab.sbatch("-t 5", runtime=60)
    lab.advance("5m")
    assert lab.sim.env.peek() == float("inf")


def test_only_the_latest_lab_is_kept_for_the_magic():
    import gc
    import weakref

    from slurmlab import Lab
    from slurmlab.sim.lab import current_lab

    first = Lab("tiny")
    gone = weakref.ref(first)
    del first
    latest = Lab("tiny")
    gc.collect()
    assert gone() is None
    assert current_lab() is latest


def test_lab_inputs_a_learner_mistypes_get_clear_errors():
    from slurmlab import Lab, SbatchError, SlurmlabError

    with pytest.raises(SlurmlabError, match=r"Lab\(origin='yesterday'\): not a date and time"):
        Lab("tiny", origin="yesterday")
    lab = Lab("tiny")
    with pytest.raises(SlurmlabError, match=r"None in \[None\] is not a word of sbatch"):
        lab.sbatch("#!/bin/bash\nsrun x\n", args=[None])
    with pytest.raises(SlurmlabError, match=r"None in \['-N', None\] is not a word"):
        lab.sbatch(["-N", None])
    with pytest.raises(SbatchError, match="no options and no script: real sbatch would wait"):
        lab.sbatch("")


def test_scancel_takes_several_ids_as_scancel_does():
    from slurmlab import Lab, SlurmlabError

    lab = Lab("tiny")
    a, b, c, d = (lab.sbatch("-N 4 -t 5", runtime=300) for _ in range(4))
    lab.scancel(f"{b} {c}")
    lab.scancel([d])
    states = lab.sacct().set_index("JobID")["State"]
    assert list(states) == ["RUNNING", "CANCELLED", "CANCELLED", "CANCELLED"]
    with pytest.raises(SlurmlabError):  # (each id on its own, as scancel: 99 is unknown)
        lab.scancel(f"{a} 99")
    assert lab.sacct().set_index("JobID")["State"].iloc[0] == "CANCELLED"


def test_the_lab_shows_its_date():
    from slurmlab import Lab, SlurmlabError

    lab = Lab("tiny", origin="2026-01-05T08:00")
    lab.advance("90m")
    assert (
        repr(lab) == "Lab(tiny, policy=easy, t=5400s (2026-01-05T09:30:00), 0 running, 0 pending)"
    )
    assert "2026-01-05 09:30:00" in lab._repr_html_()
    with pytest.raises(SlurmlabError, match=r"already at 5400 s \(2026-01-05T09:30:00\)"):
        lab.run(until="2026-01-05T09:00")


# -- priority factors kept compactly -----------------------------------------------------------
def test_a_factor_history_answers_as_the_list_of_every_recalculation():
    """FactorHistory.at(t) is the last record at or before t, as the plain list of
    (time, Factors) it replaces, on random histories with repeats and same-time records."""
    from hypothesis import given
    from hypothesis import strategies as st

    from slurmlab.policies.priority import Factors
    from slurmlab.sim.history import FactorHistory
    from slurmlab.sim.recorder import last_before

    factors = st.builds(
        Factors,
        age=st.sampled_from([0.0, 0.25, 1 / 3]),
        fairshare=st.sampled_from([0.5, 0.1 + 0.2]),
        jobsize=st.sampled_from([0.0, 0.125]),
        nice=st.sampled_from([0, 5]),
        tres=st.sampled_from([{}, {"cpu": 0.25}]),
    )
    steps = st.lists(st.tuples(st.sampled_from([0.0, 0.0, 60.0, 300.0]), factors), max_size=30)

    @given(steps, st.lists(st.floats(-10, 5000), max_size=10))
    def check(records, probes):
        plain, hist, t = [], FactorHistory(), 0.0
        for dt, f in records:
            t += dt
            plain.append((t, f))
            hist.add(t, f)
        for probe in [*probes, *(r[0] for r in plain)]:
            assert hist.at(probe) == last_before(plain, probe, None)
        assert len(hist) <= len(plain)

    check()


def test_a_deep_multifactor_queue_keeps_few_bytes_per_recalculation():
    """500 jobs pending for a day under multifactor (288 recalculations each): the factors'
    history holds a few doubles per job and recalculation (it held a Factors object each,
    about 300 bytes: 43 MB a simulated day)."""
    import gc
    import tracemalloc

    from slurmlab import Cluster, Lab

    text = (
        (ROOT / "slurmlab/data/ai.conf")
        .read_text()
        .replace(
            "PriorityType=priority/basic",
            "PriorityType=priority/multifactor\nPriorityWeightAge=1000\nPriorityWeightFairshare=1000",
        )
    )
    lab = Lab(Cluster.from_slurm_conf(text))
    lab.sbatch("-N 32 --exclusive --gres=gpu:8 -t 7-00:00:00", runtime="7d")
    for _ in range(500):
        lab.sbatch("-N 1 --gres=gpu:8 -t 1:00:00", runtime="1h")
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        lab.advance("1d")
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    records = 500 * 288
    assert grown / records < 60, f"{grown / records:.0f} bytes per recalculation"
    assert int(lab.sprio()["AGE"].iloc[0]) == round(1000 * 86400 / (7 * 86400))


def test_gpu_hours_of_an_export_whose_alloctres_is_empty_say_so(tmp_path):
    """The column is there but blank in every run: adding it to sacct -o would not help."""
    from slurmlab import read_sacct
    from slurmlab.analysis import summary

    text = (
        "JobID|State|Submit|Start|End|Elapsed|NCPUS|NNodes|NodeList|AllocTRES\n"
        "7|COMPLETED|2026-01-05T00:00:00|2026-01-05T00:00:00|2026-01-05T01:00:00|01:00:00|"
        "2|1|n1|\n"
    )
    (tmp_path / "e.psv").write_text(text)
    s = summary(read_sacct(tmp_path / "e.psv"))
    assert s.unknown_hours == {
        "GPU-hours": "AllocTRES is empty in every run of the export: its Slurm recorded no GPUs "
        "(AccountingStorageTRES without gres/gpu, or an older Slurm)"
    }
    (tmp_path / "f.psv").write_text(text.replace("|AllocTRES", "").replace("n1|\n", "n1\n"))
    assert summary(read_sacct(tmp_path / "f.psv")).unknown_hours == {
        "GPU-hours": "the export has no AllocTRES: add it to sacct -o"
    }


def test_sbatch_refuses_a_plane_too_big_for_the_tasks():
    """opt.c _opt_verify: n/plane < N and (N-1)*plane >= n is refused (sbatch's simple check)."""
    from slurmlab import JobSpec, SbatchError

    with pytest.raises(SbatchError) as exc:
        JobSpec.from_args(["-N", "2", "-n", "4", "-m", "plane=4"])
    assert str(exc.value) == (
        "--distribution=plane=4: Too few processes for the requested {plane,node} distribution "
        "(4 task(s) in blocks of 4 cannot reach 2 nodes); give more tasks (-n), a smaller plane "
        "size, or fewer nodes"
    )
    for ok in ("-N 2 -n 5 -m plane=4", "-n 4 -m plane=4", "-N 2 --ntasks-per-node=2 -m plane=2"):
        JobSpec.from_args(ok.split())


def test_a_refused_workload_job_leaves_its_instant_complete():
    """The refusal is raised once the instant's other arrivals and its pass are done, and
    the lab's views show that instant (a job arriving with the refused one is running)."""
    from slurmlab import Lab, RequestError, Workload

    w = Workload([_job("--gres=gpu:9 -t 5", 100), _job("-t 5 -J same", 100)])
    lab = Lab("ai", workload=w)
    with pytest.raises(RequestError):
        lab.advance("2m")
    assert lab.now == 100
    assert list(lab.sacct()["State"]) == ["RUNNING"]
    assert list(lab.squeue()["ST"]) == ["R"]


def test_lab_words_scancel_lists_and_suspended_time():
    import io

    import numpy as np

    from slurmlab import Lab, read_sacct
    from slurmlab.analysis._common import run_ends

    lab = Lab("tiny")
    assert lab.sbatch(["-N", np.int64(1), "-t", 5]) == 1  # (numbers as words, as before)
    arr = lab.sbatch("-N 4 --array=1-5 -t 5", runtime=300)
    lab.scancel(f"{arr}_[2-3, 5]")  # (a task list with a space is one id)
    states = lab.sacct().set_index("JobID")["State"]
    assert states[f"{arr}_2"] == states[f"{arr}_3"] == states[f"{arr}_5"] == "CANCELLED"
    text = (
        "JobID|State|Start|End|Elapsed|Suspended\n"
        "7|COMPLETED|2026-01-05T00:00:00|2026-01-05T02:00:00|01:00:00|01:00:00\n"
    )
    # a suspended job keeps its allocation: it ends at Start + Elapsed + Suspended
    assert str(run_ends(read_sacct(io.StringIO(text))).iloc[0]) == "2026-01-05 02:00:00"
