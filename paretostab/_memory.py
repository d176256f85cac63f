"""The memory this process may still take, and the refusal of work that would not fit in it.

Work that needs more memory than is available does not finish: the kernel's
out-of-memory killer ends the process, or NumPy raises ``MemoryError`` deep inside a
trial after minutes of work (swapping, where there is swap, makes it crawl instead). So
the protocol estimates a trial's peak before its work starts (:func:`check_room`) and,
when it would not fit, refuses it in one line that gives the estimate and the remedy.

What is available: the system's ``MemAvailable`` (free memory and the page cache the
kernel can reclaim; ``os.sysconf("SC_AVPHYS_PAGES")``, the free pages alone, where there
is no ``/proc/meminfo``), and at most what the process's control group still allows
(cgroup v2 ``memory.max`` less the group's use, its reclaimable file cache not counted;
cgroup v1 ``memory.limit_in_bytes`` likewise) — a container's limit, a SLURM job's memory.
"""

from __future__ import annotations

import os
from pathlib import Path

from paretostab._errors import MemoryLimitError

__all__ = ["GIB", "available_bytes", "cgroup_room", "check_room", "meminfo_available"]

GIB = 2**30


def meminfo_available(text: str) -> int | None:
    """``MemAvailable`` of a ``/proc/meminfo`` text, in bytes (None if absent)."""
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key == "MemAvailable":
            return int(value.split()[0]) * 1024
    return None


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def _stat(text: str | None, key: str) -> int:
    for line in (text or "").splitlines():
        name, _, value = line.partition(" ")
        if name == key:
            return int(value)
    return 0


def cgroup_room(directory: Path) -> int | None:
    """What the control group of ``directory`` still allows, in bytes: its limit less its
    use, reclaimable file cache not counted (v2: ``memory.max``, ``memory.current``,
    ``inactive_file`` of ``memory.stat``; v1: ``memory.limit_in_bytes``,
    ``memory.usage_in_bytes``, ``total_inactive_file``). None without a limit."""
    limit = _read(directory / "memory.max")
    v2 = limit is not None
    if not v2:
        limit = _read(directory / "memory.limit_in_bytes")
    # "max" (v2) or a huge number (v1): no limit, and nothing more to read (memory.stat,
    # the largest file, is read only under a limit)
    if limit is None or not limit.strip().isdigit() or int(limit) >= 2**62:
        return None
    used = _read(directory / ("memory.current" if v2 else "memory.usage_in_bytes"))
    if used is None:
        return None
    inactive = "inactive_file" if v2 else "total_inactive_file"
    return max(0, int(limit) - int(used) + _stat(_read(directory / "memory.stat"), inactive))


def _cgroup_directories() -> list[Path]:
    """The memory control groups of this process and their parents, innermost first (the
    root of the mount alone where the process's own group is not visible, as in many
    containers)."""
    root = Path("/sys/fs/cgroup")
    found = []
    for line in (_read(Path("/proc/self/cgroup")) or "").splitlines():
        fields = line.split(":", 2)
        if len(fields) != 3:
            continue
        _, controllers, path = fields
        base = root if controllers == "" else (root / "memory" if "memory" in
                                               controllers.split(",") else None)
        if base is None:
            continue
        directory = base / path.lstrip("/")
        while directory != base and directory.is_relative_to(base):
            found.append(directory)
            directory = directory.parent
        found.append(base)
    return found or [root, root / "memory"]


def available_bytes() -> int | None:
    """Bytes this process can still allocate (module docstring); None where the system
    says nothing."""
    system = meminfo_available(_read(Path("/proc/meminfo")) or "")
    if system is None:
        try:
            system = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):  # no such name on this system
            system = None
    rooms = [room for room in map(cgroup_room, _cgroup_directories()) if room is not None]
    values = [value for value in (system, *rooms) if value is not None]
    return min(values) if values else None


def check_room(needed: int, what: str, parts: dict[str, int], remedy: str) -> None:
    """Raise :class:`~paretostab._errors.MemoryLimitError` in one line when ``needed``
    bytes exceed the :func:`available_bytes` (nothing is checked where that is unknown):
    "``what`` needs about N GiB (S GiB for each part of ``parts``), more than the A GiB
    available: ``remedy``"."""
    available = available_bytes()
    if available is None or needed <= available:
        return
    detail = ", ".join(f"{_gib(size)} for {part}" for part, size in parts.items() if size)
    raise MemoryLimitError(f"{what} needs about {_gib(needed)} ({detail}), more than the "
                           f"{_gib(available)} available: {remedy}")


def _gib(size: int) -> str:
    if size < GIB / 100:  # would read 0.00 GiB
        return f"{size / 2**20:.2f} MiB"
    return f"{size / GIB:.2f} GiB" if size < 10 * GIB else f"{size / GIB:.0f} GiB"
