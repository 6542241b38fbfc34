"""Stop 46 (b): behaviours first read from the Slurm 22.05 source, then recorded on real Slurm
(datasets/realslurm: wlimit-keep, bf-cut, mem0-mixed, arr-gpu, recorded 2026-12-07).

* wlimit-keep: a ``-w`` job over a QOS GrpTRES limit keeps its ``-w`` nodes from the later
  jobs of the main scheduler's pass (job_scheduler.c ``_schedule``: ESLURM_ACCOUNTING_POLICY
  falls through to the ``req_node_bitmap`` block), so a later job that fits only there waits
  (Resources) for the next backfill cycle (``bf_interval=60``: started at 52 s, SchedBackfill).
* bf-cut: squeue --start shows a job held to the backfill map's end by a reservation cut at
  the window's end at the will-run start beyond the window, with SCHEDNODES (null)
  (backfill.c ``_attempt_backfill``: "StartTime set to time after current backfill window.
  No reservation created"); a plan the QOS limit refuses on its nodes (GrpTRES=node=2) keeps
  its will-run start, no SCHEDNODES.
* mem0-mixed: ``--mem=0`` takes the whole memory of the node it lands on, and its ReqMem is
  that of the partition's first node in slurmctld's node table, which is sorted by name
  (read_config.c ``_sort_node_record_table_ptr``): cpu1's 125G although slurm.conf lists
  gpu[1-4] first; the runs of nodes it is placed over follow that table too.
* arr-gpu: a ``%2`` array's task behind a held or moved task takes the free slot
  (job_mgr.c ``job_array_start_test`` counts running tasks only); ``-n 3 --gpus=3 -c 2``
  spreads as cons_tres does.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from realslurm_fixtures import DATA, ids, real_queue, starts
from realslurm_fixtures import replay as _run

from slurmlab.policies import Request, spread_nodes
from slurmlab.sim.result import squeue_frame


def test_a_w_job_over_a_qos_limit_keeps_its_node_until_the_backfill_cycle():
    """wlimit-keep: real n1 pended Resources from its submission (6 s) and was started by
    the backfill cycle at 52 s (bf_interval=60), not by a main-scheduler pass; so in the
    simulation (its cycle at 60 s)."""
    real = starts("wlimit-keep").set_index("id")
    assert real.loc["n1", "flags"].startswith("SchedBackfill") and real.loc["n1", "start_s"] == 52
    queue = real_queue("wlimit-keep")
    result = _run("wlimit-keep")
    for t in (10, 20, 30, 40, 50):
        want = queue[(queue["t"] == t)].set_index("key")
        got = squeue_frame(result.sim, float(t)).set_index("JOBID")["NODELIST(REASON)"]
        assert want.loc["n1", "reason"] == "Resources" and got["n1"] == "(Resources)", t
        assert want.loc["w1", "reason"] == "QOSGrpCpuLimit" and got["w1"] == "(QOSGrpCpuLimit)"
    row = result.sacct().set_index("JobID").loc["n1"]
    assert row["StartedBy"] == "backfill" and row["NodeList"] == "gpu2"


@pytest.mark.parametrize("t", [10, 20, 30, 40, 50])
def test_squeue_start_beyond_the_window_and_under_a_limit_show_no_schednodes(t):
    """bf-cut: P (behind A on gpu[1-2], ending at 60 s with H on a cpu node) shows B's end
    (180 s) with SCHEDNODES (null): the will-run test skips H, whose nodes it does not use,
    without testing the batch's end, so the batch runs on to B on gpu[3-4] (job_test.c
    ``_will_run_test``: ``list_peek_next`` looks at H, the next job it takes out is B), a
    start beyond the 2-minute window, no reservation; J (held to the map's end) the same; J3
    (refused by GrpTRES=node=2 on cpu[1-2]) H's end (60 s), (null), as real squeue --start
    showed them every 10 s."""
    queue = real_queue("bf-cut")
    want = queue[queue["t"] == t].set_index("key")
    sim = _run("bf-cut").sim
    got = squeue_frame(sim, float(t)).set_index("JOBID")
    t0 = sim.origin
    shown = (("P", 180, "Resources"), ("J", 180, "Priority"), ("J3", 60, "QOSGrpNodeLimit"))
    for key, start, reason in shown:
        assert want.loc[key, "start_s"] == start and want.loc[key, "reason"] == reason
        assert got.loc[key, "SCHEDNODES"] is None, (t, key)
        assert got.loc[key, "START_TIME"] == t0 + pd.Timedelta(seconds=start), (t, key)
        assert got.loc[key, "NODELIST(REASON)"] == f"({reason})"


def test_mem0_req_mem_is_the_first_node_of_slurmctlds_name_sorted_table():
    """mem0-mixed: every --mem=0 job's ReqTRES is mem=125G (cpu1's 128000 MB) in real sacct,
    whichever node it ran on; its AllocTRES the memory of its own node, which is real
    Slurm's: m1 on gpu1 (cpu2 and gpu[1-4] one run of the name-sorted table), m2 on cpu2,
    s1 on gpu2 (cpu1 and cpu2 kept for the waiting -w jobs m3 and m4)."""
    result = _run("mem0-mixed")
    sim = result.sacct().set_index("JobID")
    real = starts("mem0-mixed").set_index("id")
    for key in ("m1", "m2", "m3", "m4"):
        assert sim.loc[key, "ReqTRES"] == "billing=1,cpu=1,mem=125G,node=1"
    for key in ("c1", "m1", "m2", "m3", "m4", "s1"):
        assert (sim.loc[key, "NodeList"], sim.loc[key, "AllocTRES"]) == (
            real.loc[key, "nodelist"],
            real.loc[key, "alloc_tres"],
        ), key
    # no job shares a --mem=0 job's node: m3 waits for c1 (50 s), m4 for m2 (real 66 s)
    origin = result.sim.origin
    assert real.loc["m3", "start_s"] == 50
    assert sim.loc["m3", "Start"] == origin + pd.Timedelta(seconds=50)


def test_array_tasks_behind_a_blocked_task_take_the_free_slots():
    """arr-gpu: arrH_3 held and arrP_2 moved to the busy gpu partition at 5 s: tasks 2 and 4
    (3 and 4) started when 0 and 1 ended (30-33 s), the blocked task later, in real Slurm
    and in the simulation, within a few seconds."""
    real = starts("arr-gpu")
    real = real.assign(key=real["id"] + "_" + real["array_task"].fillna("")).set_index("key")
    sim = _run("arr-gpu").sacct().set_index("JobID")
    t0 = sim["Start"].min()
    for key in ("arrH_2", "arrH_4", "arrP_3", "arrP_4", "arrH_3", "arrP_2", "arrP_5"):
        got = (sim.loc[key, "Start"] - t0).total_seconds()
        assert abs(got - real.loc[key, "start_s"]) <= 5, (key, got, real.loc[key, "start_s"])


def test_n3_gpus3_c2_spreads_as_real_slurm():
    """arr-gpu probeA (-n 3 --gpus=3 -c 2; gpu1 2 GPUs free, gpu2 1, gpu3 3 with 2 CPUs, gpu4
    none): real ``scontrol -d show job``: gpu1 CPU_IDs=1-4 Mem=4000 gpu:2, gpu3 CPU_IDs=14-15
    Mem=2000 gpu:1."""
    free = np.array([[15, 63000, 2], [15, 63000, 1], [2, 50000, 3], [15, 63000, 0]])
    task = np.array([2, 2000, 0])
    request = Request(task, gpus_per_job=3, spread=(3, task, np.zeros(3, int)))
    nodes = spread_nodes(free, request, np.ones(4, bool))
    assert tuple(nodes) == (0, 2)
    assert nodes.rows.tolist() == [[4, 4000, 2], [2, 2000, 1]]
    text = (DATA / "arr-gpu" / "snapshots.txt").read_text()
    job = ids("arr-gpu")["probeA"]
    line = next(x for x in text.splitlines() if x.startswith(f"JobId={job} "))
    assert "Nodes=gpu1 CPU_IDs=1-4 Mem=4000 GRES=gpu:a100:2" in line
    assert "Nodes=gpu3 CPU_IDs=14-15 Mem=2000 GRES=gpu:a100:1" in line


@pytest.mark.parametrize("t", [10, 20, 30, 40, 50])
def test_a_plan_cut_at_the_window_and_the_job_held_behind_it_show_as_in_real_slurm(t):
    """bf-cut2 (bf-cut's gpu jobs alone): P planned at 60 s on gpu[1-2], its reservation cut
    at the window's end; J, held to the map's end by it, at B's end (180 s) with SCHEDNODES
    (null), as real squeue --start showed them every 10 s."""
    queue = real_queue("bf-cut2")
    want = queue[queue["t"] == t].set_index("key")
    sim = _run("bf-cut2").sim
    got = squeue_frame(sim, float(t)).set_index("JOBID")
    t0 = sim.origin
    real_nodes = _real_snapshot_schednodes("bf-cut2", t)
    for key, start, nodes in (("P", 60, "gpu[1-2]"), ("J", 180, None)):
        assert want.loc[key, "start_s"] == start and real_nodes[key] == nodes, (t, key)
        assert got.loc[key, "START_TIME"] == t0 + pd.Timedelta(seconds=start), (t, key)
        assert got.loc[key, "SCHEDNODES"] == nodes, (t, key)


def _real_snapshot_schednodes(name: str, t: int) -> dict[str, str | None]:
    """SCHEDNODES per scenario id in the squeue --start snapshot taken at ``t`` s."""
    by_real = {v: k for k, v in ids(name).items()}
    text = (DATA / name / "snapshots.txt").read_text()
    snap = text.split(f"######## t=+{t}s ")[1].split("########")[0]
    block = snap.split("$ squeue --start -a -r\n")[1]
    out = {}
    for line in block.splitlines()[1:]:
        if not line.strip():
            break
        cols = line.split()
        out[by_real.get(cols[0], cols[0])] = None if cols[7] == "(null)" else cols[7]
    return out
