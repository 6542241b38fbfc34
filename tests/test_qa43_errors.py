"""QA 43: bad input gets a clear error naming the file, the place, the field, the value and
the fix; nothing is silently dropped or lost.

sacct --json values sacct never writes (errors naming ``jobs[i] (job_id N)``, the JSON field
and the value as written, under errors=raise/warn/coerce), a top-level ``errors`` list,
slurm.conf typos slurmctld 22.05 stops on, gres.conf lines for unknown nodes, scenario
defaults and names YAML reads as booleans, --until, SWF traces given to summary, and runs
whose GPUs a text export does not say.
"""

from __future__ import annotations

import copy
import io
import json
import warnings
from pathlib import Path

import pandas as pd
import pytest

from slurmlab import Cluster, ConfigError, Scenario
from slurmlab.cli import main
from slurmlab.errors import ScenarioError
from slurmlab.records.sacct import SacctParseError, SacctParseWarning, read_sacct
from slurmlab.scenario import DefaultClusterWarning

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "datasets" / "realslurm"
BACKFILL = json.loads((REAL / "backfill" / "sacct.json").read_text())


def export(change) -> io.BytesIO:
    """The real 22.05 export of the backfill fixture (5 jobs), changed by ``change(doc)``."""
    doc = copy.deepcopy(BACKFILL)
    change(doc)
    return io.BytesIO(json.dumps(doc).encode())


def caught_by(build) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        build()
    return [str(w.message) for w in caught]


def gpu_entry(doc) -> dict:
    return next(t for t in doc["jobs"][0]["tres"]["allocated"] if t["type"] == "gres")


# -- 1. sacct --json values sacct never writes are errors, not zeros or NaT ---------------------
@pytest.mark.parametrize(
    ("change", "field", "column", "value", "problem"),
    [
        (lambda d: gpu_entry(d).update(count="two"), "tres.allocated[5].count", "AllocTRES",
         '"two"', "is a text, not a number"),
        (lambda d: d["jobs"][0]["time"].update(start="yesterday"), "time.start", "Start",
         '"yesterday"', "is a text, not a number"),
        (lambda d: d["jobs"][0]["time"].update(end="2026-12-02T13:52:27"), "time.end", "End",
         '"2026-12-02T13:52:27"', "is a text, not a number"),
        (lambda d: d["jobs"][0]["time"].update(start=None), "time.start", "Start", "null",
         "is not set but time.elapsed is 100 s"),
        (lambda d: d["jobs"][0].pop("time"), "time", "ElapsedRaw", None, "is missing"),
        (lambda d: d["jobs"][0]["exit_code"].update(return_code="x"), "exit_code.return_code",
         "ExitCode", '"x"', "is a text, not a number"),
        (lambda d: d["jobs"][0].pop("tres"), "tres", "AllocTRES", None, "is missing"),
        (lambda d: d["jobs"][0].update(allocation_nodes="four"), "allocation_nodes", "NNodes",
         '"four"', "is a text, not a number"),
        (lambda d: d["jobs"][0].pop("state"), "state", "State", None, "is missing"),
    ],
    ids=["gpu-count", "start-text", "end-iso", "start-null", "no-time", "exit-code",
         "no-tres", "nodes-text", "no-state"],
)  # fmt: skip
def test_a_json_value_sacct_never_writes_is_an_error_naming_job_field_and_value(
    change, field, column, value, problem
):
    """These read as 0 GPUs, NaT, Elapsed 0, exit 0:0 or NA without a word."""
    with pytest.raises(SacctParseError) as info:
        read_sacct(export(change), tz="UTC")
    e = info.value
    assert (e.record, e.field, e.column, e.value) == ("jobs[0] (job_id 1)", field, column, value)
    assert e.problem.startswith(problem)
    shown = f": {value}" if value is not None else ""
    assert str(e).startswith(
        f"<buffer>, jobs[0] (job_id 1), field {field} ({column}){shown}: {problem}"
    )
    assert "errors='warn'" in str(e)


def test_errors_warn_and_coerce_treat_a_json_value_as_a_text_exports():
    """warn: the job is left out, named; coerce: kept, the bad value NA (not 0 GPUs)."""
    bad = lambda d: gpu_entry(d).update(count="two")  # noqa: E731
    with pytest.warns(SacctParseWarning) as caught:
        jobs = read_sacct(export(bad), tz="UTC", errors="warn")
    assert "1" not in set(jobs["JobID"]) and len(jobs) == 4
    (said,) = [str(w.message) for w in caught if "left out" in str(w.message)]
    assert said.startswith("<buffer>: left out 1 malformed row(s) at jobs[0] (job_id 1);")
    assert 'jobs[0] (job_id 1), field tres.allocated[5].count (AllocTRES): "two"' in said
    with pytest.warns(SacctParseWarning, match="kept 1 malformed row"):
        jobs = read_sacct(export(bad), tz="UTC", errors="coerce")
    one = jobs.set_index("JobID").loc["1"]
    assert pd.isna(one["AllocTRES"]) and pd.isna(one["NCPUS"])


