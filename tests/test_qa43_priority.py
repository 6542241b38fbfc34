"""QA 43: priority/multifactor settings and views checked against the Slurm 22.05 source.

DEPTH_OBLIVIOUS fair share (priority_multifactor.c), the memory TRES factor without
consumable memory (job_mgr.c job_set_req_tres), TRESBillingWeights units
(slurm_protocol_api.c get_convert_unit_val), slurm.conf priority settings as read_config.c
reads them, sshare's row order (slurmdb_defs.c _sort_children_list) and sinfo's default
sort by raw node state (sinfo/sort.c).
"""

from __future__ import annotations

import warnings

import pytest
import yaml

import slurmlab
from slurmlab.errors import ConfigError
from slurmlab.policies.fairshare import Account, AccountTree, depth_oblivious_usage
from slurmlab.policies.priority import MultifactorWeights, parse_billing
from slurmlab.scenario import Scenario
from slurmlab.spec.cluster import Cluster, setting_problem, sinfo_state_value

NODES = "NodeName=n[1-4] CPUs=16 RealMemory=64000\nPartitionName=main Nodes=n[1-4] Default=YES\n"
NODES += "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"  # (as slurmlab models)


def conf(settings: str) -> Cluster:
    return Cluster.from_slurm_conf(f"PriorityType=priority/multifactor\n{settings}\n{NODES}")


