"""What the write scanner does with the write corpus, with LoCoMo's chat turns, and what a scan costs.

    PYTHONPATH=. python bench/write_decisions.py [--locomo PATH/locomo10.json] [--split seventh ...] [--time]

For each split of tests/scanning/writes/ (or those named): how many secrets, injections and benign texts a write
refuses, holds for review or stores live, exactly as the write path decides (`scan(t)` None: live; certain: refused;
else held). With ``--locomo``: how many of LoCoMo's dialog turns ("<speaker>: <text>", 5,882 of them) are held or
refused; a held memory is never injected, so each costs retrieval recall (issue 40). With ``--time``: the scan time
per text over the corpus and the turns (CPU time, best of five runs).

The corpus is read from this checkout; `proxy` is imported from ``PYTHONPATH``, so the same script measures an
older scanner (a worktree at an older commit) on today's splits: that is how a split is judged blind. The leave-one-
split-out numbers of the credential model (bench/credential_model.py ``--hold-out``) are taken this way too.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from collections import Counter
from pathlib import Path
from types import ModuleType

from proxy.scanning import scan

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests/scanning"


def _corpus() -> ModuleType:
    """tests/scanning/corpus.py of this checkout, by its path: `tests` on ``PYTHONPATH`` would be the older
    worktree's, whose splits are fewer (corpus.py imports nothing of `proxy`)."""
    spec = importlib.util.spec_from_file_location("write_corpus", CORPUS / "corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


_CORPUS = _corpus()
SPLITS: tuple[str, ...] = _CORPUS.SPLITS
KINDS: tuple[str, ...] = _CORPUS.KINDS
load = _CORPUS.load


def decide(text: str) -> str:
    finding = scan(text)
    return "live" if finding is None else "refused" if finding.certain else "held"


def locomo_turns(path: Path) -> list[str]:
    turns = []
    for sample in json.loads(path.read_text()):
        conversation = sample["conversation"]
        for key, session in conversation.items():
            if key.startswith("session_") and isinstance(session, list):
                turns += [f"{turn['speaker']}: {turn['text']}" for turn in session if turn.get("text")]
    return turns


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", action="append", choices=SPLITS, help="only these splits")
    parser.add_argument("--locomo", type=Path, help="LoCoMo's data/locomo10.json")
    parser.add_argument("--time", action="store_true", help="time scan() over the corpus and the turns")
    parser.add_argument("--show", action="store_true", help="print the texts a split gets wrong")
    parser.add_argument("--credential-model", type=Path, help="weights to load instead of the shipped ones")
    parser.add_argument("--instruction-model", type=Path, help="weights to load instead of the shipped ones")
    args = parser.parse_args()
    _use_models(args.credential_model, args.instruction_model)

    texts: list[str] = []
    for split in args.split or SPLITS:
        counts = []
        for kind in KINDS:
            samples = load(f"writes/{split}/{kind}")
            texts += samples
            found = Counter(decide(t) for t in samples)
            wrong = found["live"] if kind != "benign" else found["held"] + found["refused"]
            counts.append(f"{kind} {len(samples)}: refused {found['refused']}, held {found['held']}, wrong {wrong}")
            if args.show:
                for text in samples:
                    if (decide(text) == "live") == (kind != "benign"):
                        print(f"    {kind} {decide(text)}: {text[:150]}")
        print(f"{split}: " + "; ".join(counts))
    if args.locomo:
        turns = locomo_turns(args.locomo)
        texts += turns
        found = Counter(decide(t) for t in turns)
        print(f"LoCoMo turns {len(turns)}: held {found['held']}, refused {found['refused']}")
        if args.show:
            for turn in turns:
                if decide(turn) != "live":
                    print(f"    {decide(turn)} {scan(turn)}: {turn[:150]}")
    if args.time:
        best = min(_timed(texts) for _ in range(5))
        print(f"scan: {best / len(texts) * 1e6:.0f} us per text over {len(texts)} texts (CPU time, best of five runs)")
    return 0


def _use_models(credential: Path | None, instruction: Path | None) -> None:
    """Score with other weights: a model trained without the split measured (``--hold-out``)."""
    if credential:
        from proxy.scanning import credentialing

        credentialing.MODEL = credential
        credentialing.model.cache_clear()
    if instruction:
        from proxy.scanning import instructing

        instructing.MODEL = instruction
        instructing.model.cache_clear()


def _timed(texts: list[str]) -> float:
    start = time.process_time()
    for text in texts:
        scan(text)
    return time.process_time() - start


if __name__ == "__main__":
    raise SystemExit(main())