def test_what_sacct_writes_for_a_value_it_has_not_got_stays_missing_without_a_warning():
    """22.05 writes null for an unset count (a cancelled pending job's start, an unlimited
    time limit, the energy of a TRES list) and 0 for a start not yet: no error."""

    def pending(doc):
        job = doc["jobs"][4]
        job["time"].update(start=None, elapsed=0, limit=None)
        job["state"]["current"] = "CANCELLED"
        job["allocation_nodes"] = 0
        job["tres"]["allocated"] = [{"type": "energy", "name": None, "id": 3, "count": None}]
        job["steps"] = []

    said = caught_by(lambda: read_sacct(export(pending), tz="UTC"))
    assert said == []
    jobs = read_sacct(export(pending), tz="UTC")
    five = jobs.set_index("JobID").loc["5"]
    assert pd.isna(five["Start"]) and pd.isna(five["Timelimit"])


def test_every_real_json_export_reads_without_a_warning():
    for path in sorted(REAL.glob("*/sacct.json")):
        assert caught_by(lambda p=path: read_sacct(p, tz="UTC")) == [], path


# -- 2. entries that are no object, and the export's own errors ------------------------------
def test_a_jobs_entry_that_is_no_object_is_an_error_not_skipped():
    def garbage(doc):
        doc["jobs"][1:1] = ["garbage", None]

    with pytest.raises(SacctParseError) as info:
        read_sacct(export(garbage), tz="UTC")
    assert str(info.value) == (
        '<buffer>, jobs[1]: "garbage": is a text, not a job object; the export was edited or '
        "is corrupt: export it again with sacct --json"
    )
    with pytest.warns(SacctParseWarning, match=r"left out 2 malformed row\(s\) at jobs\[1\], "):
        jobs = read_sacct(export(garbage), tz="UTC", errors="warn")
    assert len(jobs) == 5


def test_the_exports_own_errors_are_quoted():
    def failed(doc):
        doc["errors"] = [{"error": "Unable to contact slurmdbd", "error_number": 1}]

    with pytest.warns(SacctParseWarning) as caught:
        read_sacct(export(failed), tz="UTC")
    assert any(
        "reports 1 error(s): 'Unable to contact slurmdbd' (error_number 1); its jobs may be "
        "incomplete" in str(w.message)
        for w in caught
    )

    def nothing(doc):
        failed(doc)
        doc["jobs"] = []

    with pytest.raises(SacctParseError, match="reports 1 error.s. and holds no job"):
        read_sacct(export(nothing), tz="UTC")


# -- 3. errors the text checks find name the job entry, not a flattened row ---------------------
def test_a_negative_elapsed_names_its_job_entry_and_json_field():
    """It was 'line 7, column ElapsedRaw': the 7th of the flattened job and step rows."""

    def negative(doc):
        doc["jobs"][3]["time"]["elapsed"] = -5

    with pytest.raises(SacctParseError) as info:
        read_sacct(export(negative), tz="UTC")
    assert str(info.value).startswith(
        "<buffer>, jobs[3] (job_id 4), field time.elapsed (ElapsedRaw): -5: is negative"
    )


def test_a_text_job_id_is_shown_as_written():
    """It was reported with the value ''."""

    def text(doc):
        doc["jobs"][0]["job_id"] = "abc"

    with pytest.raises(SacctParseError) as info:
        read_sacct(export(text), tz="UTC")
    assert (info.value.record, info.value.field, info.value.value) == (
        'jobs[0] (job_id "abc")',
        "job_id",
        '"abc"',
    )


def test_times_that_contradict_each_other_name_the_json_fields():
    def backwards(doc):
        doc["jobs"][0]["time"]["end"] = doc["jobs"][0]["time"]["start"] - 7200

    with pytest.raises(SacctParseError) as info:
        read_sacct(export(backwards), tz="UTC")
    assert str(info.value).startswith(
        "<buffer>, jobs[0] (job_id 1), field time.start, time.end (Start, End): "
    )
    assert "End is before Start, by 02:00:00" in str(info.value)
    assert "columns are shifted" not in str(info.value)


