"""slurmlab.paths: one rule, everywhere, for "an output never overwrites an input".

Two names are one file when ``os.path.samefile`` says so (a symlink, a hard link, ``./x``)
or, for an output not written yet, when they resolve to one path. The command line, the
anonymizer and the report all ask the same question, and a scenario lists the files it read
(``Scenario.sources``) so that ``simulate`` keeps them too.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from slurmlab.anonymize import anonymize_file
from slurmlab.cli import main
from slurmlab.errors import SlurmlabError
from slurmlab.paths import check_distinct, check_writable, same_file
from slurmlab.records.sacct import read_sacct
from slurmlab.report import write_report
from slurmlab.scenario import Scenario

EXPORT = (
    "JobID|JobIDRaw|State|Partition|Submit|Start|End|Elapsed|NNodes|NCPUS|NodeList|AllocTRES\n"
    "7|7|COMPLETED|main|2026-01-05T00:00:00|2026-01-05T00:00:00|2026-01-05T00:50:00|00:50:00|"
    "1|2|node1|billing=2,cpu=2,gres/gpu=1,mem=4000M,node=1\n"
)
CONF = (
    "GresTypes=gpu\nNodeName=n[1-2] CPUs=4 Gres=gpu:2\nPartitionName=main Nodes=ALL Default=YES\n"
)
GRES = "NodeName=n[1-2] Name=gpu Count=2\n"
JOBS = "jobs:\n  - {submit: 0, runtime: 5, args: '-N 1'}\n"


@pytest.fixture
def here(tmp_path, monkeypatch):
    """An empty current folder holding e.psv."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "e.psv").write_text(EXPORT)
    return tmp_path


def one_error(capsys, *args: str) -> str:
    """``slurmlab ARGS`` fails with exit code 1 and one error line: its text."""
    assert main(list(args)) == 1
    err = capsys.readouterr().err
    assert err.startswith("slurmlab: error: ") and err.count("\n") == 1, err
    return err[len("slurmlab: error: ") : -1]


# -- same_file ---------------------------------------------------------------------------------
def test_a_file_and_its_other_names_are_the_same_file(here):
    """./x, a symlink and a hard link all name x."""
    os.symlink("e.psv", "soft.psv")
    os.link("e.psv", "hard.psv")
    for other in ("e.psv", "./e.psv", str(here / "e.psv"), "soft.psv", "hard.psv"):
        assert same_file("e.psv", other), other


def test_two_files_with_the_same_content_are_not_the_same_file(here):
    (here / "copy.psv").write_text(EXPORT)
    assert not same_file("e.psv", "copy.psv")


def test_files_not_written_yet_are_compared_by_their_resolved_paths(here):
    """An output that does not exist yet is the same file as another name of that path."""
    assert same_file("new.csv", "./new.csv")
    assert same_file("new.csv", here / "sub" / ".." / "new.csv")
    assert not same_file("new.csv", "other.csv")
    assert not same_file("new.csv", "e.psv")  # (one exists, the other does not)


def test_a_symlink_to_a_file_not_written_yet_is_that_file(here):
    os.symlink("later.csv", "link.csv")
    assert same_file("link.csv", "later.csv")


def test_a_symlink_loop_is_not_an_error(here):
    os.symlink("b", "a")
    os.symlink("a", "b")
    assert same_file("a", "./a")
    assert not same_file("a", "b")


# -- check_distinct ----------------------------------------------------------------------------
def test_an_output_over_an_input_names_both_and_a_fix(here):
    with pytest.raises(SlurmlabError) as info:
        check_distinct([("the export", "e.psv")], [("-o", "./e.psv", "report.html")])
    assert str(info.value) == (
        "-o './e.psv' is the export 'e.psv' (the same file): writing it would destroy the "
        "export; give -o another name, e.g. -o report.html"
    )


def test_two_outputs_that_are_one_file_name_both_and_a_fix(here):
    os.link("e.psv", "hard.psv")
    with pytest.raises(SlurmlabError) as info:
        check_distinct([], [("-o", "e.psv", "a.psv"), ("--mapping", "hard.psv", "m.csv")])
    assert str(info.value) == (
        "-o 'e.psv' and --mapping 'hard.psv' are one file (the same file): one would "
        "overwrite the other; give each its own name, e.g. -o a.psv --mapping m.csv"
    )


def test_inputs_that_are_not_files_and_outputs_not_given_are_left_alone(here):
    """--cluster tiny names a preset, not a file; an output not asked for writes nothing."""
    check_distinct(
        [("the --cluster slurm.conf", "tiny"), ("the --capacity file", None)],
        [("--jobs-out", "tiny", "jobs.csv"), ("--sacct-out", None, "jobs.psv")],
    )


