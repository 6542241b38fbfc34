"""The slurmlab command line: --version, --help, and sinfo of a preset."""

import subprocess
import sys
from pathlib import Path

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


def test_no_arguments_prints_help(capsys):
    """`slurmlab` alone prints the help and succeeds."""
    assert main([]) == 0
    assert "usage: slurmlab" in capsys.readouterr().out


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
    """A bad slurm.conf gives a one-line error and exit status 2, not a traceback."""
    conf = tmp_path / "slurm.conf"
    conf.write_text("NodeName=n1 CPUs=many\n")
    assert main(["sinfo", str(conf)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("slurmlab: error: ") and "line 1" in err and "CPUs" in err
