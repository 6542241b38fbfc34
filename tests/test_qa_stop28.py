"""Stop 28's review findings, each with its input and exact outcome."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import slurmlab
from slurmlab import analysis

ROOT = Path(__file__).resolve().parents[1]
FAILURES_JSON = ROOT / "datasets/realslurm/failures/sacct.json"


def _read(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return slurmlab.read_sacct(path)


def test_a_json_export_without_restart_count_leaves_restarts_unknown(tmp_path):
    """Slurm 22.05's sacct --json has no restart count: Restarts is unknown (<NA>), never 0,
    and requeues() says only jobs with several runs are found (the SRE's review: a JSON
    export without -D showed every requeued job with Restarts 0, and no warning)."""
    doc = json.loads(FAILURES_JSON.read_text())
    assert not any("restart_cnt" in job for job in doc["jobs"])
    runs = [job for job in doc["jobs"] if job["job_id"] == 6]  # requeued once
    doc["jobs"] = [job for job in doc["jobs"] if job["job_id"] != 6]
    doc["jobs"].append(max(runs, key=lambda job: job["time"]["submission"]))  # (no -D)
    path = tmp_path / "nodup.json"
    path.write_text(json.dumps(doc))
    jobs = _read(path)
    assert jobs["Restarts"].isna().all()
    with pytest.warns(UserWarning) as caught:
        found = analysis.requeues(jobs)
    assert found.empty
    assert [str(w.message) for w in caught if "Restarts" in str(w.message)] == [
        "requeues: the export has no Restarts, so Restarts is unknown (<NA>, not 0) and only "
        "jobs with several runs in the export are found: export with sacct -D (--duplicates: "
        "each run of a requeued job is a row), and add Restarts to -o where your sacct has "
        "that field (Slurm 22.05's has none; newer releases' has)"
    ]


def test_a_json_restart_count_is_read_where_present(tmp_path):
    """Later Slurm versions write ``restart_cnt``: it is read as it is."""
    doc = json.loads(FAILURES_JSON.read_text())
    for job in doc["jobs"]:
        job["restart_cnt"] = 2 if job["job_id"] == 6 else 0
    path = tmp_path / "counted.json"
    path.write_text(json.dumps(doc))
    jobs = _read(path)
    assert set(jobs.loc[jobs["JobID"] == "6", "Restarts"]) == {2}
    assert set(jobs.loc[jobs["JobID"] != "6", "Restarts"]) == {0}


# -- PreemptType and PreemptMode (the Lab demo review) ------------------------------------------
from slurmlab import Cluster, ConfigError  # noqa: E402
from slurmlab.errors import SlurmlabError  # noqa: E402
from slurmlab.spec.cluster import Node, Partition  # noqa: E402

NODES = "NodeName=n[1-2] CPUs=4\nPartitionName=p Nodes=ALL Default=YES\n"


def test_preempt_qos_without_a_preempt_mode_is_refused_as_slurmctld_refuses_it():
    """read_config.c: preempt/qos with PreemptMode OFF (its default) is "PreemptType and
    PreemptMode values incompatible"; slurmlab ran it with preemption silently off."""
    with pytest.raises(ConfigError) as info:
        Cluster.from_slurm_conf(f"ClusterName=c\nPreemptType=preempt/qos\n{NODES}")
    assert str(info.value) == (
        "slurm.conf line 2: PreemptType=preempt/qos with no PreemptMode (OFF): slurmctld "
        'refuses to start ("PreemptType and PreemptMode values incompatible"); set '
        "PreemptMode=REQUEUE or CANCEL (a QOS's own PreemptMode does not replace it)"
    )


def test_a_preempt_mode_without_a_preempt_type_is_refused_naming_its_line():
    with pytest.raises(ConfigError) as info:
        Cluster.from_slurm_conf(f"ClusterName=c\nKillWait=30\nPreemptMode=REQUEUE\n{NODES}")
    assert str(info.value) == (
        "slurm.conf line 3: PreemptMode=REQUEUE with PreemptType=preempt/none (the default): "
        'slurmctld refuses to start ("PreemptType and PreemptMode values incompatible"); set '
        "PreemptType=preempt/qos to preempt, or drop PreemptMode"
    )