def run(text: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Scenario.from_dict(yaml.safe_load(text)).run()


# -- 1. PriorityFlags=DEPTH_OBLIVIOUS -------------------------------------------------------------
DEPTH = """
cluster:
  nodes: [{name: "n[1-4]", cpus: 16, memory: 64000, gres: "gpu:4"}]
  partitions: [{name: gpu, nodes: "n[1-4]", max_time: "1-00:00:00", priority_job_factor: 1}]
  settings:
    PriorityType: priority/multifactor
    PriorityWeightAge: 1000
    PriorityWeightFairshare: 10000
    PriorityWeightJobSize: 1000
    PriorityWeightPartition: 1000
    PriorityWeightQOS: 10000
    PriorityMaxAge: "1:00:00"
    PriorityDecayHalfLife: "1:00:00"
    PriorityCalcPeriod: "1"
    GresTypes: gpu
    PriorityFlags: DEPTH_OBLIVIOUS
policy: slurm
accounts:
  - {name: llm, shares: 70, users: [alice, bob]}
  - {name: vision, shares: 30, users: [carol]}
qos:
  - {name: high, priority: 1000}
jobs:
  - {id: blocker, submit: 0, runtime: 1800, user: alice, args: "-N 4 --exclusive -t 1:00:00 -A llm"}
  - {id: a1, submit: 60, runtime: 60, user: alice, args: "-N 1 -n 4 -t 10 -A llm"}
  - {id: b1, submit: 60, runtime: 60, user: bob, args: "-N 2 -n 16 -t 10 -A llm"}
  - {id: c1, submit: 60, runtime: 60, user: carol, args: "-N 1 -n 1 -t 10 -A vision --qos=high"}
"""


def test_depth_oblivious_turns_fair_tree_off_and_is_modelled():
    """read_config.c: DEPTH_OBLIVIOUS clears PRIORITY_FLAGS_FAIR_TREE; it is not warned
    about as ignored."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        w = MultifactorWeights.from_cluster(conf("PriorityFlags=DEPTH_OBLIVIOUS"))
    assert (w.fair_tree, w.depth_oblivious) == (False, True)


def test_depth_oblivious_fair_share_as_slurm_computes_it():
    """alice used all of llm's usage: R_parent = 1 / (70/101), r = 2, so U_E = 1 and her
    factor 2^(-1 / (35/101)) = 0.1353; bob and carol, without usage, keep U_E = 0: 1.0
    (Fair Tree would rank them; classic would give bob 2^(-0.5 / (35/101)) = 0.3678)."""
    sprio = run(DEPTH).sprio(at=600).set_index("JOBID")
    assert sprio["FAIRSHARE"].to_dict() == {"a1": 1353, "b1": 10000, "c1": 10000}
    assert sprio.loc["b1", "PRIORITY"] == 11525


def test_depth_oblivious_damps_a_ratio_pulling_against_its_parent():
    """k = 1 / (1 + (5 ln R_parent)^2) when R_parent and r are on opposite sides of 1:
    parent R 2 (U_E 0.5 of S 0.25), r = (0.1/0.125) / (0.5/0.25) = 0.4. By hand:
    k = 1 / (1 + (5 x 0.693147)^2) = 0.076856, and U_E = R_parent x r^k x S =
    2 x 0.4^0.076856 x 0.125 = 2 x 0.932000 x 0.125 = 0.2330."""
    assert depth_oblivious_usage(0.1, 0.125, 0.5, 0.5, 0.25) == pytest.approx(0.2330, abs=1e-4)
    assert depth_oblivious_usage(0.0, 0.125, 0.5, 0.5, 0.25) == 0.0  # (no usage: U)


# -- 2. the memory TRES factor without consumable memory ---------------------------------------
TRES = """
cluster:
  nodes:
    - {name: "n[1-4]", cpus: 16, memory: 64000, gres: "gpu:4"}
    - {name: "c[1-4]", cpus: 32, memory: 128000}
  partitions:
    - {name: gpu, nodes: "n[1-4]", max_time: "1-00:00:00"}
    - {name: cpu, nodes: "c[1-4]", max_time: "1-00:00:00"}
  settings:
    PriorityType: priority/multifactor
    PriorityWeightTRES: "CPU=1000,Mem=2000,Node=3000,GRES/gpu=4000"
    GresTypes: gpu
policy: slurm
jobs:
  - {id: blocker, submit: 0, runtime: 1800, user: alice, args: "-N 4 --exclusive -t 60 -p gpu"}
  - {id: blocker2, submit: 0, runtime: 1800, user: alice, args: "-N 4 --exclusive -t 60 -p cpu"}
  - {id: j1, submit: 10, runtime: 60, user: bob, args: "-N 1 -n 4 --gres=gpu:2 --mem=8000 -p gpu"}
  - {id: j2, submit: 10, runtime: 60, user: bob, args: "-n 40 --mem-per-cpu=1000 -t 10 -p cpu"}
"""


def test_the_memory_factor_counts_the_memory_asked_for_when_memory_is_not_consumable():
    """No SelectTypeParameters *_Memory: the job's ReqTRES memory still counts (j1 8000 of
    the gpu partition's 256000 MB: 2000 x 8000/256000 = 62.5; j2 40 x 1000 of 512000:
    156.25)."""
    sprio = run(TRES).sprio(at=30).set_index("JOBID")
    assert sprio.loc["j1", "TRES"] == "cpu=62,mem=62,node=750,gres/gpu=500"
    assert sprio.loc["j2", "TRES"] == "cpu=312,mem=156,node=750"


# -- 3. TRESBillingWeights units -----------------------------------------------------------------
def test_billing_weight_units_as_get_convert_unit_val():
    """Mem is in MB (UNIT_MEGA): K and M leave the weight as written, G divides by 1024, T
    by 1024^2, P by 1024^3; other TRES are counts (UNIT_NONE): K divides by 1024."""
    mem = {u: parse_billing(f"Mem=1{u}")["mem"] for u in "KMGTP"}
    assert mem == {"K": 1.0, "M": 1.0, "G": 1 / 1024, "T": 1 / 1024**2, "P": 1 / 1024**3}
    assert parse_billing("CPU=2K,GRES/gpu=1m") == {"cpu": 2 / 1024, "gres/gpu": 1 / 1024**2}
    assert setting_problem("TRESBillingWeights", "CPU=1.0,Mem=0.5P") is None
    assert "not a unit" in setting_problem("TRESBillingWeights", "Mem=1X")
    assert "overflows" in setting_problem("TRESBillingWeights", "CPU=1T")


# -- 4. slurm.conf priority settings -------------------------------------------------------------
@pytest.mark.parametrize("word", ["true", "1", "UP", "yes"])
def test_priority_favor_small_is_a_slurm_boolean(word):
    """read_config.c reads PriorityFavorSmall as S_P_BOOLEAN (yes/true/1/up)."""
    assert MultifactorWeights.from_cluster(conf(f"PriorityFavorSmall={word}")).favor_small


@pytest.mark.parametrize("word", ["false", "0", "down", "NO"])
def test_priority_favor_small_false_words(word):
    assert not MultifactorWeights.from_cluster(conf(f"PriorityFavorSmall={word}")).favor_small


def test_a_bad_priority_favor_small_names_line_value_and_words():
    with pytest.raises(ConfigError, match=r"line 2: PriorityFavorSmall='maybe' is not a boolean"):
        conf("PriorityFavorSmall=maybe")


def test_a_zero_half_life_needs_a_usage_reset_period():
    """read_config.c: "You have to either have PriorityDecayHalfLife != 0 or
    PriorityUsageResetPeriod set to something" (any value, NONE too)."""
    with pytest.raises(ConfigError, match=r"PriorityDecayHalfLife=0 \(slurm.conf line 2\) with no"):
        conf("PriorityDecayHalfLife=0")
    with pytest.raises(slurmlab.SlurmlabError, match="PriorityUsageResetPeriod=NONE"):
        Cluster("c", conf("").nodes, conf("").partitions, {"PriorityDecayHalfLife": "0:0"})
    w = MultifactorWeights.from_cluster(
        conf("PriorityDecayHalfLife=0\nPriorityUsageResetPeriod=NONE")
    )
    assert w.decay_half_life == 0


