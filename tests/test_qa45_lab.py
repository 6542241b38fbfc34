"""QA round 45 (Lab): sbatch's node counts with -w, scontrol update's key forms, scancel's
filters, and the options sbatch 22.05 does not have, each as Slurm 22.05.8's source does it."""

from __future__ import annotations

import warnings

import pytest

from slurmlab import JobSpec, Lab, RequestError, SbatchError
from slurmlab.sim.magics import scancel_magic, scontrol_magic


def _quiet(text: str) -> JobSpec:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return JobSpec.from_args(text)


# -- D1: -w and the node count (sbatch/opt.c _opt_verify) --------------------------------------


def test_plain_node_count_below_the_listed_hosts_is_refused():
    """sbatch/opt.c _opt_verify: -w raises min_nodes to its 3 hosts while verify_node_count
    (proc_args.c) set max_nodes to -N 2, so "invalid number of nodes (-N 3-2)"; so for -N 1-2.
    The lab refuses it at sbatch, before anything is submitted."""
    for text in ("-N 2 -w node[1-3]", "-N 1-2 -w node[1-3]"):
        with pytest.raises(SbatchError, match=r"invalid number of nodes \(-N 3-2\)") as exc:
            JobSpec.from_args(text)
        assert "--nodelist=node[1-3]" in str(exc.value) and "--nodes=3" in str(exc.value)
    lab = Lab("tiny")
    with pytest.raises(SbatchError, match=r"\(-N 3-2\)"):
        lab.sbatch("-N 2 -w node[1-3] -t 5")
    assert lab.squeue().empty


def test_a_range_or_no_count_takes_every_listed_host_and_a_bigger_count_is_kept():
    """sbatch/opt.c _opt_verify: min_nodes = MAX(hosts, min_nodes): -w node[1-3] alone or with
    -N 2-4 is 3 nodes; -N 3 -w node1 stays 3 nodes (the list is part of them: not refused by
    sbatch; slurmlab then refuses topping the list up, which it does not model)."""
    assert JobSpec.from_args("-w node[1-3]").resources("tiny").nodes == 3
    assert _quiet("-N 2-4 -w node[1-3]").resources("tiny").nodes == 3
    spec = JobSpec.from_args("-w node1 -N 3")
    assert (spec.nodes, spec.nodelist) == (3, ("node1",))
    with pytest.raises(RequestError, match="topping up a node list"):
        spec.resources("tiny")


def test_fewer_tasks_than_listed_hosts_drops_the_last_hosts():
    """sbatch/opt.c _opt_verify: "can't run 2 processes on 3 nodes, setting nnodes to 2",
    min_nodes = max_nodes = ntasks and hostlist_pop of the hosts beyond them: the job runs on
    node[1-2] (with -N 2-4 or -N 3 too)."""
    lab = Lab("tiny")
    with pytest.warns(UserWarning) as caught:
        job = lab.sbatch("-n 2 -w node[1-3] -t 5")
    said = [str(w.message) for w in caught]
    assert said[0].startswith("can't run 2 processes on 3 nodes, setting nnodes to 2")
    assert "drops node3" in said[0]
    row = lab.squeue().set_index("JOBID").loc[str(job)]
    assert (row.NODES, row["NODELIST(REASON)"]) == (2, "node[1-2]")
    for text in ("-N 2-4 -n 2 -w node[1-3]", "-N 3 -n 2 -w node[1-3]"):
        spec = _quiet(text)
        assert (spec.nodes, spec.max_nodes, spec.nodelist) == (2, None, ("node1", "node2"))


def test_the_command_line_overrides_the_script_before_the_node_counts_are_checked():
    """sbatch reads the script's directives, then the command line, and only then runs
    _opt_verify: a script's -n 2 -w node[1-3] with -n 3 on the command line keeps the 3 hosts,
    without a warning."""
    script = "#!/bin/bash\n#SBATCH -n 2\n#SBATCH -w node[1-3]\nsrun hostname\n"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        spec = JobSpec.from_sbatch(script, args="-n 3")
    assert (spec.ntasks, spec.nodelist) == (3, ("node1", "node2", "node3"))


