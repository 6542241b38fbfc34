"""Stop 53's user-facing checks: what learners, instructors and platform teams type."""

from __future__ import annotations

import pandas as pd
import pytest

import slurmlab

SCRIPT = "#!/bin/bash\n#SBATCH -t 5\nsrun hostname\n"


def test_sbatch_magic_does_not_submit_to_a_deleted_lab(capsys):
    """%%sbatch submits to the notebook's current lab: once ``del lab`` ran, not to that lab
    (even while the Out history of a cell ending in ``lab.advance(...)`` holds it) but to the
    lab made before it, which is current again."""
    from IPython.testing.globalipapp import get_ipython

    ip = get_ipython()
    ip.run_line_magic("load_ext", "slurmlab")
    before = slurmlab.Lab("tiny")
    ip.run_cell("import slurmlab\nlab = slurmlab.Lab('tiny')\nlab.advance('1m')")
    deleted = ip.user_ns["lab"]
    ip.run_cell("del lab")
    capsys.readouterr()
    ip.run_cell_magic("sbatch", "", SCRIPT)
    assert "Submitted batch job 1" in capsys.readouterr().out
    assert deleted.squeue().empty
    assert before.squeue().JOBID.tolist() == ["1"]


def test_the_magics_name_the_fix_when_no_lab_is_in_use(capsys):
    """With every lab deleted, %squeue says there is no lab and how to make one."""
    from slurmlab.sim import lab as lab_module
    from slurmlab.sim.magics import squeue_magic

    kept = list(lab_module._LABS)
    try:
        lab_module._LABS.clear()
        squeue_magic("")
    finally:
        lab_module._LABS[:] = kept
    err = capsys.readouterr().err
    assert "no Lab in use" in err and "lab = slurmlab.Lab(cluster)" in err


def test_scenario_sections_starting_with_x_hold_anchors_jobs_merge(tmp_path):
    """A top-level section named x-... is the author's own (docker-compose's extension
    fields): slurmlab does not read it, and jobs merge its anchor with ``<<: *d``, their own
    keys winning; an error in a merged field names the line it was written on."""
    path = tmp_path / "s.yaml"
    path.write_text(
        "cluster: tiny\n"
        "x-defaults: &d\n"
        "  runtime: 600\n"
        "  user: alice\n"
        "  args: -N 1 -t 30\n"
        "jobs:\n"
        "  - {<<: *d, id: a, submit: 0}\n"
        "  - <<: *d\n"
        "    id: b\n"
        "    submit: 60\n"
        "    user: bob\n"
    )
    jobs = slurmlab.Scenario.load(path).run().jobs
    assert jobs.User.tolist() == ["alice", "bob"]
    assert (jobs.End - jobs.Start).dt.total_seconds().tolist() == [600, 600]
    path.write_text(
        "cluster: tiny\nx-defaults: &d\n  runtime: abc\njobs:\n  - {<<: *d, submit: 0}\n"
    )
    with pytest.raises(slurmlab.ScenarioError, match=r"line 3: jobs\[0\]: field 'runtime'"):
        slurmlab.Scenario.load(path)


def test_an_unknown_section_names_the_x_prefix_for_an_anchor_block(tmp_path):
    """``defaults: &d`` is an unknown section: the error says a section of one's own starts
    with x-."""
    path = tmp_path / "s.yaml"
    path.write_text("cluster: tiny\ndefaults: &d {runtime: 6}\njobs:\n  - {<<: *d, submit: 0}\n")
    with pytest.raises(slurmlab.ScenarioError, match=r"line 2: unknown section.*starts with x-"):
        slurmlab.Scenario.load(path)


def test_counts_of_one_are_singular_in_cli_and_summary_words(tmp_path, capsys):
    """One job is "1 job", one run "1 run", one bad row "1 bad row": slurmlab simulate's
    line, the summary's words and the report's source line say so."""
    from slurmlab.cli import main

    scenario = tmp_path / "one.yaml"
    scenario.write_text("cluster: tiny\njobs:\n  - {submit: 0, runtime: 60, args: -t 5}\n")
    export = tmp_path / "one.psv"
    assert main(["simulate", str(scenario), "--sacct-out", str(export)]) == 0
    assert "policy easy: 1 job, mean wait" in capsys.readouterr().out
    assert main(["summary", str(export)]) == 0
    assert capsys.readouterr().out.startswith("1 job (1 run, 0 steps) from ")
    report = tmp_path / "one.html"
    assert main(["report", str(export), "-o", str(report)]) == 0
    assert "; 1 run, 0 bad rows.</p>" in report.read_text()
    scenario.write_text("cluster: tiny\njobs:\n  - {submit: 100, runtime: 60, args: -t 5}\n")
    assert main(["simulate", str(scenario), "--until", "50"]) == 0
    assert "its one job is submitted at 100 s" in capsys.readouterr().err


def test_summary_of_a_scenario_file_says_to_simulate_it_first(tmp_path):
    """A scenario given where a sacct export goes is named a scenario, with the command that
    makes an export of it, even though its first line (``cluster: tiny``) splits on ': '."""
    path = tmp_path / "s.yaml"
    path.write_text("cluster: tiny\njobs: []\n")
    with pytest.raises(slurmlab.SlurmlabError, match=r"is a scenario file.*slurmlab simulate"):
        slurmlab.read_sacct(path)