def test_priority_calc_period_is_at_least_a_minute():
    """read_config.c refuses calc_period < 1 (minutes, rounded up by time_str2mins): 0 and
    UNLIMITED are errors, 0:30 is one minute."""
    for value in ("0", "UNLIMITED"):
        with pytest.raises(ConfigError, match=rf"line 2: PriorityCalcPeriod='{value}'"):
            conf(f"PriorityCalcPeriod={value}")
    assert MultifactorWeights.from_cluster(conf("PriorityCalcPeriod=0:30")).calc_period == 60


# -- 5. sshare's row order -----------------------------------------------------------------------
def test_sshare_lists_users_then_sub_accounts_each_by_name():
    """_sort_children_list: under each account its users first, then its sub-accounts, each
    group in name order; the root user first under root."""
    tree = AccountTree(
        [
            Account("zeta", 10, users=("zoe", "adam")),
            Account("alpha", 10, users=("bea",)),
            Account("zeta-sub", 5, parent="zeta", users=("carl",)),
        ],
        root_user=True,
    )
    assert list(tree.preorder()) == [
        "root", "root/root", "alpha", "alpha/bea", "zeta", "zeta/adam", "zeta/zoe",
        "zeta-sub", "zeta-sub/carl",
    ]  # fmt: skip
    result = run(
        """
cluster:
  nodes: [{name: "n[1-2]", cpus: 16, memory: 64000}]
  partitions: [{name: p, nodes: "n[1-2]", max_time: "1-00:00:00"}]
  settings: {PriorityType: priority/multifactor, PriorityWeightFairshare: 1000}
policy: slurm
accounts:
  - {name: zeta, shares: 10, users: [zoe, adam]}
  - {name: alpha, shares: 10, users: [bea]}
  - {name: zeta-sub, parent: zeta, shares: 5, users: [carl]}
jobs:
  - {id: j, submit: 0, runtime: 60, user: zoe, args: "-n 1 -t 10 -A zeta"}
"""
    )
    frame = result.sshare(at=30)
    assert list(zip(frame["Account"], frame["User"], strict=True)) == [
        ("root", ""), ("root", "root"), ("alpha", ""), ("alpha", "bea"), ("zeta", ""),
        ("zeta", "adam"), ("zeta", "zoe"), ("zeta-sub", ""), ("zeta-sub", "carl"),
    ]  # fmt: skip


# -- 6. sinfo's default sort ---------------------------------------------------------------------
def test_sinfo_sorts_by_the_raw_node_state_with_its_flags():
    """sort.c "#P,-t" compares node_state with its flag bits: down* (DOWN|NO_RESPOND,
    0x801), resv (IDLE|RES, 0x22), mix (5), alloc (3)."""
    lab = slurmlab.Lab("tiny")
    lab.sbatch("-n 1 -t 1:00:00")
    lab.sbatch("-N 1 --exclusive -t 1:00:00")
    lab.reserve("r1", "2h", node_count=1, users="root")
    lab.fail("node4")
    assert list(lab.sinfo()["STATE"]) == ["down*", "resv", "mix", "alloc"]


def test_sinfo_state_values():
    assert [sinfo_state_value(s) for s in ("down*", "drain", "drng", "maint", "alloc$")] == [
        0x801, 0x202, 0x203, 0x8022, 0x8023,
    ]  # fmt: skip
    assert sinfo_state_value("bogus") == -1


def test_sshare_text_indents_as_sshare_does():
    """sshare indents each account one space per level below root and its users one more
    (the real fixture: ' llm', '  llm|alice')."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "datasets" / "realslurm"
    real = (root / "accounts-qos" / "snapshots.txt").read_text().splitlines()
    start = real.index("$ sshare -a -l -P") + 2
    want = []
    for line in real[start:]:
        if not line or line.startswith("$"):
            break
        want.append(line.split("|")[0])
    result = slurmlab.Scenario.load(root / "scenarios" / "accounts-qos.yaml").run()
    # (after the header and print_fields_header's line of dashes)
    got = [line[:8].rstrip() for line in result.sshare_text(at=10).splitlines()[2:]]
    assert got == want