def test_a_python_request_sbatch_would_change_is_refused():
    """A JobSpec built in Python is resolved as written: one sbatch's _opt_verify would refuse
    or trim (sbatch/opt.c) is refused, saying how to build it."""
    with pytest.raises(RequestError, match=r"invalid number of nodes \(-N 3-2\)"):
        JobSpec(nodes=2, nodelist="node[1-3]").resources("tiny")
    with pytest.raises(RequestError, match="JobSpec.from_args, or list 2 nodes"):
        JobSpec(ntasks=2, nodelist="node[1-3]").resources("tiny")


# -- D2: scontrol update's keys (scontrol/update_job.c scontrol_update_job) ---------------------


@pytest.fixture
def lab():
    lab = Lab("tiny", "easy")
    lab.sbatch("--exclusive -N 4 -t 2:00:00", runtime="1h")
    lab.sbatch("-t 50", runtime="10m")
    return lab


def _limit(lab: Lab, job: str = "2") -> str:
    return lab.squeue().set_index("JOBID").loc[job, "TIME_LIMIT"]


def test_time_limit_increment_and_decrement(lab, capsys):
    """update_job.c: 'TimeLimit+=30' (the scontrol(1) man page's example), 'TimeLimit-=5' and
    'TimeLimit=+10' change the job's limit by that much (_get_job_time + or - the value)."""
    scontrol_magic("update JobId=2 TimeLimit+=30")
    assert _limit(lab) == "1:20:00"
    scontrol_magic("update JobId=2 TimeLimit-=5")
    assert _limit(lab) == "1:15:00"
    scontrol_magic("update JobId=2 TimeLimit=+10")
    assert _limit(lab) == "1:25:00"
    assert capsys.readouterr() == ("", "")


def test_keys_cut_short_and_key_value_words(lab, capsys):
    """update_job.c matches keys with xstrncasecmp(tag, key, MAX(taglen, N)): TimeLimit cut
    to 5 letters or more (TimeL), JobId to 3 (Job, jobi), in any case; 'Time' is too short.
    A word without '=' takes the next word as its value ('JobId 2 TimeLimit 50')."""
    scontrol_magic("update JobId=2 TimeL=45")
    assert _limit(lab) == "45:00"
    scontrol_magic("update jobi=2 timelimi=40")
    assert _limit(lab) == "40:00"
    scontrol_magic("update JobId 2 TimeLimit 50")
    assert _limit(lab) == "50:00"
    assert capsys.readouterr() == ("", "")
    scontrol_magic("update JobId=2 Time=5")
    scontrol_magic("update JobId=2 TimeLimit")
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("scontrol: error: update: Time= is not one slurmlab changes")
    assert err[1].startswith("scontrol: error: update: Invalid input: TimeLimit")
    assert _limit(lab) == "50:00"


def test_relative_changes_need_the_job_first_and_only_on_time_limit(lab, capsys):
    """update_job.c: "JobId must precede TimeLimit increment or decrement"; "Invalid syntax,
    variations of +=- are not accepted" (TimeLimit+=+5); "Option ... does not accept [+|-]=
    syntax" on any other key; _get_job_time reads one job ("Invalid job ID 1,2")."""
    scontrol_magic("update TimeLimit=+30 JobId=2")
    scontrol_magic("update JobId=2 TimeLimit+=+5")
    scontrol_magic("update JobId=2 NumNodes+=1")
    scontrol_magic("update JobId=1,2 TimeLimit+=5")
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(
        "scontrol: error: update: JobId must precede TimeLimit increment or decrement"
    )
    assert "Invalid syntax, variations of +=- are not accepted" in err[1]
    assert err[2] == "scontrol: error: update: Option NumNodes+=1 does not accept [+|-]= syntax"
    assert err[3].startswith("scontrol: error: update: Invalid job ID 1,2")
    assert _limit(lab) == "50:00"


# -- D3: scancel's filters (src/scancel/opt.c, scancel.c _filter_job_records) -------------------


@pytest.fixture
def queue():
    lab = Lab("tiny", "easy")
    lab.sbatch("--exclusive -N 4 -t 2:00:00 -J big", runtime="1h")  # 1: running
    lab.sbatch("-t 50 -J foo", runtime="10m")  # 2: pending
    lab.sbatch("-t 50 -J bar", runtime="10m", user="bob")  # 3: pending, bob's
    return lab


