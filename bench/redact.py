"""What redaction costs per message: `redact`, `mask_all` and `scan` on a question, an answer, 2 KB of prose and
code, a message holding a key, a line of dates, amounts and ids, and one holding a card number and its PIN.
History redacts every new message, so this is paid per message of a request.

    python bench/redact.py [--repeat 5]

Prints microseconds per call, the best of `--repeat` timings (the least disturbed by other work on the machine).
"""

from __future__ import annotations

import argparse
import sys
import timeit
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from proxy.scanning import redact, scan  # noqa: E402
from proxy.scanning.secrets import mask_all  # noqa: E402

QUESTION = "How do I configure the retry policy for the HTTP client so that it backs off after a timeout?"[:90]
ANSWER = (
    "You can set `max_retries=3` and `backoff_factor=0.5` on the adapter. The client then waits 0.5 s, 1 s and 2 s "
    "between attempts; see the docs for urllib3.util.Retry, which also lets you choose status codes to retry on."
)[:210]
CODE = '''def load_config(path: str) -> dict[str, Any]:
    """Read the YAML config and merge the defaults in."""
    with open(path, encoding="utf-8") as fh:
        data = yaml.safe_load(fh) or {}
    for key, value in DEFAULTS.items():
        data.setdefault(key, value)
    return data
'''
LONG = ((ANSWER + "\n\n" + CODE + "\n" + QUESTION + " ") * 6)[:2100]
SECRET = "Here is my config: OPENAI_API_KEY=sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z and the rest is fine."
# Digits are what the card, id and IBAN rules look at: a line with dates, amounts and ids, and one with a card's PIN.
NUMBERS = "Order 4417-2291-8830 shipped 2024-06-11 12:03:44 UTC, total 1,284.50 EUR, tracking 1Z999AA10123456784."
CARD = "Card 4607 2743 9865 1125, exp 09/27, CVV 731; the debit card PIN is 4821."
TEXTS = {"question": QUESTION, "answer": ANSWER, "prose+code": LONG, "with a key": SECRET, "numbers": NUMBERS,
         "card+PIN": CARD}  # fmt: skip
CALLS: dict[str, Callable[[str], object]] = {"redact": redact, "mask_all": mask_all, "scan": scan}


def per_call(call: Callable[[str], object], text: str, repeat: int) -> float:
    """Microseconds per call, the best of `repeat` timings."""
    call(text)
    number = 2000 if len(text) < 500 else 300
    return min(timeit.repeat(lambda: call(text), number=number, repeat=repeat)) / number * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'':10} {'':12} {'chars':>6} {'µs/call':>9}")
    for name, call in CALLS.items():
        for label, text in TEXTS.items():
            print(f"{name:10} {label:12} {len(text):6} {per_call(call, text, args.repeat):9.1f}")


if __name__ == "__main__":
    main()