# -- 4, 5, 6. slurm.conf lines slurmctld 22.05 stops on ----------------------------------------
NODES = "NodeName=n[1-2] CPUs=8 RealMemory=1000\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("NodeName=n[1-2]CPUs=8 RealMemory=1000\n",
         "slurm.conf line 1: NodeName=n[1-2]CPUs=8: a node name cannot hold '=': a space is "
         "missing before CPUs= (slurmctld would read the node name 'n[1-2]CPUs=8'); write "
         "NodeName=n[1-2] CPUs=8"),
        (NODES + "PartitionName=pNodes=ALL Default=YES\n",
         "slurm.conf line 2: PartitionName=pNodes=ALL: a partition name cannot hold '=': a "
         "space is missing before Nodes= (slurmctld would read the partition name "
         "'pNodes=ALL'); write PartitionName=p Nodes=ALL"),
        ("NodeNmae=n[1-2] CPUs=8 RealMemory=1000\n",
         "slurm.conf line 1: NodeNmae=n[1-2]: NodeNmae is not a slurm.conf key (slurmctld "
         '22.05 stops: "Parsing error at unrecognized key: NodeNmae"); did you mean NodeName? '
         "write NodeName=n[1-2] CPUs=8 RealMemory=1000"),
        (NODES + "PartitoinName=p Nodes=ALL\n",
         "did you mean PartitionName? write PartitionName=p Nodes=ALL"),
        ("NodeName=n[1-2] CPUs=8 RealMemroy=1000\n",
         "slurm.conf line 1: NodeName=n[1-2]: RealMemroy=1000: not a slurm.conf node option "
         '(slurmctld 22.05 stops: "Parsing error at unrecognized key: RealMemroy"); did you '
         "mean RealMemory?"),
        (NODES + "PartitionName=p Nodes=ALL Default=YES MaxTme=10\n",
         "slurm.conf line 2: PartitionName=p: MaxTme=10: not a slurm.conf partition option "
         '(slurmctld 22.05 stops: "Parsing error at unrecognized key: MaxTme"); did you mean '
         "MaxTime?"),
        ("NodeName=n1 CPUs=8 Name=gpu File=/dev/nvidia0\n",
         "Name= is a gres.conf option: a line NodeName=... Name=gpu File=... belongs in "
         "gres.conf"),
    ],
    ids=["glued-node", "glued-partition", "NodeNmae", "PartitoinName", "RealMemroy", "MaxTme",
         "gres-line"],
)  # fmt: skip
def test_a_slurm_conf_line_slurmctld_stops_on_is_an_error_with_the_fix(text, message):
    with pytest.raises(ConfigError) as info:
        Cluster.from_slurm_conf(text)
    assert message in str(info.value)


def test_slurms_own_options_slurmlab_does_not_model_still_load_with_a_warning():
    conf = NODES.replace("\n", " CoreSpecCount=2\n") + "PartitionName=p Nodes=ALL AllowGroups=x\n"
    said = caught_by(lambda: Cluster.from_slurm_conf(conf))
    assert any("CoreSpecCount=2: not modelled" in w for w in said)
    assert any("AllowGroups not modelled" in w for w in said)


