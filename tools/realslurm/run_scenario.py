"""Replay one slurmlab scenario file on the real Slurm cluster that up.sh started.

The driver submits each job with ``sbatch`` at its offset from t0 (as the job's user,
through ``runuser``), performs the scripted admin actions (scancel, scontrol requeue),
snapshots the queue while jobs are queued (squeue --start, sprio, sshare), waits for every job
to finish and then writes the ground truth: sacct text and JSON, a tidy starts.csv and
meta.json. A scenario whose ``qos:`` block sets preemption fields (preempt, preempt_mode,
grace_time, preempt_exempt_time) or limits (max_jobs_per_user, max_tres_per_user, grp_tres,
max_wall) gets them with ``sacctmgr modify qos`` before t0, and one whose ``accounts:`` set
limits (grp_tres, max_jobs) with ``sacctmgr modify account``; every
second the driver also notes each job's state and reason changes (transitions.csv). Only
the standard library and PyYAML are used.

Usage (as root, with SLURM_CONF pointing at the running cluster)::

    python tools/realslurm/run_scenario.py datasets/realslurm/scenarios/backfill.yaml \\
        --out datasets/realslurm/backfill
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import math
import os
import re
import shlex
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

SACCT_FIELDS = (
    "JobID,JobIDRaw,JobName,User,UID,Group,Account,Cluster,Partition,QOS,QOSRAW,State,"
    "ExitCode,DerivedExitCode,Reason,Submit,Eligible,Start,End,Elapsed,ElapsedRaw,Suspended,"
    "Timelimit,TimelimitRaw,NNodes,ReqNodes,NCPUS,ReqCPUS,AllocCPUS,NTasks,NodeList,ReqTRES,"
    "AllocTRES,ReqMem,MaxRSS,TotalCPU,CPUTimeRAW,Priority,Flags,Reservation,ReservationId,"
    "Reserved,Constraints,Layout,SubmitLine,WorkDir,Comment"
)
SACCT_STATES = "BF,CA,CD,DL,F,NF,OOM,PD,PR,R,RQ,RS,RV,S,TO"
#: the fields of the sacct -X taken with each snapshot (JobID wide enough for a task list cut
#: at SLURM_BITSTR_LEN's 64 characters)
SNAPSHOT_SACCT = "JobID%80,JobIDRaw,State"
SQUEUE_FIELDS = {  # squeue -o code -> column name (one array task per line with -r)
    "%i": "job_id",
    "%A": "job_id_raw",
    "%j": "name",
    "%u": "user",
    "%a": "account",
    "%P": "partition",
    "%q": "qos",
    "%T": "state",
    "%r": "reason",
    "%Q": "priority",
    "%V": "submit",
    "%S": "start",
    "%e": "end",
    "%D": "nodes",
    "%C": "cpus",
    "%b": "tres_per_node",
    "%N": "nodelist",
}
SPRIO_FIELDS = {  # sprio -o code -> column name
    "%i": "job_id",
    "%u": "user",
    "%r": "partition",
    "%Y": "priority",
    "%A": "age",
    "%F": "fairshare",
    "%J": "jobsize",
    "%P": "partition_w",
    "%Q": "qos",
    "%T": "tres",
    "%N": "nice",
    "%a": "age_norm",
    "%f": "fairshare_norm",
    "%j": "jobsize_norm",
    "%p": "partition_norm",
    "%q": "qos_norm",
}
ACTIONS = {  # scenario action -> command (the real job id is appended)
    "cancel": ["scancel"],
    "requeue": ["scontrol", "requeue"],
    "requeuehold": ["scontrol", "requeuehold"],
    "hold": ["scontrol", "hold"],
    "release": ["scontrol", "release"],
}
UPDATE_WORDS = {"nodes": "NumNodes", "time": "TimeLimit", "partition": "Partition"}
NODE_ACTIONS = {  # node action -> (scontrol State=, Reason=)
    "fail": ("DOWN", "slurmlab-failure"),
    "back": ("RESUME", None),
    "drain": ("DRAIN", "slurmlab-drain"),
    "resume": ("RESUME", None),
}
TERMINAL = ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY")
TERMINAL += ("BOOT_FAIL", "DEADLINE", "PREEMPTED")
QOS_SETTINGS = {  # scenario qos field -> sacctmgr option, value as sacctmgr wants it
    "priority": ("priority", str),  # (accounts.sh's values unless a scenario names others)
    "preempt": ("preempt", lambda v: ",".join([v] if isinstance(v, str) else v)),
    "preempt_mode": ("preemptmode", str),
    "grace_time": ("gracetime", lambda v: str(round(parse_seconds(v)))),  # seconds
    "preempt_exempt_time": (
        "preemptexempttime",
        lambda v: "{:02d}:{:02d}:{:02d}".format(*hms(round(parse_seconds(v)))),
    ),
    "max_jobs_per_user": ("maxjobsperuser", str),
    "max_tres_per_user": ("maxtresperuser", str),  # "gres/gpu=4", as sacctmgr takes it
    "grp_tres": ("grptres", str),
    "max_wall": ("maxwall", str),  # "00:05:00" ([D-]HH:MM:SS; a bare number is minutes)
}
QOS_SHOW = "Name,Priority,Preempt,PreemptMode,GraceTime,PreemptExemptTime,MaxJobsPU,MaxTRESPU"
QOS_SHOW += ",GrpTRES,MaxWall"
ACCOUNT_SETTINGS = {"grp_tres": ("grptres", str), "max_jobs": ("maxjobs", str)}
ASSOC_SHOW = "Account,User,GrpTRES,MaxJobs"


def parse_seconds(value: int | float | str) -> float:
    """Seconds from a number or a ``[D-]HH:MM:SS`` (or ``MM:SS``) string."""
    if isinstance(value, int | float):
        return float(value)
    text = str(value).strip()
    days = 0
    if "-" in text:
        d, text = text.split("-", 1)
        days = int(d)
    parts = [float(p) for p in text.split(":")]
    while len(parts) < 3:
        parts.insert(0, 0.0)
    h, m, s = parts
    return days * 86400 + h * 3600 + m * 60 + s


def hms(seconds: int) -> tuple[int, int, int]:
    return seconds // 3600, seconds // 60 % 60, seconds % 60


def stamp(epoch: float) -> str:
    """Local time in Slurm's standard format (YYYY-MM-DDTHH:MM:SS)."""
    return dt.datetime.fromtimestamp(epoch).strftime("%Y-%m-%dT%H:%M:%S")


