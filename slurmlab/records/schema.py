"""The one job table shared by simulated and real data.

Columns carry sacct's names (``sacct --format=...``) and the dtypes below, so an
analyzer never knows whether a frame came from ``simulate()`` or ``read_sacct()``.
Times are ``datetime64[ns]`` (naive, the cluster's local time) and durations are
``timedelta64[ns]``; a simulation anchors its clock at ``attrs["origin"]``. Text is stored
in Arrow (``string[pyarrow]``) in both. The columns the reader derives from sacct's
(``DERIVED_COLUMNS`` of ``slurmlab.records.sacct``: GPUType, ArrayTasks, ExitStatus...)
follow the schema's in both tables too.
"""

from __future__ import annotations

import pandas as pd

#: Column name -> pandas dtype, in display order. Readers and the simulator both
#: produce at least these columns; extra columns (kept from an export) follow them.
JOB_COLUMNS: dict[str, str] = {
    "JobID": "string",
    "JobIDRaw": "string",
    "ArrayJobID": "string",
    "ArrayTaskID": "Int64",
    "HetJobID": "string",
    "HetJobOffset": "Int64",
    "JobName": "string",
    "User": "string",
    "Account": "string",
    "Partition": "string",
    "QOS": "string",
    "State": "string",
    "ExitCode": "string",
    "Submit": "datetime64[ns]",
    "Eligible": "datetime64[ns]",
    "Start": "datetime64[ns]",
    "End": "datetime64[ns]",
    "Elapsed": "timedelta64[ns]",
    "Timelimit": "timedelta64[ns]",
    "NNodes": "Int64",
    "NCPUS": "Int64",
    "NGPUS": "Int64",
    "ReqMem": "Int64",
    "NodeList": "string",
    "AllocTRES": "string",
    "ReqTRES": "string",
    "Priority": "Int64",
    "Reason": "string",
    "Restarts": "Int64",
    "StartedBy": "string",
}

#: Every job state sacct documents (job_state_codes), in Slurm's words.
STATES: tuple[str, ...] = (
    "BOOT_FAIL",
    "CANCELLED",
    "COMPLETED",
    "CONFIGURING",
    "COMPLETING",
    "DEADLINE",
    "FAILED",
    "NODE_FAIL",
    "OUT_OF_MEMORY",
    "PENDING",
    "PREEMPTED",
    "RUNNING",
    "REQUEUED",
    "REQUEUE_FED",
    "REQUEUE_HOLD",
    "RESIZING",
    "RESV_DEL_HOLD",
    "REVOKED",
    "SIGNALING",
    "SPECIAL_EXIT",
    "STAGE_OUT",
    "STOPPED",
    "SUSPENDED",
    "TIMEOUT",
)

#: Slurm's compact state codes (squeue %t, sacct -X -o State%2) -> full names.
STATE_ABBREVIATIONS: dict[str, str] = {
    "BF": "BOOT_FAIL",
    "CA": "CANCELLED",
    "CD": "COMPLETED",
    "CF": "CONFIGURING",
    "CG": "COMPLETING",
    "DL": "DEADLINE",
    "F": "FAILED",
    "NF": "NODE_FAIL",
    "OOM": "OUT_OF_MEMORY",
    "PD": "PENDING",
    "PR": "PREEMPTED",
    "R": "RUNNING",
    "RD": "RESV_DEL_HOLD",
    "RF": "REQUEUE_FED",
    "RH": "REQUEUE_HOLD",
    "RQ": "REQUEUED",
    "RS": "RESIZING",
    "RV": "REVOKED",
    "SI": "SIGNALING",
    "SE": "SPECIAL_EXIT",
    "SO": "STAGE_OUT",
    "ST": "STOPPED",
    "S": "SUSPENDED",
    "TO": "TIMEOUT",
}

#: States in which a job (or one run of a requeued job) has ended.
TERMINAL_STATES: frozenset[str] = frozenset(
    {
        "BOOT_FAIL",
        "CANCELLED",
        "COMPLETED",
        "DEADLINE",
        "FAILED",
        "NODE_FAIL",
        "OUT_OF_MEMORY",
        "PREEMPTED",
        "REQUEUED",
        "REVOKED",
        "TIMEOUT",
    }
)

#: How a simulated job was started (sacct's Flags: SchedMain / SchedBackfill).
STARTED_BY = ("main", "backfill")


#: Text columns are stored in Arrow ("string[pyarrow]"), as the sacct reader makes them, so
#: a simulated and a read table hold equal values in equal dtypes (``.equals`` holds).
TEXT_DTYPE = pd.StringDtype("pyarrow")


def _dtype(name: str):
    dtype = JOB_COLUMNS[name]
    return TEXT_DTYPE if dtype == "string" else dtype


def empty_job_table() -> pd.DataFrame:
    """An empty job table with every column and dtype of the schema."""
    return pd.DataFrame({name: pd.Series(dtype=_dtype(name)) for name in JOB_COLUMNS})


def conform(frame: pd.DataFrame) -> pd.DataFrame:
    """Return ``frame`` with every schema column present, typed, and first in order.

    Missing schema columns are added empty; extra columns are kept after them.
    The input is not modified.
    """
    out = frame.copy()
    for name, declared in JOB_COLUMNS.items():
        dtype = _dtype(name)
        if name not in out.columns:
            out[name] = pd.Series(
                pd.NA if declared in ("string", "Int64") else None, index=out.index
            )
        if out[name].dtype != dtype:
            out[name] = out[name].astype(dtype)
    extra = [c for c in out.columns if c not in JOB_COLUMNS]
    return out[list(JOB_COLUMNS) + extra]
