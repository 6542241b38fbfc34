"""The slurmlab command line: --version, --help, sinfo of a preset, and the clear one-line
errors of ``slurmlab simulate`` for bad inputs and options."""

import bz2
import contextlib
import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

import slurmlab
from slurmlab.cli import main

GOLDEN = Path(__file__).parent / "golden"


def run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)


def test_version_in_process(capsys):
    """`slurmlab --version` prints the package version."""
    try:
        main(["--version"])
    except SystemExit as exc:
        assert exc.code == 0
    assert capsys.readouterr().out.strip() == f"slurmlab {slurmlab.__version__}"


def test_help_in_process(capsys):
    """`slurmlab --help` describes the command and lists its subcommands."""
    try:
        main(["--help"])
    except SystemExit as exc:
        assert exc.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: slurmlab")
    assert "sinfo" in out


def test_no_arguments_is_a_usage_error(capsys):
    """`slurmlab` alone prints the usage on stderr and fails as a usage error (exit 2)."""
    with pytest.raises(SystemExit) as exc:
        main([])
    assert exc.value.code == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err.startswith("usage: slurmlab")


def test_python_dash_m_version():
    """`python -m slurmlab --version` works like the console script."""
    proc = run(sys.executable, "-m", "slurmlab", "--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"slurmlab {slurmlab.__version__}"


def test_console_script_version_and_help():
    """The installed `slurmlab` console script answers --version and --help."""
    script = Path(sys.executable).with_name("slurmlab")
    assert script.exists(), "install the package (make test does) to get the slurmlab script"
    proc = run(str(script), "--version")
    assert (proc.returncode, proc.stdout.strip()) == (0, f"slurmlab {slurmlab.__version__}")
    proc = run(str(script), "--help")
    assert proc.returncode == 0 and "usage: slurmlab" in proc.stdout


def test_sinfo_preset():
    """`slurmlab sinfo ai` prints the preset's sinfo, as pinned in its golden file."""
    proc = run(sys.executable, "-m", "slurmlab", "sinfo", "ai")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (GOLDEN / "sinfo_ai.txt").read_text(encoding="utf-8")


def test_sinfo_of_a_slurm_conf_file(tmp_path, capsys):
    """`slurmlab sinfo PATH` reads a slurm.conf file."""
    conf = tmp_path / "slurm.conf"
    conf.write_text("NodeName=n[1-2] CPUs=4\nPartitionName=p Nodes=ALL Default=YES MaxTime=60\n")
    assert main(["sinfo", str(conf)]) == 0
    assert capsys.readouterr().out.splitlines()[1].split() == [
        "p*",
        "up",
        "1:00:00",
        "2",
        "idle",
        "n[1-2]",
    ]


def test_bad_input_is_a_short_error(tmp_path, capsys):
    """A bad slurm.conf gives a one-line error and exit status 1, not a traceback."""
    conf = tmp_path / "slurm.conf"
    conf.write_text("NodeName=n1 CPUs=many\n")
    assert main(["sinfo", str(conf)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("slurmlab: error: ") and "line 1" in err and "CPUs" in err


# -- slurmlab simulate: bad input is one clear error line, never a traceback ---------------------
SWF_HEADER = "; MaxProcs: 8\n"
SWF_JOB = "1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n"
SCENARIO = "cluster: tiny\npolicy: fifo\njobs:\n  - {id: a, submit: 0, runtime: 60, args: '-n 1'}\n"


def simulate_cli(capsys, *argv: str) -> tuple[int, str, str]:
    """Run ``slurmlab simulate ARGV --quiet`` in process: (exit status, stdout, stderr)."""
    try:
        code = main(["simulate", *argv, "--quiet"])
    except SystemExit as exc:  # argparse's usage errors
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def error_line(err: str) -> str:
    assert err.startswith("slurmlab: error: ") and err.count("\n") == 1, err
    return err


def make_input(tmp_path, kind: str):
    """The bad inputs of the table below, made in tmp_path."""
    if kind == "folder":
        (tmp_path / "adir").mkdir()
        return tmp_path / "adir"
    if kind == "folder.swf":
        (tmp_path / "dir.swf").mkdir()
        return tmp_path / "dir.swf"
    if kind == "gzip named .gz":  # (not an SWF trace: a gzipped one is read by its content)
        path = tmp_path / "t.gz"
        path.write_bytes(gzip.compress(b"hello: world\n"))
        return path
    if kind == "bzip2 named .swf.bz2":
        path = tmp_path / "x.swf.bz2"
        path.write_bytes(bz2.compress((SWF_HEADER + SWF_JOB).encode()))
        return path
    if kind == "truncated .swf.gz":
        path = tmp_path / "trunc.swf.gz"
        path.write_bytes(gzip.compress((SWF_HEADER + SWF_JOB).encode())[:20])
        return path
    if kind == "nan submit":
        path = tmp_path / "nan.swf"
        path.write_text(SWF_HEADER + SWF_JOB.replace("1 0 -1", "1 nan -1", 1))
        return path
    raise AssertionError(kind)


BAD_INPUTS = [
    ("folder", "input '{path}' is a directory; give a scenario (.yaml, .yml, .json) or an SWF"),
    ("folder.swf", "input '{path}' is a directory"),
    ("gzip named .gz", "input '{path}' is neither a scenario nor an SWF trace (it is gzip-"),
    (
        "bzip2 named .swf.bz2",
        "input '{path}' is neither a scenario nor an SWF trace (it is bzip2-compressed: "
        "decompress it first (bunzip2 FILE)",
    ),
    ("truncated .swf.gz", "SWF file '{path}': cannot read its gzip data"),
    ("nan submit", "{path}: line 2: field 'submit' is 'nan', not a finite number"),
]


@pytest.mark.parametrize(("kind", "message"), BAD_INPUTS, ids=[k for k, _ in BAD_INPUTS])
def test_simulate_rejects_bad_inputs_naming_the_file(tmp_path, capsys, kind, message):
    path = make_input(tmp_path, kind)
    code, out, err = simulate_cli(capsys, str(path))
    assert code == 1 and out == ""
    assert message.format(path=path) in error_line(err)


def test_simulate_reads_a_scenario_whatever_its_extension(tmp_path, capsys):
    """Any input not named .swf/.swf.gz is read as a scenario, as before: plain text works."""
    path = tmp_path / "course.txt"
    path.write_text(SCENARIO)
    code, out, err = simulate_cli(capsys, str(path), "--json")
    assert (code, err) == (0, "") and json.loads(out)["jobs"] == 1


@pytest.mark.parametrize("value", ["0", "-4", "many"])
def test_procs_must_be_at_least_one(tmp_path, capsys, value):
    """--procs 0 used to mean MaxProcs, and --procs -4 a machine of -4 processors."""
    path = tmp_path / "t.swf"
    path.write_text(SWF_HEADER + SWF_JOB)
    code, out, err = simulate_cli(capsys, str(path), f"--procs={value}")
    assert code == 2
    assert f"argument --procs: {value!r} is not a machine size" in err


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--procs", "8"], "--procs applies to SWF traces only, and '{path}' is a scenario"),
        (["--skip-invalid"], "--skip-invalid applies to SWF traces only, and '{path}' is a scen"),
    ],
)
def test_swf_options_with_a_scenario_are_an_error(tmp_path, capsys, options, message):
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO)
    code, _, err = simulate_cli(capsys, str(path), *options)
    assert code == 1 and message.format(path=path) in error_line(err)


