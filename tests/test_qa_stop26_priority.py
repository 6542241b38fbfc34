"""QA stop 26: a Slurm administrator's review of multifactor priority and fair share.

* Job size and the TRES factor count the nodes and CPUs asked for, as slurmctld's
  min_nodes and min_cpus while the job pends: ``-n 40`` alone is one node and 40 CPUs
  (priority_multifactor.c; job_set_req_tres), not the three nodes slurmlab gives it.
"""

from __future__ import annotations

import textwrap

from slurmlab.scenario import Scenario


def test_job_size_counts_the_nodes_and_cpus_asked_for(tmp_path):
    path = tmp_path / "js.yaml"
    path.write_text(
        textwrap.dedent(
            """\
            cluster:
              nodes: [{name: "n[1-4]", cpus: 16, memory: 64000M}]
              settings:
                PriorityType: priority/multifactor
                PriorityWeightJobSize: 1000
                PriorityWeightTRES: "CPU=1000,Node=1000"
            policy: slurm
            jobs:
              - {id: blk, submit: 0, runtime: 1000, args: "-N 4 --exclusive -t 30"}
              - {id: n40, submit: 1, runtime: 100, args: "-n 40 -t 10"}
              - {id: N2n32, submit: 1, runtime: 100, args: "-N 2 -n 32 -t 10"}
            """
        )
    )
    r = Scenario.load(path).run()
    prio = dict(zip(r.jobs["JobID"], r.jobs["Priority"], strict=True))
    # n40: job size (1/4 + 40/64) / 2 = 0.4375 -> 437.5; TRES cpu 40/64 -> 625, node 1/4
    # -> 250: 1312 (truncated). N2n32: (2/4 + 32/64) / 2 -> 500, cpu 500, node 500: 1500
    assert prio["n40"] == 1312
    assert prio["N2n32"] == 1500
    starts = dict(zip(r.jobs["JobID"], r.seconds("Start"), strict=True))
    assert starts["N2n32"] < starts["n40"]  # the higher priority starts first
