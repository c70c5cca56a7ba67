"""The access log's writer: lines reach their file descriptor from a thread, in order and whole; a stalled output
drops lines (counted) rather than stall the proxy; closing writes what waits."""

from __future__ import annotations

import os

from proxy.telemetry.access import LineWriter, user_hash


def test_lines_reach_the_file_in_order_and_whole_once_closed() -> None:
    read, write = os.pipe()
    writer = LineWriter(write, interval_s=3600)  # nothing written until close: close must flush
    lines = [b'{"n":%d}\n' % n for n in range(1000)]
    for line in lines:
        writer(line)
    writer.close()
    os.close(write)
    with os.fdopen(read, "rb") as got:
        assert got.read() == b"".join(lines)
    assert writer.dropped == 0


def test_a_stalled_output_drops_lines_instead_of_blocking() -> None:
    read, write = os.pipe()
    writer = LineWriter(write, interval_s=3600, max_pending=10)
    for n in range(25):
        writer(b"%d\n" % n)  # returns at once, whatever the output does
    assert writer.dropped == 15
    writer.close()
    os.close(write)
    with os.fdopen(read, "rb") as got:
        assert got.read().split() == [b"%d" % n for n in range(10)]


def test_a_user_hash_is_stable_and_says_nothing_of_the_name() -> None:
    assert user_hash("ada@example.com") == user_hash("ada@example.com") != user_hash("bob@example.com")
    assert user_hash("ada@example.com").startswith("u-") and "ada" not in user_hash("ada@example.com")
    assert len(user_hash("ada@example.com")) == 18
