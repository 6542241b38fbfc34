"""sbatch's options read as sbatch reads them, and refused as Slurm refuses them: counts too
large for any partition, GRES and node names the cluster lacks, signals, the old dependency
format, getopt's short options, and messages and warnings that point at what the user wrote."""

from datetime import timedelta

import pytest

import slurmlab
from slurmlab import Cluster, JobSpec, RequestError, SbatchError
from slurmlab.spec.job import Dependency, SignalSpec

TINY = Cluster.preset("tiny")  # node[1-4]: 16 CPUs, 64000 MB, 2 a100 each; GresTypes=gpu


#: tiny with EnforcePartLimits=ALL: a job beyond the partition's size is refused at once
STRICT_TINY = Cluster(
    TINY.name, TINY.nodes, TINY.partitions, {**dict(TINY.settings), "EnforcePartLimits": "ALL"}
)


def args(text: str) -> JobSpec:
    return JobSpec.from_args(text)


def refused(text: str, cluster: Cluster = TINY) -> str:
    """The message of the RequestError or SbatchError that submitting ``text`` raises."""
    with pytest.raises((RequestError, SbatchError)) as exc:
        args(text).resources(cluster)
    return str(exc.value)


# -- 1. a count is checked before anything is sized by it -------------------------------------


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("-N 99999999999", "--nodes=99999999999"),
        ("--gpus=99999999999", "--gpus=99999999999 needs 50000000000 nodes of 2 GPUs"),
        ("-n 99999999999", "-n 99999999999 needs 6250000000 nodes"),
        ("--gres=gpu:1 --gpus=99999999999", "--gpus=99999999999 with --gres=gpu:1 needs"),
        ("-n 99999999999 --ntasks-per-node=1", "with --ntasks-per-node=1 needs 99999999999"),
        ("-n 99999999999 --gpus-per-task=1", "-n 99999999999 with --gpus-per-task=1 needs"),
    ],
)
def test_more_nodes_than_the_partition_has_is_refused_at_once(text, said):
    """A node count (given, or derived from tasks or GPUs) above the partition's node count is
    "Requested node configuration is not available" at once, whatever its size: nothing is
    built with one entry per node first."""
    lab = slurmlab.Lab("tiny")
    with pytest.raises(RequestError) as exc:
        lab.sbatch(text)
    msg = str(exc.value)
    assert said in msg and "partition 'main' has 4 nodes" in msg
    assert "Requested node configuration is not available; ask for " in msg  # (and the fix)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("--array=0-99999999999", ["--array", "largest MaxArraySize Slurm allows, 4000001"]),
        ("--begin=now+99999999999days", ["--begin", "too far in the future"]),
        ("-t 99999999999:00:00", ["--time", "Invalid time limit specification"]),
    ],
)
def test_huge_values_are_errors_naming_the_option(text, words):
    """A huge array range, begin offset or time limit is an SbatchError naming the option,
    not a MemoryError or OverflowError."""
    with pytest.raises(SbatchError) as exc:
        args(text)
    assert all(w in str(exc.value) for w in words)


# -- 2. a GRES the cluster does not have is refused, never dropped -----------------------------


@pytest.mark.parametrize("text", ["--gres=foo:1", "--gres=gpu:1,foo:2", "--gres=foo"])
def test_unknown_gres_is_invalid_gres(text):
    """A --gres name that is not in GresTypes nor on any node is Slurm's ESLURM_INVALID_GRES,
    "Invalid generic resource (gres) specification", naming it."""
    lab = slurmlab.Lab("tiny")
    with pytest.raises(RequestError) as exc:
        lab.sbatch(text)
    msg = str(exc.value)
    assert "'foo' is not a generic resource of cluster 'tiny' (GresTypes: gpu)" in msg
    assert "Invalid generic resource (gres) specification" in msg
    assert lab.sacct().empty  # (nothing was submitted)


NVME = Cluster.from_slurm_conf(
    "SelectTypeParameters=CR_Core_Memory\nGresTypes=gpu,nvme,shard\n"
    "NodeName=n1 CPUs=8 RealMemory=64000 Gres=gpu:2\n"
    "NodeName=n2 CPUs=8 RealMemory=64000 Gres=gpu:2,nvme:fast:1\n"
    "PartitionName=p Nodes=ALL Default=YES\n"
)


def test_known_gres_places_the_job_on_nodes_that_have_it():
    """A GRES the cluster knows (nvme on n2 only) limits the job to nodes with that many of
    it (and of its type); one that no node of the partition has enough of is "Requested node
    configuration is not available"."""
    assert args("--gres=nvme:1").resources(NVME).candidates == ("n2",)
    assert args("--gres=gpu:1,nvme:fast:1").resources(NVME).candidates == ("n2",)
    assert "no node of partition 'p' has nvme:2" in refused("--gres=nvme:2", NVME)
    assert "has nvme:slow:1" in refused("--gres=nvme:slow:1", NVME)
    msg = refused("--gres=shard:1", NVME)  # in GresTypes, on no node
    assert "no node of partition 'p' has shard:1 (its nodes have no shard)" in msg


