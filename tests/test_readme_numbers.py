"""README.md says what the code and the real-Slurm fixtures say.

Its fidelity numbers are generated: tools/realslurm/fidelity_counts.py counts them over every
fixture in datasets/realslurm with the functions the tests assert with, and ``make fidelity``
(``scorecard.py --readme``) writes them into its "Fidelity at a glance" table, so they
follow the fixtures as they are added. The other tests check a sentence of the README
against the behaviour it describes, each as Slurm 22.05 has it.
"""

from __future__ import annotations

import json
import re
import sys
import warnings
from pathlib import Path

import pytest

import slurmlab
from slurmlab import SacctParseError
from slurmlab.cli import main

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "realslurm"))

from fidelity_counts import glance  # noqa: E402
from scorecard import readme_block  # noqa: E402

README = ROOT / "README.md"
REAL = ROOT / "datasets" / "realslurm"


def _readme() -> str:
    return README.read_text(encoding="utf-8")


def _prose() -> str:
    """README.md without its generated blocks, in one line (sentences wrap anywhere)."""
    doc = _readme()
    for name in ("GLANCE", "SCORECARD"):
        start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
        if start in doc and end in doc:
            doc = doc[: doc.index(start)] + doc[doc.index(end) :]
    return " ".join(doc.split())


