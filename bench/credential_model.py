"""Train the credential model the write scanner holds memories with (proxy/scanning/credentialing.py).

    pip install scikit-learn          # training only: the proxy scores the model in the standard library
    python bench/credential_model.py              # cross-validate, report, write the model
    python bench/credential_model.py --check      # report only
    python bench/credential_model.py --hold-out eighth --write /tmp/m.json.gz   # leave a split out

Positives: every secret of the scanning corpus (tests/scanning/secrets.txt and the write splits), and credentials
given in prose from templates in many wordings and languages (bench/credential_templates.py). Negatives: the benign
texts and injections of the same corpus, the preferences users give an assistant (tests/scanning/training/), the
memories and chat turns of our retrieval datasets (bench/retrieval/), chat between friends, and near misses from
templates (credentials named without a value, order numbers, flights, versions).

A split named by ``--hold-out`` stays out of training (with the round of test classes written from it) and is
reported: how many of its texts the model holds by itself, under the proxy's rule (`credentialing.held`). The
scanner's decisions with such a model are measured by ``bench/write_decisions.py --split S --credential-model PATH``
(with ``PYTHONPATH`` at an older checkout, the scanner of a split's blind day): the leave-one-split-out numbers of
docs/security.md. Five-fold cross-validation reports the share of credentials and of other texts held out of fold.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import credential_templates as templates  # noqa: E402  (bench/, the script's own directory)
import instruction_templates  # noqa: E402
from instruction_model import export, pipeline, third_person  # noqa: E402

from proxy.scanning.credentialing import MODEL, held  # noqa: E402
from proxy.scanning.instructing import InstructionModel  # noqa: E402
from tests.scanning.corpus import SPLITS, load  # noqa: E402

SEED = 20261203
# the rounds of test classes written from a split's misses: they leave training with it
ROUNDS = {
    "seventh": "test_round_eight_classes",
    "eighth": "test_round_nine_classes",
    "sixth": "test_round_seven_classes",
}


def corpus(hold_out: set[str]) -> tuple[list[str], list[str], list[str]]:
    """Credentials, the other texts, and the benign texts and near misses among them (weighted up: the corpus's
    benign texts are the ones nearest a secret, and holding them is the mistake a user sees)."""
    positives = load("secrets") + templates.credentials() + templates.used()
    negatives = load("injections") + load("training/preferences") + templates.near_misses() + templates.used_not()
    benign = load("benign")
    for split in SPLITS:
        if split not in hold_out:
            positives += load(f"writes/{split}/secrets")
            negatives += load(f"writes/{split}/injections")
            benign += load(f"writes/{split}/benign")
    from importlib import import_module

    later = (
        "test_round_six_classes",
        "test_round_ten_classes",
        "test_round_eleven_classes",
        "test_round_twelve_classes",
        "test_round_thirteen_classes",
        "test_round_fourteen_classes",
        "test_round_fifteen_classes",
    )
    for module in ("test_round_four_classes", "test_round_five_classes", *ROUNDS.values(), *later):
        if module in {ROUNDS[split] for split in hold_out if split in ROUNDS}:
            continue
        classes = import_module(f"tests.scanning.{module}")
        positives += [text for text, *_ in getattr(classes, "SECRETS", [])]
        for name in ("NEAR_MISSES", "SECRET_NEAR_MISSES", "NOT_SECRETS", "PROSE_NEAR_MISSES", "LIVE"):
            benign += [item if isinstance(item, str) else item[0] for item in getattr(classes, name, [])]
    negatives += instruction_templates.preferences() + instruction_templates.chat()
    for memories in ("memories.jsonl", "conversations/memories.jsonl"):
        lines = (ROOT / "bench/retrieval" / memories).read_text().splitlines()
        texts = [json.loads(line)["text"] for line in lines if line.strip()]
        negatives += texts + [told for text in texts if (told := third_person(text)) != text]
    for line in (ROOT / "bench/retrieval/conversations/questions.jsonl").read_text().splitlines():
        if line.strip():
            question = json.loads(line)
            negatives += [question["question"], *(turn["content"] for turn in question.get("context", ()))]
    return positives, negatives, benign


def cross_validated(texts: list[str], labels: list[int], weights: list[float], c: float) -> tuple[float, float]:
    """Out of fold, under the proxy's rule: the share of credentials held, of others held."""
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    folds = StratifiedKFold(5, shuffle=True, random_state=SEED)
    fit = {"logisticregression__sample_weight": weights}
    scores = cross_val_predict(pipeline(c), texts, labels, cv=folds, method="predict_proba", params=fit)[:, 1]
    flagged = [held(text, score) for text, score in zip(texts, scores, strict=True)]
    found = sum(1 for hit, label in zip(flagged, labels, strict=True) if hit and label)
    wrong = sum(1 for hit, label in zip(flagged, labels, strict=True) if hit and not label)
    return found / sum(labels), wrong / (len(labels) - sum(labels))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hold-out", action="append", default=[], choices=SPLITS, help="a split left out of training")
    parser.add_argument("--c", type=float, default=4.0, help="inverse regularisation strength")
    parser.add_argument("--benign-weight", type=float, default=3.0, help="a benign text counts as this many")
    parser.add_argument("--check", action="store_true", help="report, do not write the model")
    parser.add_argument("--no-cv", action="store_true", help="skip cross-validation")
    parser.add_argument("--write", type=Path, default=MODEL, help="where to write the model")
    args = parser.parse_args()

    positives, negatives, benign = corpus(set(args.hold_out))
    texts = positives + negatives + benign
    labels = [1] * len(positives) + [0] * (len(negatives) + len(benign))
    weights = [1.0] * (len(positives) + len(negatives)) + [args.benign_weight] * len(benign)
    if not args.no_cv:
        recall, mistaken = cross_validated(texts, labels, weights, args.c)
        print(f"{len(positives)} credentials, {len(labels) - len(positives)} others; out of fold, held: "
              f"{recall:.1%} of credentials, {mistaken:.2%} of others")  # fmt: skip
    model = pipeline(args.c).fit(texts, labels, logisticregression__sample_weight=weights)
    exported = export(model)
    ours = InstructionModel.load(exported)
    for split in args.hold_out:
        for kind in ("secrets", "injections", "benign"):
            unseen = load(f"writes/{split}/{kind}")
            hits = [t for t in unseen if held(t, ours.probability(t))]
            print(f"held-out {split} {kind}: {len(hits)}/{len(unseen)} held by the model")
    drift = max(abs(ours.probability(t) - p) for t, p in zip(texts, model.predict_proba(texts)[:, 1], strict=True))
    print(f"the proxy's scorer is within {drift:.1e} of scikit-learn's on every training text")
    assert drift < 1e-4, "proxy/scanning/instructing.py no longer reads a text as scikit-learn does"
    if not args.check:
        args.write.write_bytes(gzip.compress(json.dumps(exported, separators=(",", ":")).encode(), mtime=0))
        print(f"wrote {args.write} ({args.write.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
