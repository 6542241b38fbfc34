"""Stop 34's QA round: a platform engineer reading real sacct exports, and a training
engineer checking failures, checkpoints and srun's environment. Each test is a finding."""

from __future__ import annotations

import io
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import slurmlab
from slurmlab import Lab, analysis
from slurmlab.records.sacct import SacctParseError, SacctParseWarning, parse_job_id, read_sacct
from slurmlab.sim.checkpoint import Checkpoint

ROOT = Path(__file__).resolve().parents[1]


def read(text: str, **kw):
    return read_sacct(io.StringIO(text), **kw)


# -- array ranges as Slurm 22.05 writes them (slurm_protocol_defs.c xlate_array_task_str) --


@pytest.mark.parametrize(
    ("job_id", "tasks"),
    [("123_[1-59:2]", 30), ("125_[0-98:2%4]", 50), ("7_[0-10:5,20]", 4), ("8_[3-3:7]", 1)],
)
def test_a_pending_array_written_as_a_stride_is_read(job_id, tasks):
    """An array submitted with --array=1-59:2 and still pending: sacct writes its tasks as
    first-last:step (more than 5 tasks over more than 10 ids, one step throughout)."""
    jobs = read(f"JobID|State|Submit\n{job_id}|PENDING|2024-01-01T00:00:00\n")
    assert jobs["ArrayTasks"].tolist() == [tasks]
    assert jobs["JobID"].tolist() == [job_id]
    assert parse_job_id(job_id).array_tasks == tasks


def test_a_list_sacct_cut_short_counts_the_tasks_written_and_says_so():
    """A list longer than SLURM_BITSTR_LEN (64) ends in '...' (its last 3 characters): the
    row is read, its count is what was written whole (the part before the dots may be cut
    too: 57 of 571), and a warning names the line and SLURM_BITSTR_LEN=0."""
    cut = "124_[1,4,7-9,12,15,18,21,24,27-30,33,36,39,42,45,48,51,54,57...]"
    text = (
        f"JobID|State|Submit\n2|COMPLETED|2024-01-01T00:00:00\n{cut}|PENDING|2024-01-01T00:00:00\n"
    )
    with pytest.warns(SacctParseWarning, match=r"line\(s\) 3\) have a task list sacct cut") as w:
        jobs = read(text)
    assert "SLURM_BITSTR_LEN=0" in str(w[0].message)
    row = jobs.set_index("JobID").loc[cut]
    assert (row["ArrayTasks"], row["ArrayJobID"], row["State"]) == (22, "124", "PENDING")
    with_throttle = "125_[1,3,5,7,9,11,13,15,17,19,21,23,25,27,29,31,33,35,37,39,41,43,45...%2]"
    with pytest.warns(SacctParseWarning, match="cut short"):
        assert read(f"JobID|State\n{with_throttle}|PENDING\n")["ArrayTasks"].tolist() == [22]


@pytest.mark.parametrize(
    ("job_id", "why"),
    [
        ("1_[1-5:0]", "the part '1-5:0' is not N, N-M or N-M:S"),
        ("1_[5:2]", "the part '5:2' is not N, N-M or N-M:S"),
        ("1_[1.5]", "a '.' that is not the '...' of a list cut short"),
        ("1_[12...]", "no whole task id before the cut"),
    ],
)
def test_array_lists_sacct_never_writes_are_still_bad_job_ids(job_id, why):
    with pytest.raises(SacctParseError) as info:
        read(f"JobID|State\n{job_id}|PENDING\n")
    assert info.value.problem == f"has an array range sacct never writes ({why})"


# -- sacct --json durations of 10,000 hours and more ------------------------------------------


def test_json_cpu_times_of_ten_thousand_hours_and_more_are_read():
    """128 CPUs for 80 h: a TotalCPU of 10,240 h is written as 426-16:00:00, as sacct -P
    writes it (it was refused as a 5-digit hour count)."""
    doc = json.loads((ROOT / "datasets/realslurm/backfill/sacct.json").read_text())
    secs = 128 * 80 * 3600
    for where in (doc["jobs"][0]["time"], doc["jobs"][0]["steps"][0]["time"]):
        where["total"] = {"seconds": secs, "microseconds": 0}
        where["user"] = {"seconds": secs, "microseconds": 0}
    jobs = read_sacct(io.BytesIO(json.dumps(doc).encode()), tz="UTC")
    assert len(jobs) == len(doc["jobs"])
    first = jobs.iloc[0]
    assert first["TotalCPU"].total_seconds() == secs


