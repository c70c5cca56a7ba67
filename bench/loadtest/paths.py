"""Where the benchmark reads its data and writes its results, relative to bench/ wherever it is run from."""

from __future__ import annotations

from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent.parent
RETRIEVAL = BENCH_DIR / "retrieval"  # the retrieval benchmark's dataset: questions to ask, memories to seed
RESULTS_DIR = BENCH_DIR / "results"
LOG_DIR = RESULTS_DIR / "logs"  # one log per child process
RESULTS_FILE = RESULTS_DIR / "overhead.json"