def test_gres_without_a_count_is_name_and_type():
    """--gres=name[:type][:count] reads alike for every GRES: nvme:fast is one fast nvme; a
    fourth field is an error, not dropped."""
    assert args("--gres=nvme:fast").to_args() == ["--gres=nvme:fast:1"]
    with pytest.raises(SbatchError, match="'nvme:a:b:1' is not name"):
        args("--gres=nvme:a:b:1")


# -- 3. node names in --exclude must exist -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "bad"),
    [
        ("-x node9", "'node9'"),
        ("-x =", "'='"),
        ("-w node9", "'node9'"),
        ("-x node[3-5]", "'node5'"),
    ],
)
def test_unknown_node_names_are_invalid(text, bad):
    """A name in --exclude (as in --nodelist) that is no node of the cluster is slurmctld's
    "Invalid node name specified"."""
    msg = refused(text)
    assert f"{bad} is not a node of cluster 'tiny' (node[1-4]): Invalid node name specified" in msg


def test_exclude_hostlist_keeps_the_job_off_those_nodes():
    """-x node[2-3] is a hostlist: the job may run on node1 and node4 only."""
    lab = slurmlab.Lab("tiny")
    j = lab.sbatch("-x node[2-3] -N 2 --exclusive")
    assert lab.sacct().set_index("JobID").loc[str(j), "NodeList"] == "node[1,4]"


# -- 4. --signal as get_signal_opts reads it -----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("USR1", SignalSpec("USR1", 60)),
        ("SIGUSR2@30", SignalSpec("USR2", 30)),
        ("sigterm", SignalSpec("TERM", 60)),
        ("10", SignalSpec("10", 60)),
        ("B:USR1@120", SignalSpec("USR1", 120, batch_only=True)),
        ("R:TERM@0", SignalSpec("TERM", 0, reservation=True)),
        ("BR:INT", SignalSpec("INT", 60, batch_only=True, reservation=True)),
        ("rb:xcpu@65535", SignalSpec("XCPU", 65535, batch_only=True, reservation=True)),
    ],
)
def test_signal_forms_slurm_accepts(text, spec):
    """[{R|B}:]sig[@sig_time]: a name Slurm knows, with or without SIG, in any case, or a
    number 1-65535; sig_time 0-65535 seconds, 60 when not given."""
    assert SignalSpec.parse(text) == spec
    assert args(f"--signal={text}").signal == spec


@pytest.mark.parametrize("text", ["FOO", "SIGFOO", "0", "70000", "-1", "USR1@70000", "USR1@x", "B"])
def test_invalid_signal_is_refused(text):
    """Anything else is sbatch's "Invalid --signal specification", naming the value, never
    taken as a signal name."""
    with pytest.raises(SbatchError) as exc:
        args(f"--signal={text}")
    assert f"--signal={text!r}: Invalid --signal specification" in str(exc.value)
    with pytest.raises(SbatchError, match="Invalid --signal specification"):
        SignalSpec("FOO")


# -- 5. --dependency: a bare job id is afterany -------------------------------------------------


def test_bare_job_id_is_afterany():
    """-d 1 is Slurm's old format for afterany:1 (update_job_dependency); -d 1,2 waits for
    both, and a bare id may follow a TYPE:ID condition."""
    assert args("-d 1").dependency == (Dependency("afterany", ("1",)),)
    assert args("-d 1,2").dependency == (
        Dependency("afterany", ("1",)),
        Dependency("afterany", ("2",)),
    )
    assert args("-d afterok:2,3").to_args() == ["--dependency=afterok:2,afterany:3"]
    assert args("-d AFTEROK:2").dependency == (Dependency("afterok", ("2",)),)


def test_bare_job_id_waits_for_that_job():
    """In a lab, -d 1 pends (Dependency) until job 1 has ended, then runs."""
    lab = slurmlab.Lab("tiny")
    first = lab.sbatch("-N 1", runtime=100)
    second = lab.sbatch(f"-d {first}", runtime=10)
    assert lab.squeue().set_index("JOBID").loc[str(second), "NODELIST(REASON)"] == "(Dependency)"
    lab.run()
    acct = lab.sacct().set_index("JobID")
    assert acct.loc[str(second), "Start"] >= acct.loc[str(first), "End"]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("-d 1:2", ["'1:2' is not TYPE:ID", "afterany:1:2"]),
        ("-d 1,afterok:2", ["--dependency=afterany:1,afterok:2"]),
        ("-d 1?2", ["--dependency=afterany:1?afterany:2"]),
        ("-d 1x", ["'1x' is not a job id"]),
    ],
)
def test_what_slurm_does_not_read_as_a_bare_id_is_refused(text, words):
    """As slurmctld: an id followed by ':' is no type, and a bare id followed by a TYPE:ID
    condition or by '?' is a "Job dependency problem"; the error gives the spelling that works."""
    with pytest.raises(SbatchError) as exc:
        args(text)
    assert "Job dependency problem" in str(exc.value)
    assert all(w in str(exc.value) for w in words)