def test_python_settings_get_the_same_check():
    with pytest.raises(SlurmlabError, match="^Cluster 'c': PreemptType=preempt/qos with "):
        Cluster("c", (Node("n1"),), (Partition("p", ("n1",)),), {"PreemptType": "preempt/qos"})


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"PreemptType": "preempt/none"},
        {"PreemptMode": "OFF"},
        {"PreemptMode": "GANG"},
        {"PreemptType": "preempt/qos", "PreemptMode": "REQUEUE"},
        {"PreemptType": "preempt/qos", "PreemptMode": "CANCEL"},
    ],
)
def test_what_slurmctld_accepts_is_accepted(settings):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (GANG is named as not modelled)
        Cluster("c", (Node("n1"),), (Partition("p", ("n1",)),), settings)


# -- reservations written in Python (the Lab demo review) ---------------------------------------
from slurmlab import Reservation  # noqa: E402


def test_a_whole_number_duration_in_python_is_warned_about_as_in_a_scenario():
    """scontrol's Duration=60 is minutes; Reservation(duration=60) is seconds: said."""
    with pytest.warns(UserWarning) as caught:
        r = Reservation("pm", start="1h", duration=60, nodes="node[1-4]", users=["root"])
    assert r.duration == 60.0
    assert [str(w.message) for w in caught] == [
        "reservation 'pm': duration=60 is read as 60 seconds, while scontrol create "
        "reservation Duration=60 means 60 minutes; write duration='60s', or '60m' for "
        "minutes, to say which"
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (said explicitly, or a copy of one already read)
        Reservation("pm", start="1h", duration="60m", nodes="node[1-4]", users=["root"])
        Reservation("pm", start="1h", duration=3600.0, nodes="node[1-4]", users=["root"])


def test_flags_split_at_commas_as_scontrol_takes_them():
    r = Reservation("pm", start=0, duration="1h", nodes="node1", users="root", flags="maint")
    assert r.flags == ("MAINT",)
    with pytest.raises(SlurmlabError) as info:
        Reservation(
            "pm", start=0, duration="1h", nodes="node1", users="root", flags="MAINT,IGNORE_JOBS"
        )
    assert str(info.value) == (
        "reservation 'pm': flag 'IGNORE_JOBS' is not modelled; slurmlab models MAINT (a "
        "maintenance window: flags: [maint])"
    )


def test_a_start_counted_from_now_says_what_start_counts_from():
    with pytest.raises(SlurmlabError) as info:
        Reservation("pm", start="now+1hour", duration="1h", nodes="node1", users="root")
    assert str(info.value).endswith(
        "(a reservation's start is counted from the simulation's start, a Lab's origin, not "
        "from now: for scontrol's StartTime=now+1hour in a Lab, use lab.reserve(..., "
        "start='1h'))"
    )


def test_a_row_with_one_more_field_than_the_header_names_both_causes(tmp_path):
    """The scripting review: an export whose rows carry a column its field list does not
    name was diagnosed only as "the delimiter is inside a value"."""
    path = tmp_path / "extra.psv"
    path.write_text("JobID|State|Elapsed\n1|COMPLETED|00:01:00|gpu\n")
    with pytest.raises(SlurmlabError) as info:
        slurmlab.read_sacct(path)
    message = str(info.value)
    assert (
        "has 4 fields where the header has 3: either the row has a column the header (or "
        "fields=) does not name, or the delimiter '|' is inside a value" in message
    )
    assert "give the field list it was written with" in message


def test_a_json_run_with_two_scheduler_flags_reads_as_the_text_export_writes_it():
    """Real Slurm 22.05 (datasets/realslurm/node-failure): the JSON of a requeued run that
    the main scheduler started keeps its first run's STARTED_ON_BACKFILL bit; sacct's text
    writes the first of submit, main, backfill (slurmdb_job_flags_str): SchedMain."""
    root = ROOT / "datasets/realslurm/node-failure"
    doc = json.loads((root / "sacct.json").read_text())
    flags = [job["flags"] for job in doc["jobs"] if job["job_id"] == 1]
    assert [f for f in flags[1] if f.startswith("STARTED_ON")] == [
        "STARTED_ON_SCHEDULE",
        "STARTED_ON_BACKFILL",
    ]
    jobs = _read(root / "sacct.json")
    train = jobs[jobs["JobName"] == "train"].sort_values("Submit")
    assert train["StartedBy"].tolist() == ["backfill", "main"]
