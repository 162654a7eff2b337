"""How many CPUs this process may use: the container's CPU quota, not the node's cores.

In a container `os.sched_getaffinity` names every core of the node, while the quota (cgroup v2
`cpu.max`, v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`) is what the scheduler grants: threads
sized from the node's cores would only wait for each other's slices.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

CGROUP = Path("/sys/fs/cgroup")


def quota_from_cpu_max(text: str) -> float | None:
    """CPUs granted by a cgroup v2 `cpu.max` ("quota period", quota "max" when unlimited)."""
    quota, _, period = text.strip().partition(" ")
    if quota == "max" or not period:
        return None
    return int(quota) / int(period)


def quota_from_cfs(quota_us: str, period_us: str) -> float | None:
    """CPUs granted by cgroup v1's CFS files (quota -1 when unlimited)."""
    quota, period = int(quota_us), int(period_us)
    if quota <= 0 or period <= 0:
        return None
    return quota / period


def cpu_quota(cgroup: Path = CGROUP) -> float | None:
    """The quota of the process's cgroup in CPUs, or None when there is none (or no cgroup)."""
    try:
        return quota_from_cpu_max((cgroup / "cpu.max").read_text())
    except OSError:
        pass
    try:
        v1 = cgroup / "cpu"
        return quota_from_cfs((v1 / "cpu.cfs_quota_us").read_text(), (v1 / "cpu.cfs_period_us").read_text())
    except OSError:
        return None


def usable_cpus(quota: float | None, cores: int) -> int:
    """Whole CPUs to size a thread pool by: the quota rounded up, never more than the cores this
    process may run on, never less than one."""
    if quota is None:
        return max(cores, 1)
    return max(1, min(cores, math.ceil(quota)))


def available_cpus(cgroup: Path = CGROUP) -> int:
    return usable_cpus(cpu_quota(cgroup), len(os.sched_getaffinity(0)))
