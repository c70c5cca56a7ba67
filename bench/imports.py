"""How fast ``POST /memory/import`` stores memories: lines per second through the service, on the files store.

An import is checked line by line, then written with one ``add_many`` per owner (one lock, one id bump, one
fsync); before that it was one ``add`` per line, two fsyncs each, and a rewrite of the whole file for every line
once the owner was at ``memory.max_total``. Measured interleaved on a shared 2-core machine: 45-95 lines/s
before at the default max_total of 500 (190-700 below it), about 8,500 after in both cases; what is left is
mostly the secret scan of each line. Each case imports a fresh owner, so every round measures the same work.

    python bench/imports.py             # 1,000 lines (memory.max_import_lines), 5 rounds per case
    python bench/imports.py --quick     # 1 round

The table goes to stdout, everything to bench/results/imports.json.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

import orjson
from results_file import write_results  # bench/ is first on sys.path when the script runs

from proxy.config import MemorySettings
from proxy.memory.backends.files import FilesStore
from proxy.memory.caller import Identity
from proxy.memory.service import MemoryService

HERE = Path(__file__).resolve().parent
LINES = 1000
CASES = {"at max_total (500): pruning": 500, "below max_total": 100_000}


def body(count: int) -> bytes:
    """An export's lines: realistic text, a tag, a time, the fields an export carries."""
    return b"\n".join(
        orjson.dumps(
            {
                "id": f"m-{n + 1}",
                "text": f"User prefers {('tabs', 'pytest', 'Rust', 'Nomad')[n % 4]} for project {n % 37} ({n})",
                "tags": ["import"],
                "ts": "2025-06-01T12:00:00.000Z",
                "category": "preference",
                "source": "explicit",
                "confidence": 1.0,
                "use_count": 0,
            }
        )
        for n in range(count)
    )


async def lines_per_second(data: bytes, max_total: int) -> float:
    settings = MemorySettings(max_total=max_total, max_import_lines=LINES)
    with tempfile.TemporaryDirectory() as root:
        service = MemoryService(FilesStore(root), settings)
        start = time.perf_counter()
        report = await service.import_lines(Identity("bench", "w"), data)
        took = time.perf_counter() - start
        await service.aclose()
    assert len(report.imported) == LINES and not report.errors, report.errors[:3]
    return LINES / took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="one round per case")
    rounds = 1 if parser.parse_args().quick else 5
    data = body(LINES)
    results = {}
    for label, max_total in CASES.items():
        rates = [asyncio.run(lines_per_second(data, max_total)) for _ in range(rounds)]
        results[label] = {"max_total": max_total, "lines": LINES, "lines_per_s": rates}
        print(f"{label:<30} {statistics.median(rates):>9,.0f} lines/s (median of {rounds})")
    write_results(HERE / "results" / "imports.json", results)


if __name__ == "__main__":
    main()
