"""Idle CPUs that poll instead of halting while the benchmark measures.

On a virtual machine whose guest halts an idle vCPU at once (this one boots with
``haltpoll.guest_halt_poll_ns=0``), waking it takes the hypervisor tens of microseconds. At concurrency 1 every
request wakes each process in turn, so a target's latency depended on how long it happened to stay busy after each
answer, not only on what it did: memproxy spinning 60 µs after every response measured 80 µs *faster*, and the
c=1 ratios moved by ±0.15 from run to run. Holding ``/dev/cpu_dma_latency`` at 0 (the kernel's PM QoS request,
as tuned's ``latency-performance`` profile does) keeps idle CPUs polling for as long as it is held, for every
target alike. Without the device or the right to open it (root) nothing is held, and the report says so.
"""

from __future__ import annotations

import contextlib
import os
import struct
from collections.abc import Iterator

DEVICE = "/dev/cpu_dma_latency"


@contextlib.contextmanager
def idle_polling(wanted: bool) -> Iterator[str]:
    """Hold idle CPUs to polling while the block runs (when ``wanted`` and allowed); yields how idle CPUs behaved,
    for the report."""
    if not wanted:
        yield "may halt (--idle-halt)"
        return
    try:
        fd = os.open(DEVICE, os.O_WRONLY)
    except OSError as exc:
        yield f"may halt ({DEVICE}: {exc.strerror or exc})"
        return
    try:
        os.write(fd, struct.pack("i", 0))  # the request lasts as long as the file stays open
        yield f"polling ({DEVICE} held at 0)"
    finally:
        os.close(fd)