# -- runs still running, pending rows with a Start ---------------------------------------------


def test_a_run_still_running_has_an_unknown_cpu_efficiency():
    """slurmdbd records a step's CPU time when the step ends: a running job's TotalCPU is 0
    (its batch step runs), so its efficiency is NaN with a warning, not 0."""
    text = (
        "JobID|State|Start|End|Elapsed|NCPUS|TotalCPU\n"
        "1|COMPLETED|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|4|03:00:00\n"
        "1.batch|COMPLETED|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|4|03:00:00\n"
        "2|RUNNING|2024-01-01T00:00:00|Unknown|02:00:00|4|00:00:00\n"
        "2.batch|RUNNING|2024-01-01T00:00:00|Unknown|02:00:00|4|00:00:00\n"
    )
    with pytest.warns(UserWarning, match="1 of 2 run\\(s\\) are still running"):
        eff = analysis.cpu_efficiency(read(text)).set_index("JobID")["cpu_efficiency"]
    assert eff["1"] == 0.75
    assert np.isnan(eff["2"])


def test_a_pending_row_with_a_start_is_no_run():
    """sacct -T gives a job still pending the window's end as Start (and End); older Slurm
    writes a job cancelled while pending with Start = End and NCPUS (AllocCPUS) 0 though
    NNodes is the count asked. Neither is a run: one run, waits of job 1 only."""
    text = (
        "JobID|State|Submit|Start|End|Elapsed|NNodes|NCPUS|AllocTRES\n"
        "1|COMPLETED|2024-05-01T00:00:00|2024-05-01T00:00:00|2024-05-01T01:00:00|01:00:00|1|8|"
        "cpu=8,gres/gpu=4\n"
        "2|PENDING|2024-05-01T00:00:00|2024-05-02T00:00:00|2024-05-02T00:00:00|00:00:00|1|8|\n"
        "3|CANCELLED by 1000|2024-05-01T00:00:00|2024-05-01T06:00:00|2024-05-01T06:00:00|"
        "00:00:00|1|0|\n"
    )
    jobs = read(text)
    summary = analysis.summary(jobs)
    assert (summary.runs, summary.mean_wait_s) == (1, 0.0)
    assert analysis.wait_times(jobs)["JobID"].tolist() == ["1"]


# -- requeues: what sacct 22.05 has, and what "lost" means -----------------------------------


def test_requeues_advice_is_what_slurm_22_05s_sacct_can_do():
    """Slurm 22.05's sacct has no Restarts field (src/sacct/sacct.c): the warning sends the
    user to -D, not to a field that sacct -o refuses."""
    text = "JobID|State|Submit|Elapsed|NCPUS|AllocTRES\n7|COMPLETED|2024-01-01T00:00:00|01:00:00|8|cpu=8\n"
    with pytest.warns(UserWarning) as w:
        analysis.requeues(read(text))
    message = " ".join(str(m.message) for m in w)
    assert "export with sacct -D" in message
    assert "Slurm 22.05's has none" in message


def test_requeues_lost_hours_are_whole_runs_and_the_docs_say_so():
    """A checkpointing job losing a node: requeues counts the whole earlier run (sacct knows
    no checkpoint), metrics only the work since its last checkpoint; both are documented."""
    lab = Lab("tiny", policy="fifo")
    j = lab.sbatch(
        "-N 1 -t 2:00:00", runtime="1h", checkpoint=Checkpoint(interval="10m", write_cost=60)
    )
    lab.advance("25m")
    node = lab.sacct().set_index("JobID").loc[str(j), "NodeList"]
    lab.fail(node, down_for="1m")
    lab.run()
    assert "upper bound of the work lost" in analysis.requeues.__doc__
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = analysis.requeues(lab.result.jobs_all_runs)
    assert table["runs"].tolist() == [2]


# -- checkpoints: no restart cost without a checkpoint to load ----------------------------------