def test_procs_and_cluster_together_are_an_error(tmp_path, capsys):
    path = tmp_path / "t.swf"
    path.write_text(SWF_HEADER + SWF_JOB)
    code, _, err = simulate_cli(capsys, str(path), "--procs", "8", "--cluster", "tiny")
    assert code == 1 and "give --procs 8 (a pool" in error_line(err)


def test_cluster_decides_which_swf_jobs_are_too_wide(tmp_path, capsys):
    """--cluster tiny (64 CPUs): a 500-processor job is an error naming file, line and job,
    or with --skip-invalid is dropped and counted, whatever the trace's MaxProcs says."""
    path = tmp_path / "big.swf"
    wide = "2 0 -1 100 500 -1 -1 500 200 -1 1 1 1 -1 -1 -1 -1 -1\n"
    path.write_text("; MaxProcs: 1000\n" + SWF_JOB + wide)
    code, _, err = simulate_cli(capsys, str(path), "--cluster", "tiny")
    assert code == 1
    assert f"{path}: line 3: job 2 asks for 500 processors, which cluster 'tiny'" in error_line(err)
    code, out, err = simulate_cli(
        capsys, str(path), "--cluster", "tiny", "--skip-invalid", "--json"
    )
    assert code == 0 and json.loads(out)["jobs"] == 1
    assert "dropped 1 job wider than cluster 'tiny'" in err