def to_epoch(text: str) -> float | None:
    """Epoch seconds from a Slurm standard time stamp, None for Unknown/None/N/A."""
    try:
        return dt.datetime.strptime(text.strip(), "%Y-%m-%dT%H:%M:%S").timestamp()
    except ValueError:
        return None


def run(cmd: list[str], check: bool = False) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, check=check)


@dataclass
class Event:
    at: float
    order: int  # submissions before actions at the same second
    kind: str  # "submit" or "action"
    item: dict


class Driver:
    def __init__(self, scenario_file: Path, out: Path, snapshot_every: float, max_wait: float):
        self.file = scenario_file
        self.out = out
        self.snapshot_every = snapshot_every
        self.max_wait = max_wait
        self.scenario = yaml.safe_load(scenario_file.read_text())
        self.jobs = {j["id"]: j for j in self.scenario["jobs"]}
        if len(self.jobs) != len(self.scenario["jobs"]):
            raise ValueError(f"{scenario_file}: job ids must be unique")
        self.users = sorted({j["user"] for j in self.scenario["jobs"]})
        self.work = Path(os.environ.get("REALSLURM_DIR", "/tmp/slurmlab-realslurm"))
        self.real_ids: dict[str, str] = {}  # scenario id -> real job id
        self.log: dict[str, list] = {"submissions": [], "actions": [], "reservations": []}
        self.transitions: list[dict] = []  # (state, reason) changes seen every second
        self.last_seen: dict[str, tuple] = {}
        self.snap_text = (out / "snapshots.txt").open("w")
        self.queue_rows: list[dict] = []
        self.sprio_rows: list[dict] = []
        self.sshare_rows: list[dict] = []
        self.t0 = 0.0

    def rel(self, epoch: float | None) -> int | str:
        return "" if epoch is None else round(epoch - self.t0)

    # --- scripted inputs --------------------------------------------------------
    def setup_qos(self) -> None:
        """Give each QOS the preemption settings and limits the scenario's qos block names,
        and each account its limits (the QOS, accounts and users and their priorities and
        shares come from accounts.sh); slurmdbd pushes them to slurmctld."""
        blocks = (
            ("qos", "qos", QOS_SETTINGS, []),
            ("accounts", "account", ACCOUNT_SETTINGS, ["cluster=slurmlab"]),
        )
        for key, kind, settings, where in blocks:
            for q in self.scenario.get(key) or []:
                sets = [f"{opt}={fmt(q[k])}" for k, (opt, fmt) in settings.items() if k in q]
                if not sets:
                    continue
                cmd = ["sacctmgr", "-i", "modify", kind, "where", f"name={q['name']}", *where]
                cmd += ["set", *sets]
                res = run(cmd)
                self.log.setdefault("qos_setup", []).append(
                    {"cmd": shlex.join(cmd), "rc": res.returncode}
                    | {"output": (res.stdout + res.stderr).strip()}
                )
                if res.returncode:
                    raise RuntimeError(f"{shlex.join(cmd)}: {res.stderr.strip()}")
        if self.log.get("qos_setup"):
            time.sleep(2)  # (the update reaches slurmctld in well under a second)
            for name, cmd, fields in (
                ("qos", ["show", "qos"], QOS_SHOW),
                ("associations", ["show", "assoc", "where", "cluster=slurmlab"], ASSOC_SHOW),
            ):
                shown = run(["sacctmgr", "-n", "-P", *cmd, f"format={fields}"]).stdout
                rows = [dict(zip(fields.split(","), ln.split("|"))) for ln in shown.splitlines()]
                self.log[name] = rows

    def create_reservations(self) -> None:
        for r in self.scenario.get("reservations") or []:
            start = self.t0 + parse_seconds(r.get("start", 0))
            minutes = math.ceil(parse_seconds(r["duration"]) / 60)
            cmd = [
                "scontrol",
                "create",
                "reservation",
                f"ReservationName={r['name']}",
                f"StartTime={stamp(start)}",
                f"Duration={minutes}",
            ]
            if r.get("nodes"):
                cmd.append(f"Nodes={r['nodes']}")
            if r.get("users"):
                cmd.append(f"Users={','.join(r['users'])}")
            if r.get("accounts"):
                cmd.append(f"Accounts={','.join(r['accounts'])}")
            if r.get("flags"):  # (a list in scenario files: [maint])
                flags = r["flags"]
                cmd.append(f"Flags={flags if isinstance(flags, str) else ','.join(flags)}")
            res = run(cmd)
            self.log["reservations"].append(
                {"name": r["name"], "cmd": shlex.join(cmd), "rc": res.returncode}
                | {"output": (res.stdout + res.stderr).strip()}
            )
            if res.returncode:
                raise RuntimeError(f"reservation {r['name']}: {res.stderr.strip()}")

    def job_script(self, job: dict) -> str:
        if job.get("script"):
            return job["script"]
        runtime = round(parse_seconds(job["runtime"]))
        return f"#!/bin/bash\nsleep {runtime}\nexit {int(job.get('exit_code', 0))}\n"

    def substitute_dependencies(self, args: str) -> str:
        """Replace scenario job ids after ':' in --dependency/-d with real job ids."""

        def fix(match: re.Match) -> str:
            name = match.group(1)
            if name in self.jobs and name not in self.real_ids:
                raise RuntimeError(f"dependency on {name!r}, which is not submitted yet")
            return ":" + self.real_ids.get(name, name)

        tokens = shlex.split(args)
        for i, tok in enumerate(tokens):
            inline = tok.startswith(("--dependency=", "-d")) and tok != "-d"
            if inline or (i and tokens[i - 1] in ("-d", "--dependency")):
                tokens[i] = re.sub(r":([^:,?+]+)", fix, tok)
        return shlex.join(tokens)

    def submit(self, job: dict) -> None:
        args = self.substitute_dependencies(job.get("args", ""))
        cmd = ["runuser", "-u", job["user"], "--", "sbatch", "--parsable"]
        cmd += [f"--job-name={job['id']}", f"--chdir={self.work / 'jobs'}"]
        cmd += [f"--output={self.work / 'out'}/%x-%j.out"]
        cmd += shlex.split(args)
        t = time.time()
        res = subprocess.run(cmd, input=self.job_script(job), capture_output=True, text=True)
        entry = {
            "id": job["id"],
            "planned_s": parse_seconds(job.get("submit", 0)),
            "sbatch_at_s": round(t - self.t0, 3),
            "cmd": shlex.join(cmd[4:]),
            "rc": res.returncode,
        }
        if res.returncode:
            entry["error"] = res.stderr.strip()
            print(f"  sbatch {job['id']} FAILED: {res.stderr.strip()}", file=sys.stderr)
        else:
            jid = res.stdout.strip().split(";")[0]
            self.real_ids[job["id"]] = jid
            entry["job_id"] = jid
            print(f"  t={t - self.t0:6.1f} submitted {job['id']} -> {jid}")
        self.log["submissions"].append(entry)

    def real_id(self, target: str) -> str:
        """The real JobID a scenario's action names: a job's id, or an array task (``ID_3``)
        or tasks (``ID_[0-2]``) of an array by its id."""
        if target in self.real_ids:
            return self.real_ids[target]
        base, _, tasks = str(target).rpartition("_")
        return f"{self.real_ids[base]}_{tasks}"

    def act(self, action: dict) -> None:
        """A scripted action: on a job (its real id appended to the command), or on a node
        (``scontrol update NodeName=... State=...``: a scenario's ``failures`` entry sets its
        node DOWN at ``at``, slurmctld killing its jobs, NODE_FAIL and requeued if they may
        be, and RESUMEs it ``down_for`` later; ``drain`` and ``resume`` actions likewise)."""
        if action["action"] in NODE_ACTIONS:
            state, reason = NODE_ACTIONS[action["action"]]
            cmd = ["scontrol", "update", f"NodeName={action['node']}", f"State={state}"]
            cmd += [f"Reason={reason}"] if reason else []
            what = {"node": action["node"]}
        elif action["action"] == "update":  # scontrol update, as root (an administrator)
            jid = self.real_id(action["job"])
            cmd = ["scontrol", "update", f"JobId={jid}"]
            cmd += [
                f"{word}={action[key]}"
                for key, word in UPDATE_WORDS.items()
                if action.get(key) is not None
            ]
            what = {"job": action["job"], "job_id": jid}
        else:
            jid = self.real_id(action["job"])
            cmd = ACTIONS[action["action"]] + [jid]
            what = {"job": action["job"], "job_id": jid}
        t = time.time()
        res = run(cmd)
        self.log["actions"].append(
            {
                "at": parse_seconds(action["at"]),
                "done_at_s": round(t - self.t0, 3),
                "action": action["action"],
                **what,
                "cmd": shlex.join(cmd),
                "rc": res.returncode,
                "output": (res.stdout + res.stderr).strip(),
            }
        )
        print(f"  t={t - self.t0:6.1f} {shlex.join(cmd)} rc={res.returncode}")

    # --- observation ------------------------------------------------------------
    def squeue(self) -> list[dict]:
        fmt = "|".join(SQUEUE_FIELDS)
        res = run(["squeue", "-a", "-r", "-h", "-u", ",".join(self.users), "-o", fmt])
        rows = []
        for line in res.stdout.splitlines():
            values = line.split("|")
            if len(values) == len(SQUEUE_FIELDS):
                rows.append(dict(zip(SQUEUE_FIELDS.values(), values)))
        return rows

    def snapshot(self) -> list[dict]:
        now = time.time()
        t = round(now - self.t0)
        rows = self.squeue()
        for row in rows:
            rel = {f"{k}_s": self.rel(to_epoch(row[k])) for k in ("submit", "start", "end")}
            self.queue_rows.append({"t": t, **row, **rel})
        if not rows:
            return rows
        self.snap_text.write(f"\n######## t=+{t}s ({stamp(now)})\n")
        for cmd in (
            ["squeue", "--start", "-a", "-r"],
            # plain squeue and sacct -X: an array's pending record as one line, as printed
            # (SLURM_BITSTR_LEN unset: a task list cut at 64 characters)
            ["squeue", "-a"],
            ["sacct", "-X", "-a", "-S", stamp(self.t0 - 60), "-o", SNAPSHOT_SACCT],
            ["sprio", "-l"],
            ["sshare", "-a", "-l", "-P"],
            ["scontrol", "-d", "-o", "show", "job"],
        ):
            res = run(cmd)
            self.snap_text.write(f"$ {shlex.join(cmd)}\n{res.stdout}{res.stderr}\n")
        res = run(["sprio", "-h", "-o", "|".join(SPRIO_FIELDS)])
        for line in res.stdout.splitlines():
            values = [v.strip() for v in line.split("|")]
            if len(values) == len(SPRIO_FIELDS):
                self.sprio_rows.append({"t": t, **dict(zip(SPRIO_FIELDS.values(), values))})
        res = run(["sshare", "-a", "-l", "-P"])
        lines = res.stdout.splitlines()
        if lines:
            header = lines[0].split("|")
            for line in lines[1:]:  # the Account column is indented by tree depth
                row = dict(zip(header, line.split("|")))
                depth = len(row["Account"]) - len(row["Account"].lstrip())
                row = {k: v.strip() for k, v in row.items()}
                self.sshare_rows.append({"t": t, "depth": depth, **row})
        return rows

    # --- the run ------------------------------------------------------------------
    def events(self) -> list[Event]:
        evs = [Event(parse_seconds(j.get("submit", 0)), 0, "submit", j) for j in self.jobs.values()]
        for a in self.scenario.get("actions") or []:
            if a["action"] not in ACTIONS and a["action"] not in NODE_ACTIONS | {"update": 0}:
                known = [*ACTIONS, "update", *NODE_ACTIONS]
                raise ValueError(f"unknown action {a['action']!r}; use one of {known}")
            evs.append(Event(parse_seconds(a["at"]), 1, "action", a))
        for f in self.scenario.get("failures") or []:  # (down at `at`, back `down_for` later)
            at = parse_seconds(f["at"])
            evs.append(Event(at, 1, "action", {"action": "fail", "node": f["node"], "at": at}))
            if f.get("down_for") is not None:
                back = at + parse_seconds(f["down_for"])
                evs.append(
                    Event(back, 1, "action", {"action": "back", "node": f["node"], "at": back})
                )
        return sorted(evs, key=lambda e: (e.at, e.order))

    def watch(self) -> None:
        """Note every job whose state, reason or nodes changed since the last look."""
        now = round(time.time() - self.t0, 1)
        fmt = "%i|%j|%T|%r|%N"
        res = run(["squeue", "-a", "-r", "-h", "-u", ",".join(self.users), "-o", fmt])
        for line in res.stdout.splitlines():
            parts = line.split("|")
            if len(parts) != 5:
                continue
            jid, name, state, reason, nodes = parts
            if self.last_seen.get(jid) != (state, reason, nodes):
                self.last_seen[jid] = (state, reason, nodes)
                self.transitions.append(
                    {"t": now, "job_id": jid, "id": name, "state": state, "reason": reason}
                    | {"nodelist": nodes}
                )

    def sleep_until(self, t_rel: float) -> None:
        """Sleep until t0 + t_rel, taking a snapshot every snapshot_every seconds and
        watching state changes every second."""
        while True:
            now = time.time() - self.t0
            if now >= t_rel:
                return
            next_snap = (math.floor(now / self.snapshot_every) + 1) * self.snapshot_every
            next_watch = math.floor(now) + 1.0
            if next_watch < min(next_snap, t_rel):
                time.sleep(max(0.0, next_watch - now))
                if self.real_ids:
                    self.watch()
            elif next_snap <= t_rel:
                time.sleep(max(0.0, next_snap - now))
                if self.real_ids:
                    self.watch()
                    self.snapshot()
            else:
                time.sleep(max(0.0, t_rel - now))

    def run(self) -> None:
        self.setup_qos()
        self.t0 = float(math.ceil(time.time()) + 3)
        print(f"scenario {self.scenario['name']}: t0={self.t0:.0f} ({stamp(self.t0)})")
        self.create_reservations()
        for ev in self.events():
            self.sleep_until(ev.at)
            self.submit(ev.item) if ev.kind == "submit" else self.act(ev.item)
        # Let the queue drain, still snapshotting.
        deadline = time.time() + self.max_wait
        t_next = math.ceil((time.time() - self.t0) / self.snapshot_every) * self.snapshot_every
        while True:
            self.sleep_until(t_next)
            t_next += self.snapshot_every
            if not self.squeue():
                break
            if time.time() > deadline:
                print("  max wait reached; cancelling what is left", file=sys.stderr)
                run(["scancel", *self.real_ids.values()])
                self.log["driver_cancelled_at_s"] = round(time.time() - self.t0)
                deadline = time.time() + 120
        self.finished = time.time()
        print(f"  t={self.finished - self.t0:6.1f} queue empty")
        self.collect()

    def sacct_window(self) -> list[str]:
        return ["-S", stamp(self.t0 - 60), "-E", stamp(self.finished + 60)]

    def collect(self) -> None:
        base = ["sacct", "-a", "-D", "-s", SACCT_STATES, *self.sacct_window()]
        want = set(self.real_ids.values())
        for _ in range(60):  # slurmdbd is fed asynchronously; wait for every end record
            res = run([*base, "-X", "-n", "-P", "-o", "JobIDRaw,JobID,State,End"])
            seen, done = set(), True
            for line in res.stdout.splitlines():
                raw, jid, state, end = line.split("|")
                seen.add(jid.split("_")[0])
                if end == "Unknown" or not state.split()[0].startswith((*TERMINAL, "REQUEUED")):
                    done = False
            if done and want <= seen:
                break
            time.sleep(2)
        fields = ["--format=" + SACCT_FIELDS]
        (self.out / "sacct.txt").write_text(run([*base, "-P", *fields], check=True).stdout)
        raw_json = run([*base, "--json"], check=True).stdout
        (self.out / "sacct.json").write_text(raw_json)
        self.write_starts()
        self.write_csv("queue.csv", self.queue_rows)
        self.write_csv("sprio.csv", self.sprio_rows)
        self.write_csv("sshare.csv", self.sshare_rows)
        self.write_csv("transitions.csv", self.transitions)
        self.write_ctld_log()
        self.snap_text.close()
        version = run(["sinfo", "-V"]).stdout.strip()  # e.g. "slurm-wlm 22.05.8"
        meta = {
            "scenario": self.scenario["name"],
            "scenario_file": os.path.relpath(self.file, self.out),
            "slurm_version": version.split()[-1],
            "slurm_version_string": version,
            "t0": self.t0,
            "t0_local": stamp(self.t0),
            "timezone": time.strftime("%Z"),
            "finished_s": round(self.finished - self.t0, 3),
            "host": socket.gethostname(),
            "snapshot_every_s": self.snapshot_every,
            "sacct_command": shlex.join([*base, "-P", *fields]),
            "slurm_time_format": os.environ.get("SLURM_TIME_FORMAT", ""),
            "job_ids": self.real_ids,
            **self.ctld_start(),
            **self.log,
        }
        (self.out / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")

    def ctld_start(self) -> dict:
        """When slurmctld started, from its log: ``slurmctld_start_s``, in whole seconds from
        t0 (a scenario's ``slurmctld_start``), and the log line it was read from.

        priority/multifactor's decay thread logs "No last decay (...) to recover" as it
        starts (priority_multifactor.c ``_read_last_decay_ran``, just after it takes the
        time its grid counts from; up.sh's fresh spool has no such file), in priority_g_init
        just before controller.c starts ``_slurmctld_background``: the decay thread runs
        every PriorityCalcPeriod and the periodic main-scheduler pass every sched_interval
        from then, each at ``time(NULL)``, whole seconds. Without that line, "Running as
        primary controller", logged just before. Nothing when neither is found."""
        log = self.work / "log" / "slurmctld.log"
        if not log.is_file():
            return {}
        text = log.read_text(errors="replace").splitlines()
        stamped = re.compile(r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.\d+)?\] (.*)$")
        for words in ("No last decay", "Running as primary controller"):
            for line in text:
                match = stamped.match(line)
                if match and words in match[2]:
                    started = to_epoch(match[1])  # (whole seconds: time(NULL), as Slurm)
                    return {"slurmctld_start_s": started - self.t0, "slurmctld_start_log": line}
        return {}

    def write_ctld_log(self) -> None:
        """slurmctld's log lines about preemption and requeues (preempt.log), if any."""
        log = self.work / "log" / "slurmctld.log"
        if not log.is_file():
            return
        words = re.compile(r"preempt|requeue|grace", re.IGNORECASE)
        lines = [ln for ln in log.read_text(errors="replace").splitlines() if words.search(ln)]
        if lines:
            (self.out / "preempt.log").write_text("\n".join(lines) + "\n")

    def write_csv(self, name: str, rows: list[dict]) -> None:
        cols: list[str] = []
        for row in rows:
            cols += [k for k in row if k not in cols]
        with (self.out / name).open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=cols or ["t"])
            w.writeheader()
            w.writerows(rows)

    def write_starts(self) -> None:
        by_real = {v: k for k, v in self.real_ids.items()}
        lines = (self.out / "sacct.txt").read_text().splitlines()
        header = lines[0].split("|")
        rows = []
        for line in lines[1:]:
            rec = dict(zip(header, line.split("|")))
            if "." in rec["JobID"]:
                continue  # steps (batch, extern, 0, 1, ...)
            master, _, task = rec["JobID"].partition("_")
            times = {k: to_epoch(rec[k]) for k in ("Submit", "Eligible", "Start", "End")}
            rows.append(
                {
                    "id": by_real.get(master, ""),  # "" for a job this run did not submit
                    "array_task": task,
                    "job_id": rec["JobID"],
                    "job_id_raw": rec["JobIDRaw"],
                    "submit_s": self.rel(times["Submit"]),
                    "eligible_s": self.rel(times["Eligible"]),
                    "start_s": self.rel(times["Start"]),
                    "end_s": self.rel(times["End"]),
                    "elapsed_s": rec["ElapsedRaw"],
                    "state": rec["State"],
                    "exit_code": rec["ExitCode"],
                    "flags": rec["Flags"],
                    "nodelist": rec["NodeList"],
                    "alloc_tres": rec["AllocTRES"],
                }
            )

        def order(row: dict) -> tuple:  # by job, array task, then incarnation
            master, _, task = row["job_id"].partition("_")
            return int(master), int(task) if task.isdigit() else -1, row["submit_s"]

        rows.sort(key=order)
        self.write_csv("starts.csv", rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", type=Path, help="scenario YAML file")
    parser.add_argument("--out", type=Path, required=True, help="output directory")
    parser.add_argument("--snapshot-every", type=float, default=10.0, help="seconds")
    parser.add_argument(
        "--max-wait", type=float, default=600.0, help="seconds after the last event"
    )
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # progress lines show up in logs at once
    os.environ.setdefault("SLURM_TIME_FORMAT", "standard")
    if "SLURM_CONF" not in os.environ:
        parser.error("SLURM_CONF is not set; source tools/realslurm/env.sh after up.sh")
    args.out.mkdir(parents=True, exist_ok=True)
    Driver(args.scenario.resolve(), args.out.resolve(), args.snapshot_every, args.max_wait).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
