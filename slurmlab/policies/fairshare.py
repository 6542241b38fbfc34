"""Fair share: who has used less than their share gets to go first.

An account tree (root -> accounts -> users) carries RawShares (a user association has 1
share; a user charging an account that lists no users gets such an association made on
first use, since every Slurm job runs under a user association); usage is billed
TRES-seconds (:func:`billed_tres`: CPUs, or the TRESBillingWeights-weighted sum, or
their maximum under PriorityFlags=MAX_TRES), decayed with a half-life. Two algorithms
turn usage into a factor in [0, 1]:

* classic (classic_fair_share.html): NormShares S = product of shares_self /
  shares_siblings down the path; normalized usage U = usage / root usage;
  effective usage U_E = U_A + (U_E,parent - U_A) * S_self/S_siblings, top-down
  (first-tier accounts use their actual usage); F = 2^(-U_E / S / d).
  PriorityFlags=DEPTH_OBLIVIOUS keeps F but computes U_E so that depth in the tree does
  not weigh on it (:func:`depth_oblivious_usage`).
* Fair Tree (fair_tree.html, Slurm's default): at each level siblings are ranked
  by Level Fairshare LF = S / U (S = shares among siblings, U = usage among
  siblings; no shares is LF 0, the least fair, used or not; otherwise zero usage is
  infinitely fair); a depth-first walk in that order
  numbers the users from the top, and a user's factor is rank / number of users
  (the first gets 1.0). Users with equal LF share a rank.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real

from slurmlab.errors import SlurmlabError
from slurmlab.spec.qos import parse_name_list, parse_tres_limits
from slurmlab.spec.units import MAX_COUNT, parse_whole

__all__ = [
    "Account",
    "AccountTree",
    "billed_tres",
    "classic_fairshare",
    "decay_factor",
    "fair_tree",
]


@dataclass(frozen=True, slots=True)
class Account:
    """An account with its RawShares, parent account, users (each a user association with
    one share), GrpTRES limits and MaxJobs, as ``sacctmgr add account`` makes it.

    RawShares is a whole number >= 0, as Slurm's Fairshare (``sacctmgr add account physics
    fairshare=70``; an integer in slurmdbd); 0 gives the account the lowest fair share.
    ``users`` is a list, or one string split at commas as sacctmgr's ``Users=alice,bob``
    (``"alice,bob"`` is two users); ``grp_tres`` is read as a QOS's (``"gres/gpu=8"`` or
    ``{"gpu": 8}``; an unknown TRES is an error).
    """

    name: str
    shares: int = 1
    parent: str | None = "root"
    users: tuple[str, ...] = ()
    grp_tres: Mapping[str, int] = field(default_factory=dict)
    max_jobs: int | None = None

    def __post_init__(self):
        # sacctmgr lower-cases account names (slurm_addto_char_list), and slurmctld a job's
        # account: Account("LLM") is account llm, which -A LLM and -A llm both name
        if not isinstance(self.name, str) or not self.name:
            raise SlurmlabError(
                f"account: name {self.name!r} is not an account name; give e.g. Account('llm')"
            )
        object.__setattr__(self, "name", self.name.lower())
        if self.parent is not None and not isinstance(self.parent, str):
            raise SlurmlabError(
                f"account {self.name!r}: parent {self.parent!r} is not an account name; give "
                "e.g. parent='root'"
            )
        if isinstance(self.parent, str):
            object.__setattr__(self, "parent", self.parent.lower())
        object.__setattr__(self, "shares", _raw_shares(self.name, self.shares))
        # a list, or a string split at commas, as sacctmgr's Users=alice,bob (and a QOS's
        # preempt, a reservation's users): "alice,bob" is two users, never its letters
        object.__setattr__(
            self, "users", parse_name_list(self.users, what=f"account {self.name!r} users")
        )
        # GrpTRES as a QOS reads it: "gres/gpu=8,cpu=64" or a mapping; an unknown TRES is
        # an error, never a limit silently left out
        object.__setattr__(
            self,
            "grp_tres",
            parse_tres_limits(self.grp_tres, what=f"account {self.name!r} grp_tres"),
        )
        if self.max_jobs is not None:
            what = f"account {self.name!r} max_jobs"
            n = parse_whole(self.max_jobs, what=what, maximum=MAX_COUNT)
            object.__setattr__(self, "max_jobs", n)
        twice = next((u for u in self.users if self.users.count(u) > 1), None)
        if twice is not None:
            raise SlurmlabError(f"account {self.name!r}: user {twice!r} is listed twice")


def _raw_shares(account: str, shares) -> int:
    """An account's RawShares as an int: a whole number >= 0 (70, or 70.0), else an error
    naming the account, the value and the fix."""
    fix = f"give a whole number like 1 or 70 (as sacctmgr add account {account} fairshare=70)"
    number = isinstance(shares, Real) and not isinstance(shares, bool)  # (numpy's too)
    if isinstance(shares, str) and shares.strip().lower() == "parent":
        raise SlurmlabError(
            f"account {account!r}: shares 'parent' (sacctmgr's Fairshare=parent: use the "
            f"parent's fair share) is not modelled by slurmlab; {fix}"
        )
    if not number or (not isinstance(shares, Integral) and not float(shares).is_integer()):
        raise SlurmlabError(
            f"account {account!r}: shares {shares!r} is not a whole number (Slurm's Fairshare "
            f"is an integer); {fix}"
        )
    if shares < 0:
        raise SlurmlabError(f"account {account!r}: shares {shares!r} must not be negative; {fix}")
    return int(shares)


def user_key(account: str, user: str) -> str:
    return f"{account}/{user}"


class AccountTree:
    """root -> accounts -> users. Association keys: account names and ``account/user``.

    Each user of an account is a leaf with 1 share (Slurm's default user Fairshare=1).
    When no account lists users, a user's leaf is made the first time :meth:`resolve`
    charges an account for them (the association ``sacctmgr add user`` would have made).
    ``root_user`` adds the association a real cluster always has: user ``root`` in account
    ``root`` with 1 share, a sibling of the top-level accounts (it shifts NormShares to
    70/101 for shares 70 and 30, and counts in Fair Tree's ranks, as in real sshare/sprio).
    """

    def __init__(self, accounts: Sequence[Account] = (), *, root_user: bool = False):
        self.accounts = {a.name: a for a in accounts}
        self.models_users = any(a.users for a in accounts)
        if "root" in self.accounts:
            raise SlurmlabError("account 'root' is implicit; do not declare it")
        self.children: dict[str, list[str]] = {"root": []}
        self.shares: dict[str, float] = {"root": 1.0}
        self.parent: dict[str, str | None] = {"root": None}
        for a in accounts:
            p = a.parent or "root"
            if p != "root" and p not in self.accounts:
                raise SlurmlabError(f"account {a.name!r}: parent {p!r} is not declared")
        for a in accounts:
            self._add(a.name, a.parent or "root", a.shares)
        for a in accounts:
            for u in a.users:
                self._add(user_key(a.name, u), a.name, 1.0)
        if root_user:  # sacctmgr always has user root in account root, with 1 share
            self._add(user_key("root", "root"), "root", 1.0)
            self.children["root"].insert(0, self.children["root"].pop())  # listed first
        self._check_cycles()

    def _add(self, key: str, parent: str, shares: float) -> None:
        self.children.setdefault(parent, []).append(key)
        self.children.setdefault(key, [])
        self.shares[key] = shares
        self.parent[key] = parent

    def _check_cycles(self) -> None:
        for key in self.parent:
            seen, k = set(), key
            while k is not None:
                if k in seen:
                    raise SlurmlabError(f"account tree has a cycle through {k!r}")
                seen.add(k)
                k = self.parent.get(k)

    def is_user(self, key: str) -> bool:
        return "/" in key

    def association(self, account: str | None, user: str) -> str | None:
        """The user's leaf under ``account`` (or the first account listing the user).

        None when the user has no association there: an explicit ``-A`` naming an account
        that does not exist is not silently replaced by the user's default account, and once
        any account lists users (the tree models Slurm's user associations, as with
        ``AccountingStorageEnforce=associations``) a user may charge only an account that
        lists them. A tree whose accounts list no users at all leaves the user associations
        implicit: any user may charge any account, through ``account/user`` (which
        :meth:`resolve` adds to the tree).
        """
        if account and user_key(account, user) in self.shares:
            return user_key(account, user)
        if account in self.accounts:
            return None if self.models_users else user_key(account, user)
        if account and account != "root":
            return None
        for a in self.accounts.values():
            if user in a.users:
                return user_key(a.name, user)
        # no account lists users: a job without -A charges root, through root/user
        return None if self.models_users else user_key("root", user)

    def resolve(self, user: str, account: str | None) -> tuple[str, str | None]:
        """The account a job of ``user`` charges (``-A``, else the user's default account,
        else root) and its association (None: Slurm rejects the job, "Invalid account or
        account/partition combination specified"). An implicit user association is added
        to the tree here, with 1 share, the first time it is charged."""
        account = (account or "").lower() or self.default_account(user) or "root"
        assoc = self.association(account, user)
        if assoc is not None and assoc not in self.shares:
            self._add(assoc, account, 1.0)
        return account, assoc

    def default_account(self, user: str) -> str | None:
        for a in self.accounts.values():
            if user in a.users:
                return a.name
        return None

    def path(self, key: str) -> list[str]:
        out = []
        while key is not None:
            out.append(key)
            key = self.parent[key]
        return out[::-1]

    def subtree_usage(self, usage: Mapping[str, float]) -> dict[str, float]:
        """Usage of every association including its descendants (root = everything)."""
        total: dict[str, float] = {}

        def walk(k):
            s = usage.get(k, 0.0) + sum(walk(c) for c in self.children[k])
            total[k] = s
            return s

        walk("root")
        return total

    def norm_shares(self) -> dict[str, float]:
        """NormShares: product of shares_self / shares_siblings from root down."""
        out = {"root": 1.0}
        for k in self.preorder():
            if k == "root":
                continue
            p = self.parent[k]
            sib = sum(self.shares[c] for c in self.children[p])
            out[k] = out[p] * (self.shares[k] / sib if sib else 0.0)
        return out

    def preorder(self):
        """Every association, parents before children, in sshare's order: under each account
        its users, then its sub-accounts, each in name order (slurmdb_defs.c
        ``_sort_children_list``, which orders slurmctld's association list).

        >>> tree = AccountTree([Account("zeta", users="zoe,adam"), Account("alpha"),
        ...                     Account("sub", parent="zeta")])
        >>> list(tree.preorder())
        ['root', 'alpha', 'zeta', 'zeta/adam', 'zeta/zoe', 'sub']
        """
        stack = ["root"]
        while stack:
            k = stack.pop()
            yield k
            stack.extend(reversed(self.sorted_children(k)))

    def sorted_children(self, key: str) -> list[str]:
        """The associations under ``key``: users first, then accounts, each by name."""
        return sorted(self.children[key], key=lambda c: (not self.is_user(c), c.rpartition("/")[2]))


def _node_tres(name: str) -> bool:
    """TRES counted on nodes (cpu, mem, node, gres/...); the rest (licenses, burst buffers)
    are global."""
    return name in ("cpu", "mem", "node") or name.startswith("gres/")


def billed_tres(
    alloc: Mapping[str, float], weights: Mapping[str, float], *, max_tres: bool = False
) -> float:
    """The billing TRES of an allocation: what one second of it adds to fair-share usage.

    ``alloc`` holds the job's TRES (``cpu``, ``mem`` in MB, ``node``, ``gres/gpu``);
    ``weights`` are TRESBillingWeights per unit (memory per MB). Without weights a job is
    billed its CPUs. Otherwise the sum of weight x amount, or, with PriorityFlags=MAX_TRES
    (slurm.conf(5)), the MAX of the weighted node TRES (cpu, mem, node, gres) plus the sum
    of the weighted global TRES (e.g. licenses).

    >>> alloc = {"cpu": 16, "mem": 0, "node": 1, "gres/gpu": 4}
    >>> billed_tres(alloc, {}), billed_tres(alloc, {"cpu": 1.0, "gres/gpu": 10.0})
    (16.0, 56.0)
    >>> billed_tres(alloc, {"cpu": 1.0, "gres/gpu": 10.0}, max_tres=True)
    40.0
    """
    if not weights:
        return float(alloc.get("cpu", 0.0))
    weighted = {t: w * float(alloc.get(t, 0.0)) for t, w in weights.items()}
    if not max_tres:
        return float(sum(weighted.values()))
    on_nodes = [v for t, v in weighted.items() if _node_tres(t)]
    return max(on_nodes, default=0.0) + sum(v for t, v in weighted.items() if not _node_tres(t))


def decay_factor(seconds: float, half_life: float) -> float:
    """Usage multiplier after ``seconds`` with the given half-life (0: no decay)."""
    if half_life <= 0:
        return 1.0
    return 2.0 ** (-seconds / half_life)


def classic_fairshare(
    tree: AccountTree,
    usage: Mapping[str, float],
    dampening: float = 1.0,
    *,
    depth_oblivious: bool = False,
    account_usage: Mapping[str, float] | None = None,
) -> dict[str, dict[str, float]]:
    """Classic fair share per association: NormShares, NormUsage, EffectvUsage, FairShare.

    ``depth_oblivious`` (PriorityFlags=DEPTH_OBLIVIOUS) computes EffectvUsage below the
    first tier with :func:`depth_oblivious_usage` instead of the classic formula.

    ``account_usage``: the usage the accounts' (non-user associations') NormUsage and
    EffectvUsage come from, when it is not ``usage``. slurmctld's decay thread sets them
    first (priority_multifactor.c ``_set_children_usage_efctv``), then decays usage and
    charges the running jobs, and computes each user's from the usage then, with its
    account's as set before: the accounts lag one PriorityCalcPeriod behind.
    """
    sub = tree.subtree_usage(usage)
    root = sub["root"]
    norm_u = {k: (v / root if root > 0 else 0.0) for k, v in sub.items()}
    if account_usage is not None:
        sub_a = tree.subtree_usage(account_usage)
        root_a = sub_a["root"]
        for k, v in sub_a.items():
            if k != "root" and "/" not in k:  # (an account: user associations are acct/user)
                norm_u[k] = v / root_a if root_a > 0 else 0.0
    shares = tree.norm_shares()
    eff: dict[str, float] = {"root": 1.0 if root > 0 else 0.0}
    out: dict[str, dict[str, float]] = {}
    for k in tree.preorder():
        if k == "root":
            continue
        p = tree.parent[k]
        if p == "root":
            eff[k] = norm_u[k]
        elif depth_oblivious:
            siblings = sum(norm_u[c] for c in tree.children[p])
            eff[k] = depth_oblivious_usage(norm_u[k], shares[k], siblings, eff[p], shares[p])
        else:
            sib = sum(tree.shares[c] for c in tree.children[p])
            eff[k] = norm_u[k] + (eff[p] - norm_u[k]) * (tree.shares[k] / sib if sib else 0.0)
        s = shares[k]
        f = 2.0 ** (-eff[k] / s / dampening) if s > 0 else 0.0
        out[k] = {"NormShares": s, "NormUsage": norm_u[k], "EffectvUsage": eff[k], "FairShare": f}
    return out


def depth_oblivious_usage(
    usage: float,
    shares: float,
    siblings_usage: float,
    parent_effective: float,
    parent_shares: float,
) -> float:
    """EffectvUsage under PriorityFlags=DEPTH_OBLIVIOUS (priority_multifactor.c
    ``_depth_oblivious_set_usage_efctv``), from NormUsage and NormShares.

    The factor is to be 2^-R with R = R_parent x r^k: R_parent = U_E,parent / S_parent, r =
    (U / S) / (sum of the siblings' U / S_parent), and k = 1 unless R_parent and r pull to
    opposite sides of 1, when k = 1 / (1 + (5 ln R_parent)^2) damps r; U_E = R x S. An
    association without usage or shares, or whose parent has none, keeps U_E = U.

    >>> depth_oblivious_usage(1.0, 35 / 101, 1.0, 1.0, 70 / 101)  # all of its account's
    1.0
    """
    if not (shares and parent_shares and parent_effective and usage):
        return usage
    ratio_p = parent_effective / parent_shares
    ratio_l = (usage / shares) / (siblings_usage / parent_shares)
    k = 1.0
    if math.log(ratio_p) * math.log(ratio_l) < 0:
        k = 1.0 / (1.0 + (5.0 * math.log(ratio_p)) ** 2)
    return ratio_p * ratio_l**k * shares


def fair_tree(tree: AccountTree, usage: Mapping[str, float]) -> dict[str, dict[str, float]]:
    """Fair Tree per association: LevelFS at every level and FairShare for users."""
    sub = tree.subtree_usage(usage)
    users = [k for k in tree.shares if tree.is_user(k)]
    n = len(users)
    out: dict[str, dict[str, float]] = {}

    def level(children: list[str]) -> dict[str, float]:
        s_tot = sum(tree.shares[c] for c in children)
        u_tot = sum(sub[c] for c in children)
        lf = {}
        for c in children:
            s = tree.shares[c] / s_tot if s_tot else 0.0
            u = sub[c] / u_tot if u_tot else 0.0
            # fair_tree.c _calc_assoc_fs: S = 0 is the lowest LF, whatever the usage; only
            # then does U = 0 give infinity (an unused association with shares)
            if s == 0:
                lf[c] = 0.0
            else:
                lf[c] = s / u if u else math.inf
        return lf

    lf_all: dict[str, float] = {}
    for kids in tree.children.values():
        if kids:
            lf_all.update(level(kids))
    # Slurm's walk (fair_tree.c, _calc_tree_fs): siblings in descending LevelFS, users
    # before accounts on equal LevelFS; a user takes the current rank unless it ties with
    # the association before it (then it keeps that one's rank); an account tied with the
    # sibling before it passes the tie on to its first child. fair_tree.html says tied
    # sibling accounts have their children merged, but 22.05's _count_tied_accounts stops
    # at the first account it meets (``if (!next_assoc->user) break;``), so it never
    # merges: each tied account is walked on its own, as here (ties in name order).
    rank = n
    left = n

    def walk(kids: list[str], account_tied: bool) -> None:
        nonlocal rank, left
        for c in kids:
            out.setdefault(c, {})["LevelFS"] = lf_all[c]
        ordered = sorted(kids, key=lambda c: (-lf_all[c], not tree.is_user(c), c))
        prev = None
        k = 0
        while k < len(ordered):
            c = ordered[k]
            if account_tied:
                tied, account_tied = True, False
            else:
                tied = prev is not None and lf_all[c] == prev
            if tree.is_user(c):
                if not tied:
                    rank = left
                out[c]["FairShare"] = rank / n if n else 0.0
                left -= 1
                k += 1
            else:
                walk(list(tree.children[c]), tied)
                k += 1
            prev = lf_all[c]

    walk(tree.children["root"], False)
    for k in tree.shares:
        if k != "root":
            out.setdefault(k, {}).setdefault("LevelFS", math.inf)
            if tree.is_user(k):
                out[k].setdefault("FairShare", 0.0)
    return out