# -- --jobs-out: checked before the simulation, and every write error is one clear line ----------
@pytest.fixture
def no_simulation(monkeypatch):
    """Fail the test if the simulation starts (the path must be checked before)."""
    import slurmlab.sim.simulate

    def refuse(*args, **kwargs):
        raise AssertionError("simulated before checking --jobs-out")

    monkeypatch.setattr(slurmlab.sim.simulate, "simulate", refuse)


def test_jobs_out_in_a_missing_folder_is_an_error_before_simulating(
    tmp_path, capsys, no_simulation
):
    path = tmp_path / "t.swf"
    path.write_text(SWF_HEADER + SWF_JOB)
    out = tmp_path / "nodir" / "x.csv"
    code, _, err = simulate_cli(capsys, str(path), "--jobs-out", str(out))
    assert code == 1
    assert f"--jobs-out '{out}': folder '{out.parent}' does not exist; create it" in error_line(err)


def test_jobs_out_that_is_a_folder_is_an_error_before_simulating(tmp_path, capsys, no_simulation):
    path = tmp_path / "t.swf"
    path.write_text(SWF_HEADER + SWF_JOB)
    code, _, err = simulate_cli(capsys, str(path), "--jobs-out", str(tmp_path))
    assert code == 1 and f"--jobs-out '{tmp_path}' is a directory" in error_line(err)


def test_jobs_out_that_cannot_be_written_is_an_error_before_simulating(
    tmp_path, capsys, monkeypatch, no_simulation
):
    """A read-only place (as root, only trying says so): the error names the path."""
    import slurmlab.paths

    def read_only(file, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(file))

    monkeypatch.setattr(slurmlab.paths, "open", read_only, raising=False)
    path = tmp_path / "t.swf"
    path.write_text(SWF_HEADER + SWF_JOB)
    out = tmp_path / "x.csv"
    code, _, err = simulate_cli(capsys, str(path), "--jobs-out", str(out))
    assert code == 1
    assert f"--jobs-out '{out}': cannot write it (Permission denied)" in error_line(err)
    assert not out.exists()


def test_jobs_out_probe_leaves_no_file_behind_on_error(tmp_path, capsys):
    """The writability check does not leave an empty CSV when the input then fails."""
    path = tmp_path / "bad.swf"
    path.write_text(SWF_HEADER + SWF_JOB.replace("1 0 -1", "1 -1 -1", 1))
    out = tmp_path / "x.csv"
    code, _, err = simulate_cli(capsys, str(path), "--jobs-out", str(out))
    assert code == 1 and "field 'submit' is -1" in error_line(err)
    assert not out.exists()


