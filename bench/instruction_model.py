"""Train the instruction classifier the write scanner holds memories with (proxy/scanning/instructing.py).

    pip install scikit-learn          # training only: the proxy scores the model in the standard library
    python bench/instruction_model.py             # cross-validate, report, write the model
    python bench/instruction_model.py --check     # report only
    python bench/instruction_model.py --hold-out fourth   # train without a split and report it

Positives: every injection of the scanning corpus (tests/scanning/) and its write splits. Negatives: the benign
texts and secrets of the same, the style preferences users give an assistant (tests/scanning/training/), and the
memories of our retrieval dataset (bench/retrieval/memories.jsonl). A split named by ``--hold-out`` stays out of
training and is reported on its own: that is how a model is judged on texts it never saw.

The threshold is chosen by five-fold cross-validation on the training texts: the lowest at which at most
``--benign-rate`` of the negatives are flagged, so that the held benign texts stay within issue 37's 1 in 50.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from proxy.scanning.instructing import MODEL, InstructionModel  # noqa: E402
from tests.scanning.corpus import load  # noqa: E402

SPLITS = ("tuned", "held_out", "second", "third", "fourth")
SEED = 20261202


def corpus(hold_out: set[str]) -> tuple[list[str], list[str], list[str]]:
    """Instructions, other texts, and the preferences and near misses among them (weighted up: the costliest
    mistake is holding what a user asked the assistant to remember)."""
    positives, negatives = load("injections"), load("benign") + load("secrets")
    for split in SPLITS:
        if split in hold_out:
            continue
        positives += load(f"writes/{split}/injections")
        negatives += load(f"writes/{split}/benign") + load(f"writes/{split}/secrets")
    preferences = load("training/preferences")
    # and the texts the scanning tests name one by one (tests/test_scanning.py, tests/scanning/test_classes.py)
    from tests import test_scanning as listed
    from tests.scanning import test_classes as classes

    positives += listed.INJECTIONS + [text for text, _ in classes.INSTRUCTIONS]
    preferences += listed.BENIGN + classes.INSTRUCTION_NEAR_MISSES  # near misses named for what they teach
    negatives += classes.PROSE_NEAR_MISSES + classes.CONTEXT_NEAR_MISSES + classes.NUMBER_NEAR_MISSES
    memories = (ROOT / "bench/retrieval/memories.jsonl").read_text().splitlines()
    negatives += [json.loads(line)["text"] for line in memories if line.strip()]
    return positives, negatives, preferences


def pipeline(c: float):  # type: ignore[no-untyped-def]
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline, make_union

    features = make_union(
        TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), sublinear_tf=True, min_df=2),
        TfidfVectorizer(analyzer="word", ngram_range=(1, 2), sublinear_tf=True, min_df=2),
    )
    return make_pipeline(features, LogisticRegression(C=c, max_iter=5000, class_weight="balanced"))


def threshold(texts: list[str], labels: list[int], weights: list[float], c: float, rate: float) -> tuple[float, float]:
    """The lowest threshold (from 0.5) flagging at most `rate` of the negatives out of fold; the positives' recall."""
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    folds = StratifiedKFold(5, shuffle=True, random_state=SEED)
    fit = {"logisticregression__sample_weight": weights}
    scores = cross_val_predict(pipeline(c), texts, labels, cv=folds, method="predict_proba", params=fit)[:, 1]
    negative = sorted((s for s, label in zip(scores, labels, strict=True) if not label), reverse=True)
    allowed = int(rate * len(negative))
    cut = max(0.5, float(negative[allowed]) + 1e-6) if allowed < len(negative) else 0.5
    found = sum(1 for s, label in zip(scores, labels, strict=True) if label and s >= cut)
    return cut, found / sum(labels)


def export(model, cut: float) -> dict:  # type: ignore[no-untyped-def]
    union, regression = model.steps[0][1], model.steps[1][1]
    weights, start, parts = regression.coef_[0], 0, []
    for _, vectoriser in union.transformer_list:
        names = vectoriser.get_feature_names_out()
        idf = vectoriser.idf_
        features = {
            str(name): [round(float(idf[i]), 6), round(float(weights[start + i]), 6)] for i, name in enumerate(names)
        }
        parts.append(
            {"analyzer": vectoriser.analyzer, "ngram_range": list(vectoriser.ngram_range), "features": features}
        )
        start += len(names)
    return {"intercept": float(regression.intercept_[0]), "threshold": round(cut, 4), "parts": parts}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hold-out", action="append", default=[], choices=SPLITS, help="a split left out of training")
    parser.add_argument("--c", type=float, default=4.0, help="inverse regularisation strength")
    parser.add_argument("--benign-rate", type=float, default=0.02, help="out-of-fold negatives flagged at most")
    parser.add_argument("--preference-weight", type=float, default=2.0, help="a preference counts as this many")
    parser.add_argument("--check", action="store_true", help="report, do not write the model")
    args = parser.parse_args()

    positives, negatives, preferences = corpus(set(args.hold_out))
    texts = positives + negatives + preferences
    labels = [1] * len(positives) + [0] * (len(negatives) + len(preferences))
    weights = [1.0] * (len(positives) + len(negatives)) + [args.preference_weight] * len(preferences)
    cut, recall = threshold(texts, labels, weights, args.c, args.benign_rate)
    print(
        f"{len(positives)} instructions, {len(labels) - len(positives)} others; threshold {cut:.3f}"
        f" (cross-validated recall {recall:.3f})"
    )
    model = pipeline(args.c).fit(texts, labels, logisticregression__sample_weight=weights)
    for split in args.hold_out:
        for kind in ("injections", "benign", "secrets"):
            texts = load(f"writes/{split}/{kind}")
            flagged = sum(1 for p in model.predict_proba(texts)[:, 1] if p >= cut)
            print(f"held-out {split} {kind}: {flagged}/{len(texts)} flagged")
    exported = export(model, cut)
    ours = InstructionModel.load(exported)
    drift = max(abs(ours.probability(t) - p) for t, p in zip(texts, model.predict_proba(texts)[:, 1], strict=True))
    print(f"the proxy's scorer is within {drift:.1e} of scikit-learn's on every training text")
    assert drift < 1e-4, "proxy/scanning/instructing.py no longer reads a text as scikit-learn does"
    if not args.check:
        MODEL.write_bytes(gzip.compress(json.dumps(exported, separators=(",", ":")).encode(), mtime=0))
        print(f"wrote {MODEL.relative_to(ROOT)} ({MODEL.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
