"""bench/ncu_table.py: raw-page exports read and set side by side (synthetic exports, no GPU)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import ncu_table  # noqa: E402


def write(tmp_path, name, metrics):
    """An export in ncu's raw-page shape: names, units, one kernel's values."""
    path = tmp_path / name
    names = ",".join(f'"{n}"' for n, _, _ in metrics)
    units = ",".join(f'"{u}"' for _, u, _ in metrics)
    values = ",".join(f'"{v}"' for _, _, v in metrics)
    path.write_text(f"{names}\n{units}\n{values}\n")
    return str(path)


def test_columns_line_up_and_a_missing_metric_shows_a_dash(tmp_path, capsys):
    a = write(tmp_path, "a.csv", [("Kernel Name", "", "attention_fwd_sm90"),
                                  ("gpu__time_duration.sum", "us", "40.5"),
                                  ("smsp__inst_executed.sum", "inst", "1,000")])
    b = write(tmp_path, "b.csv", [("Kernel Name", "", "cudnn_flash_fprop"),
                                  ("gpu__time_duration.sum", "us", "37.0")])
    assert ncu_table.main([f"amkl={a}", f"cudnn={b}"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["metric", "amkl", "cudnn"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:]}
    assert rows["gpu__time_duration.sum"] == ["40.5", "us", "37.0", "us"]
    assert rows["smsp__inst_executed.sum"] == ["1,000", "inst", "-"]
    assert "Kernel" not in rows  # not in the default set
    # The default patterns' order: time before instructions.
    assert list(rows) == ["gpu__time_duration.sum", "smsp__inst_executed.sum"]


def test_match_replaces_the_default_set(tmp_path, capsys):
    a = write(tmp_path, "a.csv", [("gpu__time_duration.sum", "us", "1"), ("foo.bar", "", "7")])
    ncu_table.main([f"x={a}", "--match", r"^foo\."])
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[1:]] == ["foo.bar"]


def test_an_export_without_a_kernel_row_is_an_error(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text('"gpu__time_duration.sum"\n"us"\n')
    with pytest.raises(ValueError, match="did ncu profile a kernel"):
        ncu_table.read_raw(str(path))


def test_a_label_without_a_file_is_refused(tmp_path):
    with pytest.raises(SystemExit):
        ncu_table.main(["amkl"])
