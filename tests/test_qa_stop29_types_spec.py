"""QA stop 29 (wrong-type arguments to the spec layer): values given in Python are read as
Slurm's own readers would read them, or refused with an error naming the field, the value
and the fix; never split into characters, never read as true for being non-empty."""

from __future__ import annotations

import dataclasses
import warnings
from datetime import datetime, timedelta

import numpy as np
import pandas as pd
import pytest

from slurmlab import (
    Account,
    Cluster,
    JobSpec,
    Node,
    Partition,
    Qos,
    SbatchError,
    SlurmlabError,
    Workload,
    WorkloadJob,
    ai_workload,
    simulate,
)
from slurmlab.spec.cluster import Gres
from slurmlab.spec.job import Dependency, resolve

AI = Cluster.preset("ai")
TINY = Cluster.preset("tiny")


def quiet(make):
    """``make()`` with every warning an error (the value is read without a word)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return make()


# -- section 2: cluster settings given as Python numbers ----------------------------------------
def test_a_numeric_setting_is_read_as_its_slurm_conf_text():
    """PriorityWeightFairshare=10000 (an int) is "10000", as slurm.conf would give it."""
    fair = dataclasses.replace(
        AI,
        settings={
            **AI.settings,
            "PriorityType": "priority/multifactor",
            "PriorityWeightFairshare": 10000,
            "DefMemPerCPU": 1000,
        },
    )
    assert fair.setting("PriorityWeightFairshare") == "10000"
    assert fair.setting("DefMemPerCPU") == "1000"
    result = simulate(fair, ai_workload(3, AI))
    assert len(result.jobs) == 3


def test_job_requeue_0_as_an_int_is_off():
    """JobRequeue=0 (an int) turns requeueing off, as JobRequeue=0 in slurm.conf does."""
    c = dataclasses.replace(AI, settings={**AI.settings, "JobRequeue": 0})
    assert c.setting("JobRequeue") == "0"
    assert c.job_requeue is False


def test_a_numpy_setting_is_read_as_text():
    c = dataclasses.replace(AI, settings={**AI.settings, "PriorityWeightAge": np.int64(500)})
    assert c.setting("PriorityWeightAge") == "500"


@pytest.mark.parametrize(
    "value, words",
    [
        (False, r"setting JobRequeue=False is not slurm\.conf text.*JobRequeue='0' or '1'"),
        (None, r"setting JobRequeue=None is not slurm\.conf text; leave JobRequeue out"),
    ],
)
def test_true_false_and_none_settings_are_refused(value, words):
    with pytest.raises(SlurmlabError, match=words):
        dataclasses.replace(AI, settings={**AI.settings, "JobRequeue": value})


def test_a_dict_scheduler_parameters_is_refused_with_its_text():
    with pytest.raises(
        SlurmlabError,
        match=r"SchedulerParameters=\{'bf_interval': 5\} is not slurm\.conf text; give it as "
        r"slurm\.conf's comma list, e.g\. SchedulerParameters='bf_interval=5'",
    ):
        dataclasses.replace(AI, settings={**AI.settings, "SchedulerParameters": {"bf_interval": 5}})


def test_settings_none_is_refused():
    with pytest.raises(SlurmlabError, match=r"settings=None is not a mapping of slurm\.conf keys"):
        Cluster("c", TINY.nodes, TINY.partitions, settings=None)


def test_a_setting_asked_by_a_name_that_is_not_text_is_refused():
    with pytest.raises(SlurmlabError, match=r"setting name None is not text"):
        TINY.setting(None)


# -- section 3: JobSpec time_limit and begin ------------------------------------------------------
def test_a_time_limit_as_slurm_text_is_read():
    assert JobSpec(ntasks=4, time_limit="1:00:00").time_limit == timedelta(hours=1)
    assert JobSpec(ntasks=4, time_limit="1:00:00").time_requested is True


def test_a_numpy_timedelta_time_limit_is_read():
    spec = JobSpec(time_limit=np.timedelta64(2, "h"))
    assert spec.time_limit == timedelta(hours=2)
    assert spec.to_args() == ["--time=2:00:00"]


def test_a_number_time_limit_is_minutes_with_a_warning():
    """sbatch -t 60 is 60 minutes: a Python number says which with a warning."""
    with pytest.warns(UserWarning, match=r"time_limit=60 is read as 60 minutes \(1:00:00\)"):
        spec = JobSpec(ntasks=4, time_limit=60)
    assert spec.time_limit == timedelta(minutes=60)


def test_a_time_limit_with_a_unit_is_refused_with_the_slurm_time_to_write():
    with pytest.raises(
        SbatchError, match=r"invalid time_limit '2h'.*write '2:00:00' or timedelta\(seconds=7200\)"
    ):
        JobSpec(time_limit="2h")


def test_a_time_limit_of_another_kind_is_refused():
    with pytest.raises(SbatchError, match=r"invalid time_limit \[60\]: give a timedelta"):
        JobSpec(time_limit=[60])


@pytest.mark.parametrize(
    "begin, delay",
    [(3600, 3600), (np.int64(60), 60), ("2h", 7200), ("now+1hour", 3600)],
)
def test_begin_as_seconds_or_a_delay_is_after_submission(begin, delay):
    assert JobSpec(ntasks=1, begin=begin).begin == timedelta(seconds=delay)


def test_begin_given_as_seconds_holds_the_job_in_a_simulation():
    """begin=3600 makes the job eligible an hour after its submission, never at once."""
    w = Workload(
        [WorkloadJob(JobSpec(ntasks=1, time_limit=timedelta(minutes=5), begin=3600), runtime=60)]
    )
    jobs = simulate("tiny", w).jobs
    assert jobs.Eligible.iloc[0] == pd.Timestamp("2026-01-05 01:00:00")
    assert jobs.Start.iloc[0] == pd.Timestamp("2026-01-05 01:00:00")


def test_begin_renders_as_sbatch_reads_it():
    assert JobSpec(begin=3600).to_args() == ["--begin=now+3600"]


def test_begin_that_is_no_time_is_refused_with_the_python_forms():
    with pytest.raises(
        SbatchError, match=r"--begin='soon'.*in Python, begin=3600 or timedelta\(hours=1\)"
    ):
        JobSpec(begin="soon")


def test_begin_with_a_time_zone_is_refused():
    with pytest.raises(SbatchError, match=r"without a time zone"):
        JobSpec(begin=pd.Timestamp("2026-01-05T10:00", tz="UTC"))


def test_begin_as_a_datetime_is_kept():
    assert JobSpec(begin=datetime(2026, 1, 5, 10)).begin == datetime(2026, 1, 5, 10)


# -- section 4: request builders ------------------------------------------------------------------
def test_from_args_takes_numbers_in_a_word_list_as_text():
    """["-N", 2, "-t", 30] is what sbatch gets as -N 2 -t 30 (as Lab.sbatch takes it)."""
    assert JobSpec.from_args(["-N", 2, "-t", 30]) == JobSpec.from_args("-N 2 -t 30")


@pytest.mark.parametrize(
    "args, words",
    [
        ({"nodes": 2}, r"JobSpec\.from_args: got dict \{'nodes': 2\}; give the options as text"),
        (None, r"JobSpec\.from_args: got NoneType None"),
        (["-N", None], r"None in \['-N', None\] is not a word of sbatch's command line"),
    ],
)
def test_from_args_refuses_what_is_no_command_line(args, words):
    with pytest.raises(SbatchError, match=words):
        JobSpec.from_args(args)


def test_from_args_given_a_path_points_to_from_sbatch(tmp_path):
    with pytest.raises(SbatchError, match=r"use JobSpec\.from_sbatch\(Path\(\.\.\.\)\)"):
        JobSpec.from_args(tmp_path / "train.sbatch")


def test_from_args_refuses_a_base_that_is_no_jobspec():
    with pytest.raises(SbatchError, match=r"base='-t 30' is not a JobSpec"):
        JobSpec.from_args("-N 2", base="-t 30")


def test_from_sbatch_reads_a_path_and_names_the_job_after_it(tmp_path):
    path = tmp_path / "train.sbatch"
    path.write_text("#!/bin/bash\n#SBATCH -N 2 -t 30\nsrun python train.py\n")
    spec = JobSpec.from_sbatch(path)
    assert (spec.nodes, spec.time_limit) == (2, timedelta(minutes=30))
    assert spec.job_name == "train.sbatch"
    assert JobSpec.from_sbatch(path, ["-t", 60]).time_limit == timedelta(hours=1)


def test_from_sbatch_of_a_missing_file_says_so(tmp_path):
    with pytest.raises(SbatchError, match=r"cannot read the batch script .*missing\.sbatch"):
        JobSpec.from_sbatch(tmp_path / "missing.sbatch")


def test_from_sbatch_of_none_is_refused():
    with pytest.raises(SbatchError, match=r"JobSpec\.from_sbatch: got NoneType None"):
        JobSpec.from_sbatch(None)


def test_resources_and_validate_take_a_preset_name():
    spec = JobSpec.from_args("-N 2 --gres=gpu:8 -t 30")
    assert spec.resources("ai") == spec.resources(AI)
    assert spec.validate("ai") is spec
    assert resolve(spec, "ai").gpus_per_node == 8


def test_resources_of_something_that_is_no_cluster_is_refused():
    with pytest.raises(SlurmlabError, match=r"cluster None is not a cluster"):
        JobSpec.from_args("-n 1").resources(None)


# -- section 7: JobSpec tuple fields given one string ---------------------------------------------
def test_nodelist_text_is_a_hostlist():
    assert JobSpec(ntasks=1, nodelist="gpu001").nodelist == ("gpu001",)
    assert JobSpec(ntasks=1, nodelist="gpu[001-002]").nodelist == ("gpu001", "gpu002")
    assert JobSpec(ntasks=1, exclude="gpu001,gpu003").exclude == ("gpu001", "gpu003")


def test_nodelist_of_another_kind_is_refused():
    with pytest.raises(SbatchError, match=r"JobSpec nodelist=5 is not node names"):
        JobSpec(nodelist=5)


def test_other_gres_text_is_read_as_gres_reads_it():
    spec = JobSpec(ntasks=1, other_gres="nvme:1")
    assert spec.other_gres == (Gres("nvme", None, 1),)
    assert spec.to_args() == ["--ntasks=1", "--gres=nvme:1"]


def test_other_gres_with_gpus_points_to_gpus_per_node():
    with pytest.raises(SbatchError, match=r"other_gres='gpu:2' asks for GPUs.*gpus_per_node=N"):
        JobSpec(other_gres="gpu:2")


def test_dependency_text_is_read_as_dependency_reads_it():
    assert JobSpec(dependency="afterok:1").dependency == (Dependency("afterok", ("1",)),)
    spec = JobSpec(dependency="afterok:1?afterany:2")
    assert (len(spec.dependency), spec.dependency_any) == (2, True)
    assert Dependency("afterok", "12:13").job_ids == ("12", "13")
    assert Dependency("afterok", (12,)).job_ids == ("12",)


def test_array_and_signal_text_are_parsed():
    spec = JobSpec(ntasks=1, array="0-3", signal="B:USR1@120")
    assert spec.array.indices == (0, 1, 2, 3)
    assert str(spec.signal) == "B:USR1@120"


def test_other_as_one_string_is_refused():
    with pytest.raises(SbatchError, match=r"other='--foo' is not \(option, value\) pairs"):
        JobSpec(other="--foo")


def test_constraint_as_a_list_is_refused():
    with pytest.raises(SbatchError, match=r"constraint=\['a100'\] is not text"):
        JobSpec(constraint=["a100"])


# -- section 8: Node / Partition / Cluster constructors -------------------------------------------
def test_node_features_text_is_a_comma_list():
    assert Node("g1", cpus=64, features="a100,nvlink").features == frozenset({"a100", "nvlink"})


def test_node_gres_text_is_read_at_construction():
    node = Node("g1", cpus=64, gres="gpu:h100:8")
    assert node.gres == (Gres("gpu", "h100", 8),)
    assert Node("g2", cpus=8, gres=Gres("gpu", None, 2)).gpus == 2


def test_node_gres_of_another_kind_is_refused():
    with pytest.raises(SlurmlabError, match=r"Node 'g1': gres=8 is neither Gres objects nor"):
        Node("g1", cpus=8, gres=8)


def test_node_counts_given_as_text_or_numpy_are_read():
    node = Node("n1", cpus="8", memory_mb="16G", weight=np.int64(5), threads_per_core=np.int64(2))
    assert (node.cpus, node.memory_mb, node.weight, node.threads_per_core) == (8, 16384, 5, 2)


@pytest.mark.parametrize(
    "kw, words",
    [
        ({"cpus": 8.5}, r"Node 'n1': cpus=8\.5 is not a whole number"),
        ({"memory_mb": 1000.5}, r"Node 'n1': memory_mb=1000\.5 is not a whole number"),
        ({"state": None}, r"Node 'n1': state=None is not text"),
    ],
)
def test_node_values_of_the_wrong_kind_are_refused(kw, words):
    with pytest.raises(SlurmlabError, match=words):
        Node("n1", **kw)


def test_gres_count_is_checked():
    with pytest.raises(SlurmlabError, match=r"Gres 'gpu': count=8\.5 is not a whole number"):
        Gres("gpu", None, 8.5)
    assert Gres("gpu", None, "8").count == 8


def test_partition_nodes_text_is_a_hostlist():
    assert Partition("p", "n[1-3]").nodes == ("n1", "n2", "n3")


def test_partition_max_time_text_is_read_at_construction():
    part = Partition("p", ("n1",), max_time="2:00:00", default_time="UNLIMITED")
    assert (part.max_time, part.default_time) == (timedelta(hours=2), None)


def test_partition_max_time_number_is_minutes_with_a_warning():
    with pytest.warns(UserWarning, match=r"Partition 'p' max_time=3600 is read as 3600 minutes"):
        part = Partition("p", ("n1",), max_time=3600)
    assert part.max_time == timedelta(minutes=3600)
    cluster = Cluster("c", [Node("n1", cpus=8)], [dataclasses.replace(part, default=True)])
    assert "2-12:00:00" in cluster.sinfo_text()


def test_partition_max_time_with_a_unit_is_refused():
    with pytest.raises(SlurmlabError, match=r"invalid Partition 'p' max_time '2h'.*'2:00:00'"):
        Partition("p", ("n1",), max_time="2h")


def test_partition_default_must_be_true_or_false():
    with pytest.raises(SlurmlabError, match=r"Partition 'p': default 'no' is not True or False"):
        Partition("p", ("n1",), default="no")


def test_partition_counts_are_read():
    assert Partition("p", ("n1",), max_nodes="4").max_nodes == 4
    with pytest.raises(SlurmlabError, match=r"Partition 'p': max_nodes=2\.5 is not a whole"):
        Partition("p", ("n1",), max_nodes=2.5)


def test_a_cluster_takes_one_node_and_one_partition():
    node = Node("n1", cpus=8)
    cluster = Cluster("c", node, Partition("p", "n1", default=True))
    assert [n.name for n in cluster.nodes] == ["n1"]
    assert [p.name for p in cluster.partitions] == ["p"]


def test_a_cluster_refuses_node_dicts():
    with pytest.raises(SlurmlabError, match=r"is a dict, not a slurmlab\.Node"):
        Cluster("c", [{"name": "n1"}], [])


def test_a_preset_asked_by_a_cluster_is_refused():
    with pytest.raises(SlurmlabError, match=r"is not a name; choose one of tiny, teaching, ai"):
        Cluster.preset(TINY)


# -- section 10: WorkloadJob ids ------------------------------------------------------------------
def test_job_ids_are_text_so_1_and_1_text_are_one_id():
    spec = JobSpec.from_args("-n 1 -t 30")
    assert WorkloadJob(spec, id=1).id == "1"
    assert WorkloadJob(spec, id=np.int64(5)).id == "5"
    with pytest.raises(SlurmlabError, match=r"job ids repeated: \['1'\]"):
        Workload([WorkloadJob(spec, id=1), WorkloadJob(spec, id="1")])


def test_a_float_job_id_is_refused():
    with pytest.raises(SlurmlabError, match=r"job id 1\.0 is not a job id; give text or a whole"):
        WorkloadJob(JobSpec.from_args("-n 1 -t 30"), id=1.0)


# -- section 11: Workload construction ------------------------------------------------------------
def test_a_workload_of_jobspecs_says_to_wrap_them():
    spec = JobSpec.from_args("-n 1 -t 30")
    with pytest.raises(SlurmlabError, match=r"is a JobSpec, not a WorkloadJob; wrap it"):
        Workload([spec, spec])


def test_a_workload_takes_one_job():
    job = WorkloadJob(JobSpec.from_args("-n 1 -t 30"))
    assert Workload(job).jobs == (job,)


@pytest.mark.parametrize(
    "jobs, words",
    [
        (None, r"None is a NoneType, not a WorkloadJob"),
        ([{"spec": "-n 1"}], r"is a dict, not a WorkloadJob"),
        (pd.DataFrame({"JobID": ["1"]}), r"Workload: got a DataFrame"),
    ],
)
def test_a_workload_refuses_what_is_no_job(jobs, words):
    with pytest.raises(SlurmlabError, match=words):
        Workload(jobs)


@pytest.mark.parametrize(
    "origin", ["yesterday", 0, pd.Timestamp("2026-01-05", tz="UTC"), pd.NaT, None]
)
def test_a_workload_origin_that_is_no_local_date_is_refused(origin):
    with pytest.raises(SlurmlabError, match=r"Workload: origin=.* is not a date and time"):
        Workload([], origin=origin)


def test_a_workload_origin_as_text_is_read():
    assert Workload([], origin="2026-01-05T08:00").origin == pd.Timestamp("2026-01-05 08:00")


def test_a_workload_kind_must_be_scenario_or_trace():
    with pytest.raises(SlurmlabError, match=r"kind='swf' is not one of scenario, trace"):
        Workload([], kind="swf")


# -- section 12: numpy integers -------------------------------------------------------------------
def test_numpy_counts_are_whole_numbers():
    spec = JobSpec(nodes=np.int64(2), ntasks_per_node=np.int32(4), mem_mb=np.int64(1000))
    assert (spec.nodes, spec.ntasks_per_node, spec.mem_mb) == (2, 4, 1000)
    assert type(spec.nodes) is int
    assert dataclasses.replace(spec, cpus_per_task=np.int64(3)).cpus_per_task == 3


def test_a_bool_gpu_count_is_refused():
    with pytest.raises(SbatchError, match=r"--gpus-per-node=True: must be a whole number >= 0"):
        JobSpec(gpus_per_node=True)


def test_ai_workload_takes_a_numpy_load():
    assert len(ai_workload(3, "tiny", load=np.float32(0.5))) == 3


# -- section 15: Account and Qos read the same inputs alike ---------------------------------------
def test_account_grp_tres_is_read_as_a_qos_reads_it():
    assert Account("llm", grp_tres={"gpu": 8}).grp_tres == {"gres/gpu": 8}
    assert Account("llm", grp_tres="gres/gpu=8").grp_tres == {"gres/gpu": 8}
    assert Account("llm", grp_tres={"gres/gpu": "8"}).grp_tres == {"gres/gpu": 8}


def test_account_grp_tres_with_an_unknown_tres_is_refused():
    with pytest.raises(SlurmlabError, match=r"account 'llm' grp_tres: unknown TRES 'gpus'"):
        Account("llm", grp_tres={"gpus": 8})


def test_account_max_jobs_is_a_whole_number():
    assert Account("llm", max_jobs="1").max_jobs == 1
    with pytest.raises(SlurmlabError, match=r"invalid account 'llm' max_jobs 1\.5"):
        Account("llm", max_jobs=1.5)


@pytest.mark.parametrize("make", [lambda: Account(None), lambda: Qos(5)])
def test_account_and_qos_names_must_be_text(make):
    with pytest.raises(SlurmlabError, match=r"name (None|5) is not"):
        make()


def test_qos_max_wall_number_is_minutes_with_a_warning():
    """sacctmgr MaxWall=60 is 60 minutes; a Python number says so in a warning."""
    with pytest.warns(UserWarning, match=r"QOS 'q' max_wall=60 is read as 60 minutes"):
        qos = Qos("q", max_wall=60)
    assert qos.max_wall == timedelta(hours=1)
    assert quiet(lambda: Qos("q", max_wall="1:00:00")).max_wall == timedelta(hours=1)


def test_qos_max_wall_with_a_unit_is_refused_with_the_slurm_time():
    with pytest.raises(SlurmlabError, match=r"max_wall '2h'.*write '2:00:00'"):
        Qos("q", max_wall="2h")


# -- section 19: yes/no fields --------------------------------------------------------------------
@pytest.mark.parametrize("field_name", ["requeue", "hold", "exclusive"])
def test_jobspec_flags_refuse_text(field_name):
    with pytest.raises(SbatchError, match=rf"JobSpec {field_name} 'no' is not True or False"):
        JobSpec(**{field_name: "no"})


def test_jobspec_flags_take_numpy_bools():
    assert JobSpec(hold=np.bool_(True)).hold is True


# -- docs item 3: Account users split at commas ---------------------------------------------------
def test_account_users_text_is_split_at_commas():
    """users="alice,bob" is two users, as sacctmgr's Users=alice,bob."""
    assert Account("llm", users="alice,bob").users == ("alice", "bob")
    assert Account("llm", users="alice, bob").users == ("alice", "bob")


def test_partition_default_takes_a_numpy_bool():
    assert Partition("p", ("n1",), default=np.bool_(True)).default is True
