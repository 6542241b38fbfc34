"""QA stop 26: a maintainer's fuzzing of sbatch options, node definitions and failure models
(the parts in spec/job.py, spec/cluster.py and the engine).
"""

from __future__ import annotations

import textwrap
import warnings

import pytest

import slurmlab
from slurmlab.errors import SbatchError, SlurmlabError
from slurmlab.scenario import Scenario
from slurmlab.spec.cluster import Gres, Node
from slurmlab.spec.job import JobSpec


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (  # sbatch's parse_int: strtol's LONG_MAX is too big (it overflowed the engine)
            "-c 99999999999999999999",
            "--cpus-per-task=99999999999999999999: Numeric argument too big (sbatch reads at "
            "most 9223372036854775806)",
        ),
        (
            "-N 1 --ntasks-per-node=99999999999999999999",
            "--ntasks-per-node=99999999999999999999: Numeric argument too big (sbatch reads "
            "at most 9223372036854775806)",
        ),
        # other scripts' digits are no number to Slurm's strtol ('５' was read as 5)
        ("-c ５", "--cpus-per-task='５': expected a whole number"),
        ("-N ５", "--nodes='５': expected N or MIN-MAX with N >= 1, e.g. 2 or 2-4"),
    ],
)
def test_counts_are_ascii_whole_numbers_below_long_max(args, message):
    with pytest.raises(SbatchError) as exc:
        JobSpec.from_args(args)
    assert str(exc.value) == message


def test_a_request_larger_than_64_bits_pends_instead_of_crashing():
    # PartitionConfig (EnforcePartLimits=NO, as real Slurm: the CPUs are tested first); its
    # per-node memory (2147483647^2 CPUs x 2000 MB) does not fit in numpy's int64
    lab = slurmlab.Lab("tiny")
    j = lab.sbatch("-N 1 --ntasks-per-node=2147483647 -c 2147483647")
    lab.advance(10)
    assert lab.squeue()["NODELIST(REASON)"].tolist() == ["(PartitionConfig)"]
    assert "will never start" in lab.why_pending(j)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda: Node("n1", cpus=10**20),
            "Node 'n1': CPUs=100000000000000000000 is too many (Slurm allows at most 65533 "
            "per node)",
        ),
        (
            lambda: Node("n1", cpus=4, memory_mb=10**20),
            "Node 'n1': RealMemory=100000000000000000000 MB is too large (at most "
            "281474976710656 MB)",
        ),
        (
            lambda: Gres("gpu", None, 10**20),
            "Gres 'gpu': count 100000000000000000000 is too large (at most 4294967295)",
        ),
    ],
)
def test_node_sizes_are_bounded(make, message):
    with pytest.raises(SlurmlabError) as exc:
        make()
    assert str(exc.value) == message


def test_a_job_failing_for_ever_ends_an_unbounded_run_with_an_error(tmp_path):
    # one failure per second and node, a 600 s job: it never ends. The run went on for
    # ever (the CLI printed nothing); after 10,000 requeues it stops and says how to bound it
    path = tmp_path / "rf.yaml"
    path.write_text(
        textwrap.dedent(
            """\
            cluster: tiny
            jobs: [{id: a, submit: 0, runtime: 600, args: '-N 1 -t 20'}]
            random_failures: {mtbf: 1}
            """
        )
    )
    s = Scenario.load(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the warning at 100 requeues)
        with pytest.raises(SlurmlabError, match=r"job a has been requeued 10000 times \(last: "):
            s.run()
        r = s.run(until="1d")  # bounded: it stops there, the job pending or running
    assert r.jobs["State"].tolist()[0] in ("PENDING", "RUNNING")
