"""Usage accounting and job priority under priority/multifactor.

Every PriorityCalcPeriod the controller decays each association's usage by the
half-life, adds the billed TRES-seconds of running jobs, recomputes fair share
(classic or Fair Tree), and recomputes every pending job's priority. A job that ends is
charged the rest of its usage at once (slurmctld's ``priority_p_job_end``). Snapshots
kept at each recalculation, and the charges of jobs ended since, give ``sprio`` and
``sshare`` at any simulated time.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import replace

import numpy as np
import pandas as pd

from slurmlab.policies.fairshare import (
    AccountTree,
    billed_tres,
    classic_fairshare,
    decay_factor,
    fair_tree,
)
from slurmlab.policies.priority import (
    Factors,
    MultifactorWeights,
    age_factor,
    billing_weights,
    job_size_factor,
    partition_tres,
    tres_factors,
)
from slurmlab.spec.qos import Qos
from slurmlab.spec.units import tick_at_or_after, tick_at_or_before

__all__ = ["PriorityState"]


class PriorityState:
    """Fair-share usage, factors and snapshots for one simulation."""

    def __init__(
        self,
        cluster,
        weights: MultifactorWeights,
        tree: AccountTree,
        qos: dict[str, Qos],
        *,
        ctld_start: float = 0.0,
    ):
        self.w = weights
        #: slurmctld's start (seconds, <= 0): the decay thread's grid (:meth:`last_recalc`)
        self.ctld_start = ctld_start
        self.tree = tree
        self.qos = qos
        self.total_nodes = len(cluster.nodes)
        self.total_cpus = sum(n.cpus for n in cluster.nodes)
        self.node_cpus = np.array([n.cpus for n in cluster.nodes])
        self.max_qos = max([q.priority for q in qos.values()] + [0])
        self.max_part = max(p.priority_job_factor for p in cluster.partitions)
        self.part_factor = {p.name: p.priority_job_factor for p in cluster.partitions}
        self.part_tres = {p.name: partition_tres(cluster, p.name) for p in cluster.partitions}
        self.billing = billing_weights(cluster)
        self.usage: dict[str, float] = {}
        self.last_tick = 0.0
        self.fs: dict[str, dict[str, float]] = {}
        self.snapshots: list[tuple[float, dict[str, float], dict[str, dict[str, float]]]] = []
        # (time, association, usage) charged by each job as it ended, and how many of those
        # charges each snapshot's usage holds
        self.end_charges: list[tuple[float, str, float]] = []
        self._charges_in: list[int] = []
        #: classic fair share: the usage the accounts' EffectvUsage came from at each
        #: snapshot (None: the same as the users')
        self._accounts_in: list[dict[str, float] | None] = []
        self.recompute(0.0)

    # -- the decay thread's grid ---------------------------------------------------------------
    def last_recalc(self, t: float) -> float:
        """When the decay thread last ran at or before ``t``.

        priority_multifactor.c ``_decay_thread`` runs once as it starts (in priority_g_init,
        just before controller.c starts ``_slurmctld_background``), then sleeps until its
        first run's time plus PriorityCalcPeriod, again and again (``abs.tv_sec +=
        priority_calc_period``: an absolute grid, however long a run took), so it runs every
        PriorityCalcPeriod from slurmctld's start (``ctld_start``)."""
        return tick_at_or_before(t, self.w.calc_period, self.ctld_start)

    def next_recalc(self, t: float) -> float:
        """The decay thread's next run after ``t`` (strictly later: see :meth:`last_recalc`)."""
        return self.last_recalc(t) + self.w.calc_period

    # -- usage ---------------------------------------------------------------------------------
    def billing_rate(self, job) -> float:
        """Billed TRES per second of a running job's allocation (its partition's
        TRESBillingWeights, summed or, with PriorityFlags=MAX_TRES, their maximum; default:
        its CPUs), from the TRES sacct shows in its AllocTRES."""
        alloc = job.res.allocated(job.usage)
        return billed_tres(alloc, self.billing.get(job.partition, {}), max_tres=self.w.max_tres)

    def charge(self, job, now: float) -> None:
        """Charge a job that ends now with its usage since it was last charged.

        sshare shows it at once; fair share and priorities take it in at the next
        recalculation, as in slurmctld.
        """
        used = self._charge(job, now)
        if used:
            self.end_charges.append((now, job.assoc, used))

    def _charge(self, job, now: float) -> float:
        """Add the job's usage since it was last charged to its association; return it."""
        if job.assoc is None or job.start is None:
            return 0.0
        since = max(job.start, job.charged)
        if now <= since:
            return 0.0
        used = self.billing_rate(job) * (now - since)
        self.usage[job.assoc] = self.usage.get(job.assoc, 0.0) + used
        job.charged = now
        return used

    def tick(self, now: float, running) -> None:
        """Decay usage to ``now``, charge running jobs, recompute fair share, snapshot.
        Classic fair share takes the accounts' usage from before the decay and the charges
        (see :func:`classic_fairshare`'s ``account_usage``)."""
        before = None if self.w.fair_tree else dict(self.usage)
        d = decay_factor(now - self.last_tick, self.w.decay_half_life)
        for k in self.usage:
            self.usage[k] *= d
        for job in running:
            self._charge(job, now)
        self.last_tick = now
        self.recompute(now, before)

    def recompute(self, now: float, accounts_from: dict[str, float] | None = None) -> None:
        self.fs = self._fair_share(self.usage, accounts_from)
        self.snapshots.append((now, dict(self.usage), self.fs))
        self._charges_in.append(len(self.end_charges))
        self._accounts_in.append(accounts_from)

    def _fair_share(
        self, usage: dict[str, float], accounts_from: dict[str, float] | None = None
    ) -> dict[str, dict[str, float]]:
        if self.w.fair_tree:
            return fair_tree(self.tree, usage)
        return self._classic(usage, accounts_from)

    def _classic(
        self, usage: dict[str, float], accounts_from: dict[str, float] | None = None
    ) -> dict[str, dict[str, float]]:
        """Classic fair share, depth-oblivious under PriorityFlags=DEPTH_OBLIVIOUS; the
        accounts' from ``accounts_from``, the usage before the recalculation's decay and
        charges (see :func:`classic_fairshare`)."""
        return classic_fairshare(
            self.tree,
            usage,
            self.w.dampening,
            depth_oblivious=self.w.depth_oblivious,
            account_usage=accounts_from,
        )

    def fairshare(self, assoc: str | None) -> float:
        """The fair-share factor of an association at the last recalculation.

        An implicit user association (see :meth:`AccountTree.resolve`) made since then is
        ranked as if it had existed at that recalculation, as a ``sacctmgr``-made one would
        have been: the factors are worked out again from the usage of that moment.
        """
        if assoc is None:
            return 0.0
        if assoc not in self.fs:
            self.fs = self._fair_share(self.snapshots[-1][1], self._accounts_in[-1])
        return self.fs.get(assoc, {}).get("FairShare", 0.0)

    # -- factors -------------------------------------------------------------------------------
    def factors(self, job, now: float, *, at_submit: bool = False) -> Factors:
        """A job's factors now. Job size and the TRES factor count the CPUs and nodes asked
        for, as slurmctld's min_cpus and min_nodes: a job that fixed no node count (``-n 40``
        alone) counts one node and its tasks' CPUs, whatever nodes it will get
        (priority_multifactor.c, job_set_req_tres). An ``--exclusive`` job counts its nodes'
        whole CPUs from the first recalculation on, as slurmctld does once it has expanded
        the request (at submission it still counts what was asked)."""
        wait = now - job.eligible if job.eligible is not None else 0.0
        q = self.qos.get(job.qos)
        amounts = self._amounts(job, at_submit)
        return Factors(
            age=age_factor(wait, self.w.max_age),
            fairshare=self.fairshare(job.assoc),
            jobsize=job_size_factor(
                amounts["node"],
                amounts["cpu"],
                self.total_nodes,
                self.total_cpus,
                self.w.favor_small,
            ),  # fmt: skip
            partition=self._partition_factor(job.partition),
            qos=(q.priority / self.max_qos) if q and self.max_qos else 0.0,
            nice=job.spec.nice,
            tres=self._tres_factors(amounts, job.partition),
        )

    def in_partition(self, f: Factors, job, partition: str) -> Factors:
        """``f``, a job's factors, in another of its partitions (``-p a,b``): the partition
        factor and the TRES factors are per partition (priority_multifactor.c's
        priority_array, one priority per partition); the others are the job's."""
        return replace(
            f,
            partition=self._partition_factor(partition),
            tres=self._tres_factors(self._amounts(job, False), partition),
        )

    def _amounts(self, job, at_submit: bool) -> dict[str, float]:
        """The TRES the job asks for, as the job size and TRES factors count them. Memory
        is the memory asked for, as in ReqTRES, even where it is no consumable resource
        (SelectTypeParameters without *_Memory): slurmctld's ``job_set_req_tres`` counts a
        pending job's pn_min_memory whatever the select type, and ``_get_tres_factors``
        divides that by the partition's memory."""
        res = job.res
        nodes = res.req_nodes or 1
        if res.req_nodes is None:  # (the CPUs asked for, not the shape's on every node)
            cpus = res.req_cpus or int(job.demand[0])
        else:
            cpus = int(job.demand[0]) * job.count
        if job.exclusive and not at_submit and job.mask.any():  # (no node fits a job that
            cpus = int(self.node_cpus[job.mask].max()) * job.count  # pends for ever)
        if (
            job.most is not None
            and not at_submit
            and job.requests is None
            and (job.reason in ("Resources", "Priority") or job.reason.startswith(("QOS", "Assoc")))
            and job.mask.any()
        ):
            # -N MIN-MAX queued (its turn, or a QOS or association limit): the CPUs of the
            # nodes slurmctld's last test of it gave it (job_ptr->total_cpus, which
            # cons_common's job_test sets on every successful test). Waiting for its turn:
            # those of backfill's plan for it (the will-run test; squeue --start's
            # SCHEDNODES) while it has one (real Slurm: -N 1-2 planned on one node, sprio
            # JOBSIZE 87, not the 91 of two; mix-12's j29 planned on gpu[1,4]: 91).
            # Else, and while a QOS or association limit holds it (real Slurm then shows
            # no plan: the main scheduler's test on its partition as if idle comes last,
            # _pick_best_nodes TEST_ONLY, at submission too), up to MAX of its nodes that
            # fit it, as squeue's NODES shows them (the node-range and limits-busy
            # fixtures). Priority set at submission comes before any test: its minimum.
            turn = job.reason in ("Resources", "Priority")
            plan = job.sched[-1][1] if job.sched and turn else None
            if plan:
                if job.exclusive:
                    cpus = int(self.node_cpus[list(plan)].sum())
                else:
                    cpus = int(job.demand[0]) * len(plan)
            else:
                per = int(self.node_cpus[job.mask].max()) if job.exclusive else int(job.demand[0])
                cpus = per * job.nodes_guess()
        return {
            "cpu": cpus,
            "mem": float((job.req_tres or res.requested())["mem"]),
            "node": nodes,
            # (-N k --gpus=M: M, dealt over its nodes, more than its 1 per node)
            "gres/gpu": float(max(int(job.demand[2]) * job.count, job.gpus_per_job)),
        }

    def _partition_factor(self, partition: str) -> float:
        return self.part_factor.get(partition, 1) / self.max_part if self.max_part else 0.0

    def _tres_factors(self, amounts: dict[str, float], partition: str) -> dict[str, float]:
        if not self.w.tres:
            return {}
        return tres_factors(amounts, self.part_tres.get(partition, {}))

    # -- views ---------------------------------------------------------------------------------
    def _snapshot_index(self, t: float) -> int:
        times = [s[0] for s in self.snapshots]
        return max(bisect_right(times, t) - 1, 0)

    def snapshot_at(self, t: float):
        """(time, usage, fair share) of the last recalculation at or before ``t``."""
        return self.snapshots[self._snapshot_index(t)]

    def _usage_at(self, t: float) -> tuple[dict[str, float], dict[str, float]]:
        """The usage at the last recalculation at or before ``t``, and the usage at ``t``
        itself (sshare's RawUsage), which adds the charges of the jobs that ended since.

        slurmctld recalculates every PriorityCalcPeriod even on an idle cluster; the
        simulation stops recalculating while nothing runs or waits, so the recalculations
        it skipped are made here: usage decays at each of them, and charges made before one
        count in it.
        """
        i = self._snapshot_index(t)
        when, usage, _fs = self.snapshots[i]
        period, half_life = self.w.calc_period, self.w.decay_half_life
        last = max(when, self.last_recalc(t))
        d = decay_factor(last - when, half_life)
        at_last = {k: v * d for k, v in usage.items()}
        now = dict(at_last)
        for c, key, used in self.end_charges[self._charges_in[i] :]:
            if c > t:
                break
            if c <= last:  # decayed from the recalculation before it on
                # (the last recalculation before the charge)
                before = max(when, tick_at_or_after(c, period, self.ctld_start) - period)
                used *= decay_factor(last - before, half_life)
                at_last[key] = at_last.get(key, 0.0) + used
            now[key] = now.get(key, 0.0) + used
        return at_last, now

    def sshare(self, t: float) -> pd.DataFrame:
        """``sshare -a -l``: Account, User, RawShares, NormShares, RawUsage, NormUsage,
        EffectvUsage, FairShare, LevelFS -- with real sshare's meanings.

        Under Fair Tree (checked against real Slurm 22.05 in datasets/realslurm) NormShares
        and EffectvUsage are an association's share of its siblings' shares and usage, and
        FairShare is shown for users only; with PriorityFlags=NO_FAIR_TREE (or
        DEPTH_OBLIVIOUS) NormShares is the product down the tree and EffectvUsage the classic
        (or depth-oblivious) effective usage. NormUsage is usage over the whole cluster's.
        Rows come in sshare's order: under each account its users, then its sub-accounts,
        each by name (slurmdb_defs.c ``_sort_children_list``).

        RawUsage is the usage at ``t``: a job that ended since the last recalculation is
        in it already. The other columns are those of the last recalculation (real sshare
        shows the NormUsage, EffectvUsage, LevelFS and FairShare the decay thread computed).
        """
        usage, raw_usage = self._usage_at(t)
        i = self._snapshot_index(t)
        # (a recalculation skipped while idle charged nothing)
        skipped = max(self.snapshots[i][0], self.last_recalc(t)) > self.snapshots[i][0]
        classic = self._classic(usage, None if skipped else self._accounts_in[i])
        tree_fs = fair_tree(self.tree, usage) if self.w.fair_tree else None
        sub = self.tree.subtree_usage(usage)
        raw = self.tree.subtree_usage(raw_usage)
        total = sub["root"]
        rows = [
            {
                "Account": "root", "User": "", "RawShares": None,
                "NormShares": 0.0 if tree_fs is not None else 1.0, "RawUsage": int(raw["root"]),
                "NormUsage": None, "EffectvUsage": 1.0, "FairShare": None, "LevelFS": None,
            }
        ]  # fmt: skip
        for key in self.tree.preorder():  # (sshare's order: users, then sub-accounts)
            if key == "root":
                continue
            acct, _, user = key.partition("/")
            c = classic[key]
            if tree_fs is None:
                norm_shares, effective, fs = c["NormShares"], c["EffectvUsage"], c["FairShare"]
            else:
                sibs = self.tree.children[self.tree.parent[key]]
                s_tot = sum(self.tree.shares[x] for x in sibs)
                u_tot = sum(sub[x] for x in sibs)
                norm_shares = self.tree.shares[key] / s_tot if s_tot else 0.0
                effective = sub[key] / u_tot if u_tot else 0.0
                fs = tree_fs[key].get("FairShare") if user else None
            rows.append(
                {
                    "Account": acct,
                    "User": user,
                    "RawShares": self.tree.shares[key],
                    "NormShares": norm_shares,
                    "RawUsage": int(raw[key]),
                    # (classic: an account's as the decay thread set it, see _classic)
                    "NormUsage": c["NormUsage"]
                    if tree_fs is None
                    else (sub[key] / total if total else 0.0),
                    "EffectvUsage": effective,
                    "FairShare": fs,
                    "LevelFS": tree_fs[key].get("LevelFS") if tree_fs is not None else None,
                }
            )
        return pd.DataFrame(rows)