def test_a_run_cut_short_before_its_first_checkpoint_restarts_without_the_restart_cost():
    """Interval 20 min, restart cost 10 min, the node fails at 5 min: nothing was saved, so
    the next run starts from zero and loads nothing (checkpoint.py: R is the time to load
    the checkpoint a run resumes from)."""
    lab = Lab("tiny", policy="fifo")
    ckpt = Checkpoint(interval="20m", write_cost=60, restart_cost="10m")
    j = lab.sbatch("-N 1 -t 3:00:00", runtime="1h", checkpoint=ckpt)
    lab.advance("5m")
    node = lab.sacct().set_index("JobID").loc[str(j), "NodeList"]
    lab.fail(node, down_for="1m")
    lab.run()
    runs = lab.result.jobs_all_runs
    last = runs[runs["JobID"] == str(j)].iloc[-1]
    # 1 h of work and two checkpoints (after 20 and 40 min), no restart cost
    assert last["Elapsed"].total_seconds() == 3600 + 2 * 60
    assert lab.result.metrics["gpu_hours_restarting"] == 0


# -- srun's environment: the allocation in the node table's order -------------------------------


def test_srun_env_numbers_the_nodes_in_the_order_slurm_lists_them():
    """Slurm lists an allocation's nodes in its node table's order (bitmap2node_name) and
    numbers nodes and ranks in it: a nodelist given out of order is reordered, warned."""
    with pytest.warns(UserWarning, match="not in the order Slurm lists a job's nodes"):
        env = slurmlab.srun_env("-N 2 --ntasks-per-node=1 --gres=gpu:4", "gpu2,gpu1", job_id=7)
    assert env["SLURMD_NODENAME"].tolist() == ["gpu1", "gpu2"]
    assert set(env["MASTER_ADDR"]) == {"gpu1"}
    assert set(env["SLURM_JOB_NODELIST"]) == {"gpu[1-2]"}
    with pytest.warns(UserWarning, match="by name: gpu9,gpu10"):
        env = slurmlab.srun_env("-N 2 -n 2", ["gpu10", "gpu9"], job_id=7, cpus=[4, 2])
    assert env["SLURMD_NODENAME"].tolist() == ["gpu9", "gpu10"]
    assert set(env["SLURM_JOB_CPUS_PER_NODE"]) == {"2,4"}  # (each node keeps its CPUs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (in order: no warning)
        slurmlab.srun_env("-N 2 -n 2", "gpu[9-10]", job_id=7)


def test_srun_env_with_a_cluster_follows_its_node_table():
    """A cluster's node table is in name order whatever the order of slurm.conf's lines
    (read_config.c _sort_node_record_table_ptr): zeta listed first is still the second."""
    conf = "NodeName=zeta,alpha CPUs=8\nPartitionName=p Nodes=ALL Default=YES\n"
    cluster = slurmlab.Cluster.from_slurm_conf(conf)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # alpha is the table's first node
        env = slurmlab.srun_env("-N 2 -n 2", "alpha,zeta", job_id=7, cluster=cluster)
    assert env["SLURMD_NODENAME"].tolist() == ["alpha", "zeta"]
    with pytest.warns(UserWarning, match="slurmctld's node table, by name: alpha,zeta"):
        env = slurmlab.srun_env("-N 2 -n 2", "zeta,alpha", job_id=7, cluster=cluster)
    assert env["SLURMD_NODENAME"].tolist() == ["alpha", "zeta"]


# -- smaller findings ---------------------------------------------------------------------


def test_zero_gpu_hours_say_slurm_may_not_have_counted_them():
    """Without AccountingStorageTRES=gres/gpu Slurm records no GPU in AllocTRES: a summary of
    0 GPU-hours says so rather than passing for a CPU cluster's known 0."""
    text = (
        "JobID|State|Submit|Start|End|Elapsed|NNodes|NCPUS|AllocTRES\n"
        "1|COMPLETED|2024-05-01T00:00:00|2024-05-01T00:00:00|2024-05-01T10:00:00|10:00:00|4|64|"
        "billing=64,cpu=64,mem=1000G,node=4\n"
    )
    words = analysis.summary(read(text)).words()
    assert "Allocated 0.0 GPU-hours and 640.0 CPU-hours." in words
    assert "lacks AccountingStorageTRES=gres/gpu" in words