# -- check_writable ----------------------------------------------------------------------------
def test_check_writable_refuses_a_folder_and_a_missing_folder(here):
    with pytest.raises(SlurmlabError, match=r"^-o '.*' is a directory; give a file name"):
        check_writable(here, "-o", "report.html")
    with pytest.raises(SlurmlabError, match=r"folder 'nodir' does not exist; create it first"):
        check_writable(Path("nodir", "r.html"), "-o", "report.html")


def test_check_writable_tries_the_file_and_leaves_none_behind(here, monkeypatch):
    import slurmlab.paths

    def read_only(file, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(file))

    with monkeypatch.context() as m:
        m.setattr(slurmlab.paths, "open", read_only, raising=False)
        with pytest.raises(
            SlurmlabError, match=r"^-o 'r.html': cannot write it \(Permission denied"
        ):
            check_writable(Path("r.html"), "-o", "report.html")
    check_writable(here / "r.html", "-o", "report.html")
    assert not (here / "r.html").exists()


# -- the Python API asks the same question -----------------------------------------------------
def test_anonymize_file_refuses_a_mapping_that_is_a_hard_link_of_its_output(here):
    """It compared resolved paths only, and wrote the mapping over the anonymized copy."""
    (here / "a.psv").write_text("kept\n")
    os.link("a.psv", "m.csv")
    with pytest.raises(SlurmlabError, match=r"output and mapping_path are one file \('a.psv'\)"):
        anonymize_file("e.psv", "a.psv", mapping_path="m.csv")
    assert (here / "a.psv").read_text() == "kept\n"


def test_anonymize_file_refuses_an_output_that_is_a_hard_link_of_the_export(here):
    os.link("e.psv", "hard.psv")
    with pytest.raises(SlurmlabError, match=r"output='hard.psv' is the export being anonymized"):
        anonymize_file("e.psv", "hard.psv")
    assert (here / "e.psv").read_text() == EXPORT


def test_write_report_refuses_another_name_of_its_export(here):
    jobs = read_sacct("e.psv")
    os.link("e.psv", "hard.psv")
    for name in ("./e.psv", "hard.psv"):
        with pytest.raises(SlurmlabError, match=r"is the export the job table was read from"):
            write_report(jobs, name)
    assert (here / "e.psv").read_text() == EXPORT


# -- Scenario.sources --------------------------------------------------------------------------
@pytest.fixture
def confs(here):
    """sub/s.yaml naming its slurm.conf and gres.conf, which lie next to it."""
    sub = here / "sub"
    sub.mkdir()
    (sub / "my.conf").write_text(CONF)
    (sub / "gres.conf").write_text(GRES)
    (sub / "s.yaml").write_text("cluster: {slurm_conf: my.conf, gres_conf: gres.conf}\n" + JOBS)
    return sub


def test_a_scenario_lists_the_files_its_cluster_was_read_from(confs):
    """The slurm.conf, then the gres.conf: resolved, relative to the scenario file."""
    scenario = Scenario.load("sub/s.yaml")
    assert scenario.sources == ((confs / "my.conf").resolve(), (confs / "gres.conf").resolve())
    assert all(path.is_absolute() for path in scenario.sources)


def test_a_preset_or_an_inline_cluster_reads_no_other_file(here):
    assert Scenario.from_dict({"cluster": "tiny", "jobs": [{"runtime": 5}]}).sources == ()
    inline = {"nodes": [{"name": "n1", "cpus": 4}], "partitions": [{"name": "main"}]}
    assert Scenario.from_dict({"cluster": inline, "jobs": [{"runtime": 5}]}).sources == ()


def test_sources_survive_pickling_equality_and_with_cluster(confs):
    scenario = Scenario.load("sub/s.yaml")
    assert pickle.loads(pickle.dumps(scenario)) == scenario
    assert Scenario.load(confs / "s.yaml") == Scenario.load(confs / "s.yaml")
    assert scenario.with_cluster("tiny").sources == scenario.sources


# -- slurmlab simulate keeps them ----------------------------------------------------------------
def test_simulate_refuses_an_output_over_the_scenarios_gres_conf(confs, capsys):
    assert one_error(capsys, "simulate", "sub/s.yaml", "--sacct-out", "sub/gres.conf") == (
        "--sacct-out 'sub/gres.conf' is the scenario's cluster.gres_conf 'sub/gres.conf': "
        "writing it would destroy the scenario's cluster.gres_conf; give --sacct-out another "
        "name, e.g. --sacct-out jobs.psv"
    )
    assert (confs / "gres.conf").read_text() == GRES


def test_simulate_refuses_a_hard_link_of_the_scenarios_slurm_conf(confs, capsys):
    os.link(confs / "my.conf", "hard.conf")
    assert one_error(capsys, "simulate", "sub/s.yaml", "--jobs-out", "hard.conf").startswith(
        "--jobs-out 'hard.conf' is the scenario's cluster.slurm_conf 'sub/my.conf' (the same "
        "file): writing it would destroy"
    )
    assert (confs / "my.conf").read_text() == CONF
