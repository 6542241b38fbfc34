"""The anonymizer: stable keyed pseudonyms, nothing identifying survives, output still reads."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest
from test_sacct_public import FIELDS, SACCT

from slurmlab.anonymize import anonymize_file
from slurmlab.records.sacct import SacctParseError, read_sacct, steps

needs_public = pytest.mark.skipif(not SACCT.is_dir(), reason="public samples not found")

EXPORT = """JobID|JobIDRaw|JobName|User|Group|Account|State|NodeList|WorkDir|SubmitLine|Comment|Elapsed|NCPUS|AllocTRES|MaxRSSNode
10|10|secret-model|alice|alicegrp|projx|CANCELLED by 5012|gpu[01-02]|/home/alice/run|sbatch --wrap=alice.sh|{"note": "alice"}|01:00:00|16|cpu=16,gres/gpu=8|
10.batch|10.batch|batch|||projx|CANCELLED|gpu01||||01:00:00|16|cpu=16|gpu01
11|11|other|bobby|bobgrp|projy|COMPLETED|None assigned|/home/bobby|sbatch x.sh||00:10:00|1|cpu=1|
"""


def run(tmp_path, text=EXPORT, **kwargs):
    src = tmp_path / "in.txt"
    src.write_text(text)
    out = tmp_path / "out.txt"
    result = anonymize_file(src, out, **kwargs)
    return out.read_text(), result


def test_nothing_identifying_survives(tmp_path):
    text, result = run(tmp_path, salt="s1")
    for secret in (
        "alice",
        "bobby",
        "projx",
        "projy",
        "secret-model",
        "gpu01",
        "gpu[01",
        "5012",
        "/home",
    ):
        assert secret not in text
    assert result.replaced > 10


def test_same_salt_same_pseudonyms_across_files(tmp_path):
    a, _ = run(tmp_path, salt="s1")
    b, _ = run(tmp_path, salt="s1")
    c, _ = run(tmp_path, salt="s2")
    assert a == b and a != c


def test_output_reads_like_the_original(tmp_path):
    import io

    text, _ = run(tmp_path, salt="s")
    before = read_sacct(io.StringIO(EXPORT))
    after = read_sacct(io.StringIO(text))
    same = ["JobID", "State", "Elapsed", "NCPUS", "NGPUS", "ArrayTasks"]
    pd.testing.assert_frame_equal(before[same], after[same])
    assert after["NodeList"].iloc[0].startswith("n") and after["NodeList"].isna().iloc[1]
    assert steps(after)["JobName"].tolist() == ["batch"]  # Slurm's step names are kept
    assert after["CancelledBy"].iloc[0] != "5012"
    # the same user maps to the same pseudonym everywhere in the file
    assert after["User"].nunique() == 2


def test_mapping_written_only_on_request(tmp_path):
    run(tmp_path, salt="s")
    assert not list(tmp_path.glob("*.csv"))
    mapping = tmp_path / "map.csv"
    run(tmp_path, salt="s", mapping_path=mapping)
    table = pd.read_csv(mapping)
    assert ("user", "alice") in set(zip(table["kind"], table["original"]))


def test_unsafe_row_is_refused(tmp_path):
    with pytest.raises(SacctParseError, match="cannot be anonymized"):
        run(tmp_path, text="JobID|User|State\n1|a|b|COMPLETED|x\n")


@needs_public
@pytest.mark.parametrize(
    "name",
    [
        "hb-jobinfo_sacct-snowman-delim.txt",
        "slurm2sql_test-data1.psv",
        "tdhock-slurm_sacct-all-cols.tsv",
        "xdmod_accounting-logs.psv",
    ],
)
def test_public_exports_anonymize_completely(tmp_path, name):
    fields = FIELDS.get(name)
    original = read_sacct(SACCT / name, fields=fields)
    out = tmp_path / "anon.txt"
    anonymize_file(SACCT / name, out, salt="k", fields=fields)
    text = out.read_text()
    secrets = set()
    for column in ("User", "Account", "JobName", "Group"):
        if column in original:
            secrets |= {v for v in original[column].dropna() if len(v) >= 4}
    nodes = set()
    from slurmlab.records.sacct import expand_nodelist

    for value in original["NodeList"].dropna():
        nodes |= set(expand_nodelist(value))
    leaked = sorted(s for s in secrets | nodes if s in text)
    assert leaked == []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = read_sacct(out, fields=fields)
    assert len(again) == len(original)
    assert again["State"].tolist() == original["State"].tolist()
    assert again["Elapsed"].tolist() == original["Elapsed"].tolist()


def test_anonymize_cli(tmp_path, capsys):
    from slurmlab.cli import main

    src = tmp_path / "in.txt"
    src.write_text(EXPORT)
    out = tmp_path / "out.txt"
    assert (
        main(
            [
                "anonymize",
                str(src),
                "-o",
                str(out),
                "--salt",
                "x",
                "--mapping",
                str(tmp_path / "m.csv"),
            ]
        )
        == 0
    )
    assert "alice" not in out.read_text()
    assert "keep it private" in capsys.readouterr().out


def test_the_result_shown_in_a_notebook_reveals_no_original(tmp_path):
    """The result's repr (what a notebook shows and saves) holds no original value."""
    _text, result = run(tmp_path, salt="s1")
    shown = repr(result)
    assert all(secret not in shown for secret in ("alice", "bobby", "projx", "gpu01"))
    assert "pseudonyms" in shown and result.mapping  # the mapping itself is still there