@pytest.mark.parametrize(
    "path",
    sorted([*(ROOT / "slurmlab" / "data").glob("*.conf"), *REAL.glob("*slurm.conf")]),
    ids=lambda p: p.name,
)
def test_the_presets_and_fixtures_still_load(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Cluster.from_slurm_conf(
            path, gres_conf=REAL / "gres.conf" if REAL in path.parents else None
        )


# -- 7. a gres.conf line for nodes slurm.conf lacks --------------------------------------------
def test_a_gres_conf_line_for_unknown_nodes_names_them(tmp_path):
    conf = tmp_path / "slurm.conf"
    conf.write_text("GresTypes=gpu\nNodeName=n[1-2] CPUs=8 Gres=gpu:2\nPartitionName=p Nodes=ALL\n")
    gres = tmp_path / "gres.conf"
    gres.write_text("NodeName=x[1-2] Name=gpu File=/dev/nvidia[0-1]\n")
    said = caught_by(lambda: Cluster.from_slurm_conf(conf, gres_conf=gres))
    assert said[0] == (
        f"{gres} line 1: NodeName=x[1-2] Name=gpu: x[1-2] are not nodes of slurm.conf, whose "
        "nodes are n[1-2]; slurmd reads only the gres.conf lines that name its own node, so no "
        "node takes this line, in Slurm and in slurmlab; write NodeName= with slurm.conf's "
        "node names"
    )


# -- 8, 9, 10. scenarios -----------------------------------------------------------------------
JOB = '  - {id: a, submit: 0, runtime: 60, args: "-N 1 -t 10"}\n'


def test_a_scenario_without_a_cluster_says_it_runs_on_tiny(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text(f"jobs:\n{JOB}")
    with pytest.warns(DefaultClusterWarning) as caught:
        scenario = Scenario.load(path)
    assert scenario.cluster.name == Cluster.preset("tiny").name
    assert str(caught[0].message).startswith(
        f"{path}: the scenario has no 'cluster' section, so it runs on the preset cluster "
        "'tiny' (4 nodes, "
    )
    assert "write cluster: tiny to keep it" in str(caught[0].message)
    path.write_text(f"cluster: tiny\njobs:\n{JOB}")
    assert caught_by(lambda: Scenario.load(path)) == []
    path.write_text(f"jobs:\n{JOB}")  # (--cluster gives one: nothing to say)
    assert main(["simulate", str(path), "--cluster", "ai", "--quiet"]) == 0
    assert "cluster" not in capsys.readouterr().err


@pytest.mark.parametrize("written", ["on", "no", "Off", "TRUE"])
def test_a_name_yaml_reads_as_a_boolean_is_quoted_as_written(tmp_path, written):
    path = tmp_path / "s.yaml"
    path.write_text(
        "cluster: tiny\njobs:\n"
        f'  - {{id: a, submit: 0, runtime: 60, args: "-N 1 -t 10", account: {written}}}\n'
    )
    with pytest.raises(ScenarioError) as info:
        Scenario.load(path)
    assert str(info.value).endswith(f"quote it: account: '{written}'")
    assert f"the unquoted {written} as the boolean" in str(info.value)


@pytest.mark.parametrize("target", ["a", "1"])
def test_a_throttle_on_a_job_that_is_no_array_is_refused_at_load(tmp_path, target):
    path = tmp_path / "s.yaml"
    path.write_text(
        f"cluster: tiny\njobs:\n{JOB}"
        '  - {id: arr, submit: 0, runtime: 60, args: "-N 1 -t 10 --array=0-3"}\n'
        f"actions:\n  - {{at: 10, action: update, job: '{target}', throttle: 2}}\n"
    )
    with pytest.raises(ScenarioError) as info:
        Scenario.load(path)
    assert str(info.value).startswith(f"{path} line 6: actions[0]: field 'throttle': job ")
    assert "is not a job array" in str(info.value)
    path.write_text(path.read_text().replace(f"job: '{target}'", "job: arr"))
    assert Scenario.load(path).actions[0].changes == (("throttle", 2),)


# -- 11, 12. the command line --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("until", "why"),
    [
        ("-5", "must not be negative"),
        ("99999d", "over 1e+09 s (about 31 years)"),
        ("2300-01-01T00:00", "after 2262-04-11, the last time pandas"),
        ("2200-01-01", "days after the simulation's start"),
    ],
)
def test_an_until_that_cannot_be_read_says_why(tmp_path, capsys, until, why):
    path = tmp_path / "s.yaml"
    path.write_text(f"cluster: tiny\njobs:\n{JOB}")
    assert main(["simulate", str(path), f"--until={until}", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert f"invalid until {until!r}: " in err and why in err and "Traceback" not in err


def test_summary_of_an_swf_trace_points_to_simulate(tmp_path, capsys):
    trace = tmp_path / "trace.swf"
    trace.write_text("; Version: 2.2\n1 0 10 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n")
    assert main(["summary", str(trace)]) == 1
    assert f"simulate it: slurmlab simulate {trace}" in capsys.readouterr().err
    with pytest.raises(SacctParseError, match="is an SWF trace"):
        read_sacct(trace)


# -- 13. runs whose GPUs a text export does not say ------------------------------------------
HEAD = "JobID|State|Start|End|Elapsed|NCPUS|AllocTRES\n"
RUN = "|COMPLETED|2026-01-05T00:01:00|2026-01-05T01:01:00|01:00:00|8|"


def test_a_run_with_a_blank_alloc_tres_beside_runs_with_theirs_is_warned_about():
    text = f"{HEAD}2{RUN}\n3{RUN}cpu=8,gres/gpu=2,node=1\n"
    with pytest.warns(SacctParseWarning) as caught:
        jobs = read_sacct(io.StringIO(text))
    assert str(caught[0].message).startswith(
        "<buffer>: 1 run(s) that took time have a blank AllocTRES (line(s) 2), while the "
        "export's other runs have theirs"
    )
    assert jobs["NGPUS"].isna().tolist() == [True, False]


def test_a_gpu_entry_sacct_never_writes_is_unknown_with_a_warning():
    text = f"{HEAD}2{RUN}cpu=8,gpu=2,node=1\n"
    with pytest.warns(SacctParseWarning, match=r"line\(s\) 2.*write gres/gpu=N") as caught:
        jobs = read_sacct(io.StringIO(text))
    assert "'cpu=8,gpu=2,node=1'" in str(caught[0].message)
    assert jobs["NGPUS"].isna().all()  # (unknown, not 0)


def test_a_field_list_typo_names_the_option_once(tmp_path, capsys):
    path = tmp_path / "x.psv"
    path.write_text("1|COMPLETED|01:00:00\n")
    assert main(["summary", str(path), "--fields", "JobID,Stat,Elapsed"]) == 0
    err = capsys.readouterr().err
    assert "the field list (--fields) names 'Stat'" in err and "--fields / --fields" not in err