def test_a_write_error_after_simulating_is_one_clear_line(tmp_path, capsys, monkeypatch):
    import pandas as pd

    def disk_full(self, path, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_csv", disk_full)
    path = tmp_path / "t.swf"
    path.write_text(SWF_HEADER + SWF_JOB)
    out = tmp_path / "x.csv"
    code, _, err = simulate_cli(capsys, str(path), "--jobs-out", str(out))
    assert code == 1
    assert f"--jobs-out '{out}': cannot write it ([Errno 28] No space left" in error_line(err)


# -- zero jobs: a warning, and --json stays strict JSON ------------------------------------------
def strict_json(text: str) -> dict:
    def no_nan(name):
        raise AssertionError(f"{name} is not JSON")

    return json.loads(text, parse_constant=no_nan)


@pytest.mark.parametrize(
    "text",
    ["", SWF_HEADER, SWF_HEADER + SWF_JOB.replace(" 100 4 ", " -1 4 ", 1)],
    ids=["empty", "header only", "every job dropped"],
)
def test_a_trace_without_jobs_warns_and_prints_valid_json(tmp_path, capsys, text):
    path = tmp_path / "t.swf"
    path.write_text(text)
    code, out, err = simulate_cli(capsys, str(path), "--json")
    assert code == 0
    assert f"slurmlab: warning: {path}: no jobs to simulate" in err
    assert strict_json(out)["jobs"] == 0


def test_json_writes_undefined_numbers_as_null():
    """JSON has no NaN: a metric that is NaN or infinite is printed as null."""
    from slurmlab.commands_sim import _json_ready

    metrics = {"jobs": 0, "mean_wait_s": float("nan"), "states": {"x": float("inf")}}
    assert json.dumps(_json_ready(metrics), allow_nan=False) == (
        '{"jobs": 0, "mean_wait_s": null, "states": {"x": null}}'
    )


# -- scenario ids and sbatch's JobIDs ----------------------------------------------------------
def test_an_id_that_is_another_jobs_jobid_is_an_error(tmp_path, capsys):
    """A job without an id is known by its JobID (1, 2, ... in submit order, as sbatch numbers
    them): ``id: 1`` on another job would give two jobs JobID 1 in the job table."""
    path = tmp_path / "s2.yaml"
    path.write_text(
        "cluster: tiny\njobs:\n"
        "  - {submit: 0, runtime: 100, args: '-n 1 -t 10'}\n"
        "  - {id: 1, submit: 5, runtime: 100, args: '-n 2 -t 10'}\n"
    )
    code, _, err = simulate_cli(capsys, str(path))
    assert code == 1
    assert (
        f"{path} line 4: jobs[1] (id '1'): field 'id': '1' is also the JobID of jobs[0], which "
        "has no id" in error_line(err)
    )


@pytest.mark.parametrize(
    ("jobs", "collides"),
    [
        ([{}, {"id": "1"}], True),
        ([{"submit": 9}, {"id": "2", "submit": 0}, {"submit": 1}], True),  # jobs[2]: JobID 2
        ([{"submit": 9}, {"id": "2", "submit": 5}, {"submit": 1}], False),  # it is JobID 2
        ([{"args": "--array=0-2"}, {"id": "1_2", "submit": 1}], True),  # an array task's id
        ([{"args": "--array=0-2"}, {"id": "2", "submit": 1}], False),  # tasks are 1_0..1_2
        ([{"id": "1"}, {"submit": 1}], False),  # the id-less job is JobID 2
        ([{"id": "a"}, {}], False),
    ],
)
def test_which_numeric_ids_collide_with_jobids(jobs, collides):
    from slurmlab.errors import ScenarioError
    from slurmlab.scenario import Scenario

    doc = {"cluster": "tiny", "jobs": [{"runtime": 10, "args": "-n 1"} | j for j in jobs]}
    if collides:
        with pytest.raises(ScenarioError, match="is also the JobID of jobs"):
            Scenario.from_dict(doc)
    else:
        keys = list(Scenario.from_dict(doc).run().jobs["JobID"])
        assert len(set(keys)) == len(keys)


# -- files of the wrong kind: one clear error line, never a traceback ---------------------------
def test_sinfo_and_summary_of_the_wrong_kind_of_file(tmp_path, capsys):
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00" + b"\xd0\x00" * 40)
    assert main(["sinfo", str(binary)]) == 1  # (a .yaml: read as a scenario, whose cluster)
    assert "binary.yaml' is not UTF-8 text" in error_line(capsys.readouterr().err)
    binconf = tmp_path / "binary.conf"
    binconf.write_bytes(binary.read_bytes())
    assert main(["sinfo", str(binconf)]) == 1
    assert "is not a slurm.conf file: not UTF-8 text" in error_line(capsys.readouterr().err)
    conf = tmp_path / "slurm.conf"
    conf.write_text("NodeName=n1 CPUs=2 Gres=gpu:2\nPartitionName=p Nodes=ALL\n")
    assert main(["sinfo", str(conf), "--gres-conf", str(tmp_path / "missing.conf")]) == 1
    assert "missing.conf: gres.conf file does not exist" in error_line(capsys.readouterr().err)
    (tmp_path / "adir").mkdir()
    assert main(["summary", str(tmp_path / "adir")]) == 1
    assert "adir: is a directory, not a sacct export" in error_line(capsys.readouterr().err)
    assert main(["summary", str(binary)]) == 1
    assert "is not text (it starts b'\\x7fELF" in error_line(capsys.readouterr().err)


# -- --cluster replaces a scenario's cluster: the scenario's own checks, with file and line -----
BACKFILL_BASICS = Path(__file__).resolve().parents[1] / "course/scenarios/backfill-basics.yaml"


def test_cluster_override_names_the_scenario_file_and_entry(capsys):
    """backfill-basics drains node4, which the ai preset lacks: the error names the file, the
    line and actions[0] (it used to be a bare "Invalid node name specified: 'node4'")."""
    code, out, err = simulate_cli(capsys, str(BACKFILL_BASICS), "--cluster", "ai")
    assert code == 1 and out == ""
    assert (
        f"{BACKFILL_BASICS} line 15: actions[0]: field 'node': 'node4' is not in the cluster "
        "(it has cpu[01-08],gpu[001-032]) (checked against cluster 'ai', which replaces the "
        "scenario's)" in error_line(err)
    )


def test_cluster_override_checks_jobs_and_reservations_with_their_lines(tmp_path, capsys):
    """A job the other cluster cannot run, a reservation of its nodes: each named by line."""
    path = tmp_path / "gpus.yaml"
    path.write_text(
        "cluster: ai\njobs:\n"
        "  - {id: small, runtime: 10, args: '-n 1 -p cpu'}\n"
        "  - {id: wide, runtime: 10, args: '-N 8 --gres=gpu:8 -t 1:00:00'}\n"
    )
    code, _, err = simulate_cli(capsys, str(path), "--cluster", "tiny")
    assert code == 1
    line = error_line(err)
    assert f"{path} line 3: jobs[0] (id 'small'): field 'args'" in line
    assert "(checked against cluster 'tiny'" in line
    path.write_text(
        "cluster: ai\njobs:\n  - {runtime: 10, args: '-n 1'}\n"
        "reservations:\n  - {name: r, start: 0, duration: 60, nodes: [gpu001], users: [alice]}\n"
    )
    code, _, err = simulate_cli(capsys, str(path), "--cluster", "tiny")
    assert code == 1 and f"{path} line 5: reservations[0]: nodes ['gpu001']" in error_line(err)


def test_cluster_override_that_fits_runs_on_the_new_cluster(tmp_path):
    from slurmlab import Cluster
    from slurmlab.scenario import Scenario

    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO)
    scenario = Scenario.load(path)
    moved = scenario.with_cluster("teaching")
    assert moved.cluster == Cluster.preset("teaching") and moved.workload == scenario.workload
    assert set(moved.run().jobs["NodeList"]) <= {n.name for n in moved.cluster.nodes}