def _ids(lab: Lab) -> list[str]:
    return sorted(lab.squeue().JOBID)


def test_scancel_filters_by_user_state_name_and_partition(queue, capsys):
    """scancel.c _filter_job_records: of the active jobs, those matching every filter given
    (-u/--user, --me, -t/--state, -n/--name, -p/--partition) are cancelled."""
    scancel_magic("-u you --state=PENDING")
    assert _ids(queue) == ["1", "3"]
    scancel_magic("-n bar -p main")
    assert _ids(queue) == ["1"]
    scancel_magic("--me -t R")
    assert _ids(queue) == []
    assert capsys.readouterr() == ("", "")


def test_scancel_filters_with_job_ids_and_unknown_ids(queue, capsys):
    """scancel.c _verify_job_ids then _filter_job_records: with ids and filters, a job is
    cancelled when an id names it and it matches the filters (the options may follow the
    ids: getopt_long permutes them); an id that names no job is scancel's error."""
    scancel_magic("2 3 -u bob")
    assert _ids(queue) == ["1", "2"]
    scancel_magic("-t PD 99")
    assert capsys.readouterr().err == (
        "scancel: error: Kill job error on job id 99: Invalid job id specified\n"
    )
    assert _ids(queue) == ["1", "2"]


def test_scancel_refuses_other_options_by_name(queue, capsys):
    """Options scancel has that slurmlab's %scancel does not take are refused by name, and a
    state scancel does not know is its "Invalid job state specified" (_xlate_state_name);
    nothing is cancelled."""
    scancel_magic("-s KILL 2")
    scancel_magic("--bogus")
    scancel_magic("-t XX")
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("scancel: error: -s: slurmlab's %scancel does not take")
    assert err[1].startswith("scancel: error: unrecognized option '--bogus'")
    assert err[2].startswith("scancel: error: Invalid job state specified: XX")
    assert _ids(queue) == ["1", "2", "3"]


# -- D6: options sbatch 22.05 does not have (slurm_opt.c slurm_option_table_create) -----------


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("--cpu-bind=cores", "unrecognized option '--cpu-bind=cores': sbatch (Slurm 22.05) has no"),
        ("--tres-bind=gres/gpu:closest", "has no --tres-bind: it was added in a Slurm release"),
        ("--tres-per-task=gres/gpu:1", "has no --tres-per-task: it was added"),
        ("--segment=2", "has no --segment"),
        ("--cpus-per-gres=4", "CPUs per GPU are --cpus-per-gpu"),
        ("--immediate", "has no -I/--immediate: it is a salloc and srun option"),
        ("-I", "invalid option -I in '-I'; sbatch (Slurm 22.05) has no -I/--immediate"),
    ],
)
def test_options_sbatch_does_not_have_are_unrecognized(text, said):
    """slurm_option_table_create gives sbatch only the options with a set_func or a
    set_func_sbatch (slurm_opt.c): --cpu-bind is srun's, -I/--immediate salloc's and srun's,
    --tres-bind, --tres-per-task and --segment are of later Slurm releases."""
    with pytest.raises(SbatchError) as exc:
        JobSpec.from_args(text)
    assert said in str(exc.value)


def test_cluster_is_clusters():
    """slurm_opt.c: --cluster is an option of its own (getopt_long takes the exact name, not
    an ambiguous prefix of --cluster-constraint and --clusters) set by arg_set_clusters."""
    with pytest.warns(UserWarning, match="--clusters=c1 is accepted but not simulated"):
        spec = JobSpec.from_args("--cluster=c1")
    assert spec.option("clusters") == "c1"
    with pytest.raises(SbatchError, match="ambiguous"):
        JobSpec.from_args("--clu=c1")


def test_real_options_missing_before_are_known():
    """slurm_opt.c: --context (set_func) is an sbatch option, kept as given; --ntasks-per-tres
    (set_func) is one slurmlab does not model, refused by name as --ntasks-per-socket is."""
    assert JobSpec.from_args("--context=unconfined_u").option("context") == "unconfined_u"
    with pytest.raises(SbatchError, match="sbatch accepts --ntasks-per-tres but slurmlab"):
        JobSpec.from_args("--ntasks-per-tres=2")
