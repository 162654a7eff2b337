"""Threads are sized from the container's CPU quota, not from the node's cores."""

from __future__ import annotations

from pathlib import Path

import pytest

from libs.common.cpu import cpu_quota, quota_from_cfs, quota_from_cpu_max, usable_cpus


@pytest.mark.parametrize(
    "text,expected", [("25000 100000\n", 0.25), ("200000 100000", 2.0), ("150000 100000", 1.5), ("max 100000", None)]
)
def test_cgroup_v2_cpu_max(text, expected):
    assert quota_from_cpu_max(text) == expected


@pytest.mark.parametrize("quota,period,expected", [("50000", "100000", 0.5), ("-1", "100000", None)])
def test_cgroup_v1_cfs_files(quota, period, expected):
    assert quota_from_cfs(quota, period) == expected


@pytest.mark.parametrize(
    "quota,cores,expected",
    [(0.25, 64, 1), (1.5, 64, 2), (2.0, 64, 2), (8.0, 4, 4), (None, 64, 64), (None, 0, 1)],
)
def test_usable_cpus_is_the_quota_rounded_up_within_the_cores(quota, cores, expected):
    assert usable_cpus(quota, cores) == expected


def test_the_quota_is_read_from_v2_then_v1_and_absent_without_either(tmp_path: Path):
    v2 = tmp_path / "v2"
    v2.mkdir()
    (v2 / "cpu.max").write_text("250000 100000\n")
    assert cpu_quota(v2) == 2.5

    v1 = tmp_path / "v1"
    (v1 / "cpu").mkdir(parents=True)
    (v1 / "cpu" / "cpu.cfs_quota_us").write_text("100000\n")
    (v1 / "cpu" / "cpu.cfs_period_us").write_text("100000\n")
    assert cpu_quota(v1) == 1.0

    assert cpu_quota(tmp_path / "none") is None