def test_an_empty_scenario_file_is_named_empty(tmp_path):
    """A scenario file with nothing in it (or comments only) says so, with what to write."""
    path = tmp_path / "s.yaml"
    path.write_text("# to do\n\n")
    with pytest.raises(slurmlab.ScenarioError, match=r"s.yaml: holds no document .* cluster"):
        slurmlab.Scenario.load(path)


def test_sacct_reader_errors_say_one_field_and_one_line(tmp_path):
    """read_sacct's errors count in words that agree: a cut row "has 1 field", a one-line
    string given as a path "is text of 1 line"."""
    import io

    with pytest.raises(slurmlab.SlurmlabError, match="'12': has 1 field where the header has 3"):
        slurmlab.read_sacct(io.StringIO("JobID|State|Elapsed\n12\n"))
    with pytest.raises(slurmlab.SlurmlabError, match="most rows have 1 field but"):
        slurmlab.read_sacct(io.StringIO("JobID|State|Elapsed\n12\n13\n14|COMPLETED|00:01:00\n"))
    with pytest.raises(slurmlab.SlurmlabError, match="is text of 1 line "):
        slurmlab.read_sacct("JobID|State\n")


def test_swf_reader_error_says_one_field(tmp_path):
    """An SWF line holding one number "has 1 field", not "1 fields"."""
    path = tmp_path / "t.swf"
    path.write_text("; MaxProcs: 4\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n7\n")
    with pytest.raises(slurmlab.SlurmlabError, match=r"line 3: 1 field, SWF has 18"):
        slurmlab.read_swf(path)


def test_sinfo_without_a_cluster_is_a_usage_error(capsys):
    """``slurmlab sinfo`` with no cluster, or with it given twice, is a usage error (exit 2,
    with the usage), as slurmlab --help's exit statuses say of a missing argument."""
    from slurmlab.cli import main

    for argv in (["sinfo"], ["sinfo", "ai", "--cluster", "tiny"]):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith("usage: slurmlab sinfo") and "give the cluster" in err


def test_lab_times_of_two_parts_are_read_as_minutes_seconds_with_a_warning():
    """``lab.advance("1:30")`` and ``runtime="1:30"`` are M:S (90 s), as sbatch -t reads
    them, and say so, as a scenario's times do: a learner most likely meant 1 h 30 min."""
    lab = slurmlab.Lab("tiny")
    with pytest.warns(UserWarning, match=r"duration '1:30' is read as 1 min 30 s .* '1:30:00'"):
        lab.advance("1:30")
    assert lab.now == 90
    with pytest.warns(UserWarning, match=r"runtime '2:00' is read as 2 min \(M:S"):
        lab.sbatch("-t 5", runtime="2:00")
    lab.advance("1:00:00")
    assert lab.sacct().Elapsed.iloc[0] == pd.Timedelta(minutes=2)


def test_dash_is_no_stdout_or_stdin_and_no_file_named_dash_is_written(tmp_path, monkeypatch):
    """``--jobs-out -`` (the shell's stdout) is refused before the run, not written to a
    file named '-'; ``summary -`` and ``simulate -`` say '-' is no standard input here."""
    from slurmlab.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.yaml").write_text(
        "cluster: tiny\njobs:\n  - {submit: 0, runtime: 6, args: -t 1}\n"
    )
    for argv in (
        ["simulate", "s.yaml", "--jobs-out", "-"],
        ["simulate", "s.yaml", "--sacct-out", "-"],
    ):
        assert main(argv) == 1
        assert not (tmp_path / "-").exists()
    for argv in (["summary", "-"], ["simulate", "-"]):
        assert main(argv) == 1


def test_dash_errors_name_the_fix(tmp_path, monkeypatch, capsys):
    """The errors for '-' say what to give instead."""
    from slurmlab.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.yaml").write_text("cluster: tiny\njobs: []\n")
    main(["simulate", "s.yaml", "--jobs-out", "-"])
    assert "not to stdout" in capsys.readouterr().err
    main(["summary", "-"])
    assert "'-' names no standard input here" in capsys.readouterr().err


def test_a_one_node_cluster_repr_counts_in_the_singular(tmp_path):
    """``Cluster('one': 1 node, 1 CPU, 1 GPU, partition p)``: one of each, no plural."""
    conf = tmp_path / "slurm.conf"
    conf.write_text(
        "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nGresTypes=gpu\n"
        "NodeName=n1 CPUs=1 RealMemory=1000 Gres=gpu:1\nPartitionName=p Nodes=n1 Default=YES\n"
    )
    assert repr(slurmlab.Cluster.from_slurm_conf(conf)) == (
        "Cluster('slurm': 1 node, 1 CPU, 1 GPU, partition p)"
    )
    assert repr(slurmlab.Cluster.preset("ai")).startswith(
        "Cluster('ai': 40 nodes, 4096 CPUs, 256 GPUs, partitions train, debug, cpu)"
    )


@pytest.mark.parametrize("bad", [0, "0", -3, "abc", "12 0"])
def test_scancel_refuses_an_id_that_is_no_job_id_before_cancelling_any(bad):
    """scancel checks every id on its own side (opt.c: a leading number <= 0 is "Invalid job
    id" and it exits), so a list holding one cancels none of the others."""
    lab = slurmlab.Lab("tiny")
    job = lab.sbatch("-t 10 --wrap=true")
    ids = [job, bad] if not isinstance(bad, str) or " " not in bad else f"{job} {bad}"
    with pytest.raises(slurmlab.SlurmlabError, match=r"Invalid job id .*no job was cancelled"):
        lab.scancel(ids)
    assert lab.squeue()["JOBID"].tolist() == [str(job)]