def test_memory_used_sums_each_task_s_peak_where_sacct_gives_it():
    """MaxRSS is the largest task's peak: x NTasks overstates a DDP step whose rank 0 holds
    20G and 7 ranks 5G; TRESUsageInTot's mem (55G) is their sum, read where exported."""
    text = (
        "JobID|State|Start|End|Elapsed|NNodes|NCPUS|NTasks|ReqMem|MaxRSS|TRESUsageInTot\n"
        "1|COMPLETED|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|1|8||100G||\n"
        "1.0|COMPLETED|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|1|8|8||20G|"
        "cpu=08:00:00,mem=55G\n"
        "2|COMPLETED|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|1|8||100G||\n"
        "2.0|COMPLETED|2024-01-01T00:00:00|2024-01-01T01:00:00|01:00:00|1|8|2||10G|\n"
    )
    eff = analysis.memory_efficiency(read(text)).set_index("JobID")
    assert eff.loc["1", "MemUsedMB"] == 55 * 1024 and eff.loc["1", "memory_efficiency"] == 0.55
    assert eff.loc["2", "MemUsedMB"] == 20 * 1024  # (no TRESUsageInTot: MaxRSS x NTasks)


def test_an_elapsed_that_contradicts_the_times_is_the_error_not_daylight_saving():
    """End 5 min before Start with Elapsed 1 h: the error names Elapsed against End - Start,
    and no daylight-saving warning comes with it."""
    text = (
        "JobID|State|Submit|Start|End|Elapsed\n"
        "1|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:10:00|2024-01-01T00:05:00|01:00:00\n"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(SacctParseError) as info:
            read(text)
    assert info.value.problem.startswith("Elapsed is 01:00:00 but End - Start is -00:05:00")


def test_a_state_cut_by_a_fixed_width_column_is_read_when_it_begins_one_state():
    jobs = read("JobID|State\n1|OUT_OF_ME+\n2|CANCELLED+\n3|NODE_FA+\n")
    assert jobs["State"].tolist() == ["OUT_OF_MEMORY", "CANCELLED", "NODE_FAIL"]
    with pytest.warns(SacctParseWarning, match="export with -P"):
        assert read("JobID|State\n1|COMPLET+\n")["State"].tolist() == ["COMPLET"]


def test_srun_env_without_a_cluster_warns_about_uneven_gpus_too():
    with pytest.warns(UserWarning, match="--gpus=3 on 2 nodes"):
        slurmlab.srun_env("-N 2 -n 3 --gpus=3", "g[1-2]")


def test_only_a_trailing_number_is_ranged_in_a_hostlist():
    """Slurm ranges a host name's trailing number only (hostlist.c hostname_create_dims)."""
    from slurmlab.spec.units import compress_hostlist, expand_hostlist

    assert compress_hostlist(["node1-ib", "node2-ib"]) == "node1-ib,node2-ib"
    assert compress_hostlist(["gpu2", "node1-ib", "gpu1"]) == "gpu[1-2],node1-ib"
    assert compress_hostlist(["r1n1", "r1n2", "r2n1"]) == "r1n[1-2],r2n1"
    for names in (["node1-ib", "node2-ib"], ["gpu2", "node1-ib", "gpu1"]):
        assert sorted(expand_hostlist(compress_hostlist(names))) == sorted(names)


def test_a_failed_node_drained_before_its_repair_shows_drain_star():
    """node_state_string_compact tests DRAIN before DOWN: DOWN+DRAIN and not responding is
    drain*, whichever came first; repaired, it is drain until resumed."""
    lab = Lab("tiny")
    lab.fail("node3", down_for="5m")
    lab.drain("node3")
    lab.drain("node2")
    lab.fail("node2", down_for="5m")
    states = lab.sinfo().set_index("STATE")["NODELIST"].to_dict()
    assert states["drain*"] == "node[2-3]"
    lab.advance("6m")
    assert lab.sinfo().set_index("STATE")["NODELIST"].to_dict()["drain"] == "node[2-3]"
    lab.resume("node[2-3]")
    assert lab.sinfo().set_index("STATE")["NODELIST"].to_dict() == {"idle": "node[1-4]"}
