"""The errors figure functions give for a wrong table or argument: each names the parameter,
the value, what is allowed and, for a table, the columns it lacks and the analyzer that makes
the right one (a figure draws an analyzer's table, not the job table itself)."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

import pandas as pd

from slurmlab.errors import SlurmlabError

#: Columns only the job table (read_sacct, result.jobs) has, to recognise it.
_JOB_TABLE = ("JobID", "State", "Submit")


def check_table(table, needed: Sequence[str], who: str, maker: str) -> None:
    """An error when ``table`` is not a DataFrame with the columns ``needed``, naming the
    missing ones and ``maker``, the analyzer whose table the figure draws."""
    if not isinstance(table, pd.DataFrame):
        raise SlurmlabError(
            f"{who}: the table is a {type(table).__name__}, not a DataFrame; pass {maker}"
        )
    missing = [c for c in needed if c not in table.columns]
    if not missing:
        return
    raw = all(c in table.columns for c in _JOB_TABLE)
    shown = list(table.columns)
    listed = shown if len(shown) <= 12 else shown[:12] + ["..."]
    raise SlurmlabError(
        f"{who}: the table has no column(s) {', '.join(map(repr, missing))} (it has "
        f"{', '.join(map(str, listed))})"
        + ("; it is a job table, which the figure does not draw" if raw else "")
        + f": pass {maker}"
    )


def check_choice(value, allowed: Sequence, who: str, name: str, hint: str = "") -> None:
    """An error when ``value`` (the argument ``name``) is not one of ``allowed``, with a
    did-you-mean for a close spelling."""
    if value in allowed:
        return
    names = [str(a) for a in allowed]
    lower = {n.lower(): n for n in names}
    close = difflib.get_close_matches(str(value).lower(), list(lower), n=1, cutoff=0.6)
    close = [lower[c] for c in close]
    raise SlurmlabError(
        f"{who}: {name}={value!r} is not one of {', '.join(map(repr, names))}"
        + (f"; did you mean {close[0]!r}?" if close else "")
        + hint
    )


def say_empty(fig, text: str) -> None:
    """A figure with nothing to draw says why in its middle (never blank axes alone)."""
    fig.add_annotation(
        text=text, xref="paper", yref="paper", x=0.5, y=0.5, showarrow=False, font={"size": 14}
    )


def lines_mode(n: int) -> str:
    """A line of one point draws nothing: mark the points of a trace of fewer than two."""
    return "lines" if n >= 2 else "lines+markers"