def _fixture_cluster() -> slurmlab.Cluster:
    """The real-Slurm fixtures' cluster: gpu[1-4] of 16 CPUs and 4 GPUs, cpu[1-2] of 32."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (KillWait, not modelled)
        return slurmlab.Cluster.from_slurm_conf(REAL / "slurm.conf", gres_conf=REAL / "gres.conf")


def test_the_readmes_fidelity_at_a_glance_is_the_current_count():
    """The "Fidelity at a glance" table is what fidelity_counts.glance counts now over every
    fixture of datasets/realslurm (regenerate it with ``make fidelity``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert readme_block(_readme(), "GLANCE") == glance()


def test_the_readmes_prose_quotes_no_fidelity_count_of_its_own():
    """Counts over the fixtures ("1,451 of 2,041 rows", "thirty-eight scenarios", "all 384
    match") go stale as fixtures are added: the prose points to the generated table."""
    prose = _prose()
    stale = re.findall(r"\b\d[\d,]* of (?:the |its )?(?:first \d+ fixtures' )?[\d,]+\b", prose)
    stale += re.findall(r"(?i)\b(?:[a-z]+-[a-z]+|\d+) scenarios\b|\ball [\d,]+ match\b", prose)
    assert not stale, f"put these counts in fidelity_counts.glance's table: {stale}"
    assert "### Fidelity at a glance" in _readme()
    assert prose.count("(#fidelity-at-a-glance)") >= 3


def test_anonymize_reads_text_exports_only_as_the_readme_says(tmp_path):
    """A real ``sacct --json`` export (datasets/realslurm/arrays/sacct.json, Slurm 22.05) is
    refused by anonymize with the fix, and read by summary; the README no longer lists
    anonymize among the commands that read ``--json``."""
    export = REAL / "arrays" / "sacct.json"
    with pytest.raises(SacctParseError, match="anonymizer reads text exports"):
        slurmlab.anonymize_file(export, tmp_path / "out.psv", salt="s")
    assert len(slurmlab.read_sacct(export, tz="UTC"))
    prose = _prose()
    assert "`summary`, `report` and `anonymize` read sacct exports" not in prose
    assert "`anonymize` text exports only" in prose


def test_n_40_spreads_over_whole_nodes_and_N_3_n_40_is_the_uneven_shape():
    """On 16-CPU nodes, ``-n 40`` without ``-N`` resolves to 14 + 13 + 13 tasks but runs on
    16 + 16 + 8 CPUs (cons_tres job_test.c _eval_nodes takes each node's free CPUs until the job has its
    own), while ``-N 3 -n 40`` holds the largest count's 14 CPUs on each node, cpu=42, where
    Slurm's cyclic count (cons_tres dist_tasks_compute_c_b) gives 14 + 13 + 13, 40: the
    README names that case and no longer calls ``resources`` the shape Slurm allocates."""
    cluster = _fixture_cluster()
    spread = slurmlab.JobSpec.from_args(["-n", "40", "-p", "gpu"])
    assert spread.resources(cluster).tasks_per_node == (14, 13, 13)
    for args, cpus, tres in (("-n 40 -p gpu", [16, 16, 8], "cpu=40"), ("-N 3 -n 40 -p gpu", [14] * 3, "cpu=42")):  # fmt: skip
        lab = slurmlab.Lab(cluster)
        lab.sbatch(args.split(), runtime=100)
        lab.advance(5)
        usage = lab.node_usage()
        assert sorted(usage["CPUAlloc"][usage["CPUAlloc"] > 0], reverse=True) == cpus, args
        assert tres in lab.sacct()["AllocTRES"].iloc[0], args
    prose = _prose()
    assert "`-n 40` on 16-CPU nodes 14 + 13 + 13 tasks" not in prose
    assert "`-N 3 -n 40` on 16-CPU nodes 14 + 13 + 13 tasks" in prose
    assert "the per-node shape Slurm allocates" not in _readme()


def test_srun_env_defaults_to_cyclic_without_more_tasks_than_nodes():
    """srun's default distribution is cyclic when there are no more tasks than nodes, else
    block (src/srun/libsrun/launch.c _create_job_step_create_request; block also with --mem=0,
    step_mgr.c step_create): srun_env follows it,
    and the README no longer calls block the default outright."""
    for args, dist in (("-N 2 -n 2", "cyclic"), ("-N 2 -n 4", "block")):
        env = slurmlab.srun_env(slurmlab.JobSpec.from_args(args), nodelist="n[1-2]", job_id=1)
        assert set(env["SLURM_DISTRIBUTION"]) == {dist}, args
    prose = _prose()
    assert "`block` (the default)" not in prose
    assert "`cyclic` when there are no more tasks than nodes, else `block`" in prose


def test_sacct_out_writes_restarts_a_field_slurm_2205_sacct_has_not(tmp_path):
    """``simulate --sacct-out`` writes a Restarts column, which Slurm 22.05's sacct has no
    field for (src/sacct/sacct.c fields[]; the fixtures' 47-field exports lack it): the README
    and datasets/synthetic/README.md say so."""
    out = tmp_path / "jobs.psv"
    scenario = ROOT / "course" / "scenarios" / "backfill-basics.yaml"
    assert main(["simulate", str(scenario), "--sacct-out", str(out), "--quiet"]) == 0
    assert "Restarts" in out.read_text().splitlines()[0].split("|")
    assert "Restarts" not in (REAL / "arrays" / "sacct.txt").read_text().splitlines()[0]
    assert "a column no 22.05 sacct export has" in _prose()
    synthetic = (ROOT / "datasets" / "synthetic" / "README.md").read_text(encoding="utf-8")
    assert "Slurm 22.05's sacct has no such field" in " ".join(synthetic.split())


def test_skip_invalid_on_a_cluster_also_drops_jobs_over_maxtime(tmp_path, capsys):
    """With --skip-invalid on a --cluster, an SWF job over its partition's MaxTime (2:00:00
    in datasets/realslurm/slurm.conf) is dropped and counted in dropped_why, as the README's
    ``dropped`` key now says (Slurm would leave it pending for ever: PartitionTimeLimit)."""
    swf = tmp_path / "t.swf"
    swf.write_text(
        "; MaxProcs: 64\n"
        "1 0 0 100 4 -1 -1 4 600 -1 1 1 1 -1 -1 -1 -1 -1\n"
        "2 10 0 100 4 -1 -1 4 10000 -1 1 1 1 -1 -1 -1 -1 -1\n"
    )
    args = ["simulate", str(swf), "--cluster", str(REAL / "slurm.conf"), "--skip-invalid"]
    assert main([*args, "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["dropped"] == 1 and out["dropped_why"] == {"over the partition's MaxTime": 1}
    assert "on a `--cluster`, those over their partition's MaxTime" in _prose()


def test_a_minus_n_job_its_partition_cannot_hold_pends_for_ever():
    """``-n 70`` on gpu (4 nodes of 16 CPUs) is accepted and pends with PartitionConfig, as
    slurmctld does under EnforcePartLimits=NO (job_mgr.c _part_access_check returns
    ESLURM_TOO_MANY_REQUESTED_CPUS, which job_limits_check turns into WAIT_PART_CONFIG): the
    README no longer says such a job is refused."""
    lab = slurmlab.Lab(_fixture_cluster())
    job = lab.sbatch(["-n", "70", "-p", "gpu"], runtime=100)
    lab.advance(60)
    assert "(PartitionConfig)" in lab.squeue_text()
    assert "will never start" in lab.why_pending(job)
    prose = _prose()
    assert "refused only when the partition's nodes together cannot hold its tasks" not in prose
    assert "cannot hold is accepted and pends for ever, PartitionConfig" in prose
