"""Review stop 28, the command line in shell pipelines and CI: exit statuses (0 done, 1 a bad
input, 2 a usage error, 130 Ctrl-C, 141 a closed stdout), an SWF trace known by its content,
inputs of another command named as what they are, and the JSON keys documented."""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from slurmlab import commands_sim
from slurmlab.analysis.summary import Summary
from slurmlab.cli import main
from slurmlab.commands_sacct import SUMMARY_JSON_KEYS
from slurmlab.commands_sim import SIMULATE_JSON_KEYS

ROOT = Path(__file__).resolve().parents[1]
SYNTHETIC = ROOT / "datasets" / "synthetic" / "sacct-synthetic.psv"
BACKFILL = ROOT / "course" / "scenarios" / "backfill-basics.yaml"
SACCT_JSON = ROOT / "datasets" / "realslurm" / "backfill" / "sacct.json"
SCRIPT = Path(sys.executable).with_name("slurmlab")

#: A small SWF trace: its header, then three jobs of 4 processors (18 fields each).
SWF = (
    "; Version: 2.2\n; MaxProcs: 8\n"
    "1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n"
    "2 10 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n"
    "3 20 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n"
)
#: One job of 16 processors on an 8-processor machine, at line 3.
SWF_WIDE = "; Version: 2.2\n; MaxProcs: 8\n1 0 -1 100 16 -1 -1 16 200 -1 1 1 1 -1 -1 -1 -1 -1\n"


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    """``slurmlab ARGV`` in process: (exit status, stdout, stderr)."""
    try:
        code = main(list(argv))
    except SystemExit as exc:  # (argparse: --help, usage errors)
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def run(*argv: str, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    """The installed ``slurmlab`` script, as a shell runs it."""
    assert SCRIPT.exists(), "install the package (make test does) to get the slurmlab script"
    return subprocess.run(
        [str(SCRIPT), *argv],
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=300,
        check=False,
        **kw,
    )


# -- 1. a closed stdout: quiet, exit 141, whatever the buffering ---------------------------------
@pytest.mark.parametrize("unbuffered", ["1", ""], ids=["PYTHONUNBUFFERED=1", "buffered"])
@pytest.mark.parametrize(
    "argv",
    [("sinfo", "ai"), ("summary", str(SYNTHETIC), "--json"), ("--help",), ("--version",)],
    ids=["sinfo", "summary --json", "--help", "--version"],
)
def test_a_closed_stdout_exits_141_without_a_word(unbuffered, argv):
    """`slurmlab ... | head` when head has exited: as a command killed by SIGPIPE (128 + 13),
    no "Broken pipe" error and no "Exception ignored" from Python's exit."""
    read, write = os.pipe()
    os.close(read)  # (the reader is gone before slurmlab writes: deterministic)
    try:
        proc = subprocess.run(
            [str(SCRIPT), *argv],
            stdout=write,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": unbuffered},
            timeout=300,
            check=False,
        )
    finally:
        os.close(write)
    assert (proc.returncode, proc.stderr) == (141, b"")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
@pytest.mark.parametrize("unbuffered", ["1", ""], ids=["PYTHONUNBUFFERED=1", "buffered"])
def test_a_full_stdout_is_one_error_line(unbuffered):
    with open("/dev/full", "wb") as full:
        proc = subprocess.run(
            [str(SCRIPT), "summary", str(SYNTHETIC), "--json"],
            stdout=full,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": unbuffered},
            timeout=300,
            check=False,
        )
    assert (proc.returncode, proc.stderr.decode()) == (
        1,
        "slurmlab: error: cannot write the output to stdout (No space left on device)\n",
    )


# -- 2. an SWF trace by its content ------------------------------------------------------------
@pytest.mark.parametrize("name", ["trace.txt", "trace", "trace.gz"])
def test_an_swf_trace_not_named_swf_is_read_as_one(tmp_path, capsys, name):
    path = tmp_path / name
    data = SWF.encode()
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    code, out, err = cli(capsys, "simulate", str(path), "--json", "--quiet")
    assert (code, err) == (0, "")
    assert (json.loads(out)["jobs"], json.loads(out)["procs"]) == (3, 8)


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzipped"])
def test_an_swf_trace_from_a_pipe_is_read_as_one(compress):
    """`slurmlab simulate <(zcat trace.swf.gz | head -500)`: a pipe can be read once only."""
    data = gzip.compress(SWF.encode()) if compress else SWF.encode()
    proc = run("simulate", "/dev/stdin", "--json", input=data)
    assert (proc.returncode, proc.stderr) == (0, b"")
    assert json.loads(proc.stdout)["jobs"] == 3


def test_errors_about_a_piped_trace_name_the_input_as_given():
    proc = run("simulate", "/dev/stdin", "--json", input=SWF_WIDE.encode())
    assert (proc.returncode, proc.stdout) == (1, b"")
    assert proc.stderr.decode() == (
        "slurmlab: error: /dev/stdin: line 3: job 1 asks for 16 processors but the machine has "
        "8; pass --skip-invalid to drop such jobs, or --procs N to enlarge the machine\n"
    )


def test_a_scenario_from_a_pipe_is_read_as_one():
    proc = run("simulate", "/dev/stdin", "--json", input=BACKFILL.read_bytes())
    assert (proc.returncode, proc.stderr) == (0, b"")
    assert json.loads(proc.stdout)["jobs"] == 5


def test_a_gzipped_file_that_is_no_trace_says_how_to_read_a_trace(tmp_path, capsys):
    path = tmp_path / "t.gz"
    path.write_bytes(gzip.compress(b"hello: world\n"))
    code, out, err = cli(capsys, "simulate", str(path))
    assert (code, out) == (1, "")
    assert err == (
        f"slurmlab: error: input '{path}' is neither a scenario nor an SWF trace (it is "
        "gzip-compressed, and its text is neither an SWF trace (';' comment lines, records of "
        "numbers) nor a sacct export; if it is a gzipped SWF trace, name it NAME.swf.gz to "
        "read it as one); slurmlab simulate reads a scenario (.yaml, .yml, .json) or an SWF "
        "trace (.swf, .swf.gz, or by its content)\n"
    )


# -- 3, 4, 7. exit statuses --------------------------------------------------------------------
def test_exit_statuses_tell_a_usage_error_from_a_bad_input(tmp_path, capsys):
    assert cli(capsys, "simulate", str(BACKFILL), "--policy", "nope")[0] == 2  # argparse
    assert cli(capsys, "summary")[0] == 2  # a missing argument
    assert cli(capsys, "nosuchcommand")[0] == 2
    code, out, err = cli(capsys, "summary", str(tmp_path / "missing.psv"))
    assert (code, out) == (1, "") and err.startswith("slurmlab: error: ")
    assert cli(capsys, "sinfo", "nope")[0] == 1
    bad = tmp_path / "bad.psv"
    bad.write_text("JobID|State|Elapsed\nx y|COMPLETED|01:00:00\n")
    assert cli(capsys, "summary", str(bad))[0] == 1


def test_the_help_lists_the_exit_statuses(capsys):
    code, out, _ = cli(capsys, "--help")
    assert code == 0
    assert out.split("exit status:\n", 1)[1] == (
        "  0    done\n"
        "  1    an input could not be used: a file missing, unreadable or malformed, a value\n"
        '       out of range, an output that cannot be written (one "slurmlab: error:" line\n'
        "       names it and the fix)\n"
        "  2    a usage error: no command, an unknown command or option, a missing argument,\n"
        "       an option value argparse refuses (it prints the usage)\n"
        '  130  interrupted (Ctrl-C): one line, "slurmlab: interrupted"\n'
        "  141  stdout was closed before the output was written (slurmlab ... | head): no\n"
        "       message, as for a command killed by SIGPIPE (128 + 13)\n"
    )


def test_no_command_is_a_usage_error_on_stderr(capsys):
    """`slurmlab $CMD file` with $CMD empty must not succeed."""
    code, out, err = cli(capsys)
    assert (code, out) == (2, "")
    assert err == (
        "usage: slurmlab [-h] [--version] COMMAND ...\n"
        "slurmlab: error: give a command: sinfo, simulate, summary, report or anonymize "
        "(slurmlab --help describes them)\n"
    )


def test_ctrl_c_is_one_line_and_exit_130(monkeypatch, capsys):
    import slurmlab.records.sacct

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(slurmlab.records.sacct, "read_sacct", interrupted)
    assert cli(capsys, "summary", str(SYNTHETIC)) == (130, "", "slurmlab: interrupted\n")


def test_a_real_sigint_gives_no_traceback():
    """SIGINT delivered while the command works (raised by the command in its own thread,
    so the test waits for nothing; os.kill could land on another thread, pyarrow's, and be
    handled only after the next line ran): exit 130, one line."""
    code = (
        "import signal, slurmlab.records.sacct as s\n"
        "def read(*a, **k):\n"
        "    signal.raise_signal(signal.SIGINT)\n"
        "    raise AssertionError('SIGINT was not delivered')\n"
        "s.read_sacct = read\n"
        "from slurmlab.cli import main\n"
        f"raise SystemExit(main(['summary', {str(SYNTHETIC)!r}]))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        128 + signal.SIGINT,
        "",
        "slurmlab: interrupted\n",
    )


# -- 5, 8. an input of another command, named as what it is ------------------------------------
@pytest.mark.parametrize("extra", [(), ("--delimiter", ","), ("--errors", "warn")])
def test_a_jobs_out_csv_given_to_summary_says_to_write_sacct_out(tmp_path, capsys, extra):
    csv = tmp_path / "jobs.csv"
    assert cli(capsys, "simulate", str(BACKFILL), "--jobs-out", str(csv), "--quiet")[0] == 0
    code, out, err = cli(capsys, "summary", str(csv), "--json", *extra)
    assert (code, out) == (1, "")
    assert err == (
        f"slurmlab: error: {csv}: is the job table `slurmlab simulate --jobs-out` writes (CSV, "
        "times in seconds from the simulation's start), not a sacct export, which slurmlab "
        "summary reads; write one with `slurmlab simulate SCENARIO --sacct-out jobs.psv` "
        "(dates from the scenario's origin) and give slurmlab summary that, or read the CSV "
        "with pandas (pd.read_csv)\n"
    )


def test_a_sacct_json_export_given_to_simulate_points_to_summary(tmp_path, capsys):
    export = tmp_path / "export.json"
    export.write_bytes(SACCT_JSON.read_bytes())
    code, out, err = cli(capsys, "simulate", str(export))
    assert (code, out) == (1, "")
    assert err == (
        f"slurmlab: error: input '{export}' is a sacct --json export (top-level 'meta' and "
        "'jobs'), not a scenario; slurmlab simulate reads a scenario (.yaml, .yml, .json) or "
        "an SWF trace (.swf, .swf.gz, or by its content): analyse an export with `slurmlab "
        f"summary {export}` or `slurmlab report {export}`\n"
    )


@pytest.mark.parametrize("command", ["summary", "report"])
def test_a_json_scenario_given_to_summary_or_report_says_to_simulate_it(tmp_path, capsys, command):
    import yaml

    scenario = tmp_path / "scen.json"
    scenario.write_text(json.dumps(yaml.safe_load(BACKFILL.read_text())))
    extra = ["-o", str(tmp_path / "r.html")] if command == "report" else []
    code, out, err = cli(capsys, command, str(scenario), "--errors", "warn", *extra)
    assert (code, out) == (1, "")
    assert err == (
        f"slurmlab: error: {scenario}: is a scenario file (JSON with a 'cluster' and a "
        "'policy' section), not a sacct export; simulate it into one first: slurmlab "
        f"simulate {scenario} --sacct-out jobs.psv, and give slurmlab {command} jobs.psv\n"
    )
    assert not (tmp_path / "r.html").exists()


# -- 6. stdout that cannot encode a name ---------------------------------------------------------
def test_summary_json_in_an_ascii_locale_escapes_instead_of_crashing(tmp_path):
    export = tmp_path / "uni.psv"
    export.write_text(
        "JobID|User|Account|State|Submit|Start|End|Elapsed|NCPUS|AllocTRES\n"
        "1|josé|ml|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T01:00:10|"
        "01:00:00|4|cpu=4,gres/gpu=1,node=1\n",
        encoding="utf-8",
    )
    ascii_out = run("summary", str(export), "--json", env={"PYTHONIOENCODING": "ascii"})
    assert (ascii_out.returncode, ascii_out.stderr) == (0, b"")
    assert b'"jos\\u00e9": 1.0' in ascii_out.stdout
    utf8_out = run("summary", str(export), "--json", env={"PYTHONIOENCODING": "utf-8"})
    assert '"josé": 1.0' in utf8_out.stdout.decode("utf-8")
    assert json.loads(ascii_out.stdout) == json.loads(utf8_out.stdout)


# -- 9. --gres-conf with a preset -------------------------------------------------------------
def test_sinfo_of_a_preset_refuses_a_gres_conf(capsys):
    assert cli(capsys, "sinfo", "ai", "--gres-conf", "does-not-exist.conf") == (
        1,
        "",
        "slurmlab: error: --gres-conf applies to a slurm.conf; 'ai' is a preset, whose GPUs "
        "are part of it: leave --gres-conf does-not-exist.conf out, or give the slurm.conf "
        "that gres.conf goes with\n",
    )


# -- 10. smaller messages --------------------------------------------------------------------
@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_sacct_out_on_a_full_disk_names_the_flag_and_file(capsys):
    assert cli(capsys, "simulate", str(BACKFILL), "--sacct-out", "/dev/full", "--quiet") == (
        1,
        "",
        "slurmlab: error: --sacct-out '/dev/full': cannot write it (No space left on device); "
        "choose another path\n",
    )


def test_an_unreadable_scenario_names_the_file_and_the_permission(tmp_path, monkeypatch, capsys):
    scenario = tmp_path / "unread.yaml"
    scenario.write_text(BACKFILL.read_text())

    def denied(path, *args, **kwargs):  # (root reads a chmod 000 file: refuse it here)
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(commands_sim, "open", denied, raising=False)
    assert cli(capsys, "simulate", str(scenario)) == (
        1,
        "",
        f"slurmlab: error: input '{scenario}' cannot be read (Permission denied); check its "
        "permissions\n",
    )


def test_simulate_messages_use_the_flags_not_python_keywords(tmp_path, capsys):
    trace = tmp_path / "t.swf"
    trace.write_text(SWF_WIDE)
    assert cli(capsys, "simulate", str(trace), "--quiet") == (
        1,
        "",
        f"slurmlab: error: {trace}: line 3: job 1 asks for 16 processors but the machine has "
        "8; pass --skip-invalid to drop such jobs, or --procs N to enlarge the machine\n",
    )


def test_until_before_the_first_submit_says_so(tmp_path, capsys):
    trace = tmp_path / "t.swf"
    trace.write_text(SWF.replace("1 0 -1", "1 5 -1", 1))  # (the first job at 5 s)
    code, out, err = cli(capsys, "simulate", str(trace), "--until", "0", "--json", "--quiet")
    assert (code, json.loads(out)["jobs"]) == (0, 0)
    assert err == (
        f"slurmlab: warning: {trace}: no job is submitted before --until 0: the first of its 3 "
        "jobs is submitted at 5 s (jobs not submitted by then are left out); waits and "
        "slowdown below are undefined (n/a; null in --json), utilization and makespan 0\n"
    )


def test_errors_coerce_says_how_many_rows_it_kept(tmp_path, capsys):
    export = tmp_path / "x.psv"
    export.write_text(
        "JobID|State|Elapsed\n1|COMPLETED|01:00:00\n2|COMPLETED|soon\n3|COMPLETED|later\n"
    )
    code, out, err = cli(capsys, "summary", str(export), "--json", "--errors", "coerce")
    assert (code, json.loads(out)["bad_rows"]) == (0, 2)
    assert err.splitlines()[0] == (
        f"slurmlab: warning: {export}: --errors coerce: kept 2 malformed row(s) with NA for "
        "the bad values, at line(s) 3, 4:"
    )
    assert "left out" not in err  # (every row was kept)


# -- 11. the JSON keys, documented -------------------------------------------------------------
def test_every_summary_json_key_is_documented(capsys):
    keys = [f.name for f in dataclasses.fields(Summary)]
    code, out, _ = cli(capsys, "summary", "--help")
    assert code == 0 and SUMMARY_JSON_KEYS.strip().splitlines()[0] in out
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for key in keys:
        assert key in SUMMARY_JSON_KEYS, key
        assert f"`{key}`" in readme or key == "unknown_hours", key


def test_every_simulate_json_key_is_documented(capsys):
    code, out, _ = cli(capsys, "simulate", str(BACKFILL), "--json", "--quiet")
    assert code == 0
    help_code, help_out, _ = cli(capsys, "simulate", "--help")
    assert help_code == 0 and SIMULATE_JSON_KEYS.strip().splitlines()[0] in help_out
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for key in json.loads(out):
        assert key in SIMULATE_JSON_KEYS, key
        assert f"`{key}`" in readme, key


def test_text_output_that_stdout_cannot_encode_is_one_error_line(tmp_path):
    """A name the locale cannot show, in words (not --json): one line with the fix."""
    export = tmp_path / "uni.psv"
    export.write_text(
        "JobID|User|Account|State|Submit|Start|End|Elapsed|NCPUS|AllocTRES\n"
        "1|jo|mlé|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T01:00:10|"
        "01:00:00|4|cpu=4,gres/gpu=1,node=1\n",
        encoding="utf-8",
    )
    proc = run("summary", str(export), env={"PYTHONIOENCODING": "ascii"})
    assert (proc.returncode, proc.stdout) == (1, b"")
    assert proc.stderr.decode() == (
        "slurmlab: error: stdout's encoding (ascii) cannot write '\\xe9'; set "
        "PYTHONIOENCODING=utf-8 (or a UTF-8 locale, LANG=C.UTF-8), or use --json where the "
        "command has it\n"
    )


def test_until_and_cluster_are_named_as_flags(tmp_path, capsys):
    assert cli(capsys, "simulate", str(BACKFILL), "--until", "2020-01-01", "--quiet") == (
        1,
        "",
        "slurmlab: error: --until '2020-01-01' is before the simulation's start (2026-01-05 "
        "00:00:00): give a later time\n",
    )
    trace = tmp_path / "t.swf"
    trace.write_text(SWF)
    code, _, err = cli(capsys, "simulate", str(trace), "--policy", "slurm", "--json", "--quiet")
    assert code == 0
    assert err.endswith("a cluster of 'NodeName=n[1-N] CPUs=1' (--cluster)\n")