# -- 6. short options as getopt reads them -------------------------------------------------------


def test_short_option_keeps_the_equals_sign():
    """getopt gives -N=2 the value '=2' (not a node count: refused, saying why) and -J=foo
    the name '=foo' (kept, with a warning), in #SBATCH lines too; -N2 and -N 2 are 2 nodes."""
    with pytest.raises(SbatchError) as exc:
        args("-N=2")
    msg = str(exc.value)
    assert "--nodes='=2'" in msg and "write -N 2 or --nodes=2" in msg
    with pytest.warns(UserWarning, match="-J=foo gives -J the value '=foo'"):
        assert args("-J=foo").name == "=foo"
    with pytest.warns(UserWarning, match="write -J foo or --job-name=foo"):
        assert JobSpec.from_sbatch("#!/bin/sh\n#SBATCH -J=foo\n").name == "=foo"
    assert args("-N2").nodes == args("-N 2").nodes == 2


def test_short_options_share_a_word_and_long_values_are_checked():
    """-Hv is -H -v; -HN2 is -H -N 2; a value given to a long option that takes none is an
    error (not dropped), an optional one is kept (--no-kill=off)."""
    spec = args("-HN2")
    assert spec.hold and spec.nodes == 2
    assert args("-Hv").other == (("verbose", None),)
    with pytest.raises(SbatchError, match="--parsable takes no value"):
        args("--parsable=yes")
    with pytest.warns(UserWarning, match="--no-kill=off"):
        assert args("--no-kill=off").other == (("no-kill", "off"),)
    with pytest.raises(SbatchError, match=r"option -c \(--cpus-per-task\) requires a value"):
        args("-c")


# -- 7. messages say what was asked and how it was counted --------------------------------------


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("--gpus=9", "--gpus=9 needs 5 nodes of 2 GPUs; partition 'main' has 4 nodes"),
        ("-n 100", "-n 100 needs 7 nodes (16 tasks of 1 CPU fit on a node of 16 CPUs)"),
        ("-n 8 --ntasks-per-node=1", "-n 8 with --ntasks-per-node=1 needs 8 nodes"),
        ("-N 5 -x node1", "has 3 nodes the request may use (of 4)"),
    ],
)
def test_node_count_errors_say_how_the_count_was_found(text, said):
    """A node count the user did not type is explained from what they did type (refused under
    EnforcePartLimits=ALL; with the default NO, more nodes than the partition has pend)."""
    lab = slurmlab.Lab(STRICT_TINY)
    with pytest.raises(RequestError) as exc:
        lab.sbatch(text)
    assert said in str(exc.value)


@pytest.mark.parametrize(
    "text",
    [
        "--gpus=8 -x node1",  # (4 nodes of 2 GPUs; 3 it may use)
        "-c 32",
        "-x node[1-4]",
        "-C nope",
        "-p nope",
        "--gres=gpu:v100:1",
    ],
)
def test_errors_name_no_invented_job(text):
    """An error names the option and Slurm's reason; it calls an unnamed job neither
    'sbatch' nor by a job id it never got."""
    msg = refused(text)
    assert "sbatch" not in msg.lower().replace("sbatch --help", "")
    assert "Job '" not in msg and "job 1" not in msg


def test_a_named_job_is_named():
    """A job given --job-name is called by it where the message needs a subject."""
    assert refused("-J big -c 32").startswith(  # (after sbatch's own first line)
        "CPU count per node can not be satisfied; job 'big' needs 32 CPUs per node"
    )


# -- 8. warnings point at the caller's line ------------------------------------------------------


def test_warnings_point_at_the_callers_line():
    """A warning from Lab.sbatch, JobSpec.from_args or from_sbatch is reported at the line
    that called slurmlab (this file), not inside slurmlab's source."""
    lab = slurmlab.Lab("tiny")
    calls = [
        lambda: lab.sbatch("-N 3 -n 2"),  # sbatch's own warning, when resolved
        lambda: lab.sbatch("--exclusive=user"),
        lambda: lab.sbatch("#!/bin/sh\n#SBATCH --tmp=10\n"),
        lambda: JobSpec.from_args("-J=x"),
        lambda: JobSpec.from_args("-N 3 -n 2").resources(TINY),
    ]
    for call in calls:
        with pytest.warns(UserWarning) as record:
            call()
        assert [w.filename for w in record] == [__file__], [str(w.message) for w in record]


def test_time_limits_still_read():
    """(The options around the fixes keep their meaning: -t 30 is 30 minutes.)"""
    assert args("-t 30 -N 1").time_limit == timedelta(minutes=30)