def test_duplicates_without_jobs_out_is_an_error(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO)
    code, out, err = simulate_cli(capsys, str(path), "--duplicates")
    assert code == 1 and out == ""
    assert "--duplicates applies to --jobs-out" in error_line(err)
    csv = tmp_path / "runs.csv"
    code, _, err = simulate_cli(capsys, str(path), "--duplicates", "--jobs-out", str(csv))
    assert (code, err) == (0, "") and csv.exists()


def test_report_says_where_it_writes(tmp_path, capsys, monkeypatch):
    """Without -o the report is ./report.html: --help says so, and the path is printed."""
    with contextlib.suppress(SystemExit):
        main(["report", "--help"])
    assert "default: report.html in the current folder" in " ".join(capsys.readouterr().out.split())
    export = tmp_path / "export.psv"
    export.write_text("JobID|State|Start|End|Elapsed|NCPUS\n1|COMPLETED|2024-01-01T00:00:00|"
                      "2024-01-01T01:00:00|01:00:00|4\n")  # fmt: skip
    monkeypatch.chdir(tmp_path)
    assert main(["report", str(export)]) == 0
    assert capsys.readouterr().out == f"wrote {tmp_path / 'report.html'}\n"
    assert (tmp_path / "report.html").exists()


def test_simulate_until_stops_at_a_time(capsys):
    assert main(["simulate", str(BACKFILL_BASICS), "--until", "30m", "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["makespan_s"] == 1800 and out["states"].get("PENDING", 0) >= 1
    assert main(["simulate", str(BACKFILL_BASICS), "--until", "soon", "--quiet"]) == 1
    assert "invalid until 'soon'" in capsys.readouterr().err
