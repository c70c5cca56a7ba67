"""Train the instruction classifier the write scanner holds memories with (proxy/scanning/instructing.py).

    pip install scikit-learn          # training only: the proxy scores the model in the standard library
    python bench/instruction_model.py --chats PATH/REALTALK/data   # cross-validate, report, write the model
    python bench/instruction_model.py --check     # report only
    python bench/instruction_model.py --hold-out hundredeighth --write /tmp/m.json.gz   # leave a split out

Positives: every injection of the scanning corpus (tests/scanning/ and every write split), the orders named in the
rounds of test classes, and disguised orders from templates. Negatives: the benign texts and secrets of the same, the
style preferences users give an assistant (tests/scanning/training/), the texts the rounds keep live, the memories and
chat turns of our retrieval datasets (bench/retrieval/), the turns also as a chat is stored ("<speaker>: <text>"), and
with ``--chats`` every message of REALTALK's ten real chats (github.com/danny911kr/REALTALK, not in this repository):
months of two people talking, full of "you" and advice. The model shipped was trained with them and the defaults:
without them it holds far more of LoCoMo's turns (a held memory is never injected). Preferences, benign texts and the
texts kept live weigh ``--preference-weight`` each: holding what a user asked the assistant to remember is the
costliest mistake. ``--min-df`` sets the model's size (features seen in fewer texts are dropped).

A split named by ``--hold-out`` stays out of training and is reported on its own: that is how a model is judged on
texts it never saw (``bench/write_decisions.py --split S --instruction-model PATH`` gives the scanner's decisions).
Five-fold cross-validation reports what the proxy's rule (`instructing.held`: sentences only, the model's
probability, with a cue word below SURE) holds out of fold: the share of instructions, and of the other texts.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from itertools import cycle
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import instruction_templates as templates  # noqa: E402  (bench/, the script's own directory)

from proxy.scanning.instructing import MODEL, InstructionModel, held  # noqa: E402
from tests.scanning.corpus import SPLITS, load  # noqa: E402

SEED = 20261202
# the rounds of test classes: their orders are instructions, the texts they keep live are preferences
ROUNDS = (
    "test_round_five_classes",
    "test_round_six_classes",
    "test_round_seven_classes",
    "test_round_eight_classes",
    "test_round_nine_classes",
    "test_round_ten_classes",
    "test_round_eleven_classes",
    "test_round_twelve_classes",
    "test_round_thirteen_classes",
    "test_round_fourteen_classes",
)
ORDERS = (
    "INSTRUCTIONS",
    "OVERRIDES",
    "HEADED_ORDERS",
    "ADDRESSED",
    "STANDING_FORWARDS",
    "RECALL_TRIGGERS",
    "SYSTEM_HEADERS",
)
KEPT = (
    "LIVE",
    "NOT_ORDERS",
    "TO_PEOPLE",
    "ADDRESSED_TO_PEOPLE",
    "READING_FOR_ONESELF",
    "ABOUT_SECRETS_AND_INJECTIONS",
    "PREFERENCES",
    "STYLE_PREFERENCES",
    "INSTRUCTION_NEAR_MISSES",
    "NEAR_MISSES",
    "STATUS_REPORTS",
    "NEW_ADDRESSES",
    "QUOTED_LINES",
    "LOG_LINES",
)


def corpus(hold_out: set[str], chats: Path | None = None) -> tuple[list[str], list[str], list[str]]:
    """Instructions, other texts, and the preferences, benign texts and near misses among them (weighted up: the
    costliest mistake is holding what a user asked the assistant to remember)."""
    positives, negatives, benign = load("injections"), load("secrets"), load("benign")
    for split in SPLITS:
        if split in hold_out:
            continue
        positives += load(f"writes/{split}/injections")
        negatives += load(f"writes/{split}/secrets")
        benign += load(f"writes/{split}/benign")  # many of them talk about injections: the hardest to tell apart
    preferences = benign + load("training/preferences") + templates.preferences() + templates.preferences_abroad()
    preferences += templates.prompt_talk() + templates.reading(6) + templates.policies()
    positives += templates.disguised_orders() + templates.orders_abroad()
    # and the texts the scanning tests name one by one (tests/test_scanning.py, tests/scanning/test_*classes.py)
    from importlib import import_module

    from tests import test_scanning as listed
    from tests.scanning import test_classes as classes
    from tests.scanning import test_round_four_classes as round_four

    positives += listed.INJECTIONS + [text for text, _ in classes.INSTRUCTIONS] + round_four.INSTRUCTIONS
    preferences += listed.BENIGN + classes.INSTRUCTION_NEAR_MISSES  # near misses named for what they teach
    preferences += round_four.STYLE_PREFERENCES + round_four.INSTRUCTION_NEAR_MISSES
    for module in ROUNDS:
        named = vars(import_module(f"tests.scanning.{module}"))
        positives += [first(item) for name in ORDERS for item in named.get(name, ())]
        preferences += [first(item) for name in KEPT for item in named.get(name, ())]
        negatives += [first(item) for item in named.get("SECRETS", ())]  # a secret is no order, "don't tell Mia" or not
    negatives += [text for text, _ in import_module("tests.scanning.test_credentialing").HELD]
    negatives += classes.PROSE_NEAR_MISSES + classes.CONTEXT_NEAR_MISSES + classes.NUMBER_NEAR_MISSES
    for memories in ("memories.jsonl", "conversations/memories.jsonl"):
        lines = (ROOT / "bench/retrieval" / memories).read_text().splitlines()
        texts = [json.loads(line)["text"] for line in lines if line.strip()]
        # as the model and extraction write them too: "The user is ...", where the dataset says "I'm ..."
        negatives += texts + [told for text in texts if (told := third_person(text)) != text]
    # and chat: what people and assistants say to each other is full of "you" and orders, and is not an injection
    # as a chat's turns are stored too: "<speaker>: <text>", a name and a colon as a header has them
    speakers = iter(cycle(("Maya", "Jon", "Priya", "Tom", "Gina", "Lars", "Ana", "Deborah", "Kenji", "Sam")))
    for line in (ROOT / "bench/retrieval/conversations/questions.jsonl").read_text().splitlines():
        if line.strip():
            question = json.loads(line)
            turns = [question["question"], *(turn["content"] for turn in question.get("context", ()))]
            negatives += turns + [f"{next(speakers)}: {turn}" for turn in turns]
    negatives += templates.chat(800)  # and what friends say to each other: "you", advice, no assistant
    if chats is not None:  # real chats between people (REALTALK's Chat_*.json): what LoCoMo-like memories look like
        negatives += real_chats(chats)
    return positives, negatives, preferences


def first(item: str | tuple[str, ...]) -> str:
    return item if isinstance(item, str) else item[0]


def real_chats(folder: Path) -> list[str]:
    """Every message of REALTALK's chats (github.com/danny911kr/REALTALK, data/Chat_*.json), alone and as a chat is
    stored ("<speaker>: <text>"): months of two people talking, full of "you" and advice, none of it an order to a
    model. Not in the repository: the model shipped was trained with them, ``--chats`` names where they are."""
    texts = []
    for path in sorted(folder.glob("Chat_*.json")):
        chat = json.loads(path.read_text(encoding="utf-8"))
        for key, turns in chat.items():
            if key.startswith("session_") and isinstance(turns, list):
                for turn in turns:
                    text = (turn.get("clean_text") or "").strip()
                    if len(text) >= 12:
                        texts += [text, f"{turn.get('speaker', 'Sam')}: {text}"]
    return texts


_FIRST_PERSON = [
    (re.compile(r"\bI'm\b"), "the user is"),
    (re.compile(r"\bI've\b"), "the user has"),
    (re.compile(r"\bI'll\b"), "the user will"),
    (re.compile(r"\bI'd\b"), "the user would"),
    (re.compile(r"\bI\b"), "the user"),
    (re.compile(r"\b[Mm]y\b"), "the user's"),
    (re.compile(r"\b[Mm]e\b"), "the user"),
]


def third_person(text: str) -> str:
    """ "I'm profiling Atlas" as a memory the model writes it: "The user is profiling Atlas" (verbs left as they
    are: the n-grams that matter are "the user", which injections use a lot and benign texts must use too)."""
    for pattern, replacement in _FIRST_PERSON:
        text = pattern.sub(replacement, text)
    return text[:1].upper() + text[1:]


def pipeline(c: float, min_df: tuple[int, int] = (3, 2)):  # type: ignore[no-untyped-def]
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline, make_union

    features = make_union(
        TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), sublinear_tf=True, min_df=min_df[0]),
        TfidfVectorizer(analyzer="word", ngram_range=(1, 2), sublinear_tf=True, min_df=min_df[1]),
    )
    return make_pipeline(features, LogisticRegression(C=c, max_iter=5000, class_weight="balanced"))


def cross_validated(
    texts: list[str], labels: list[int], weights: list[float], c: float, min_df: tuple[int, int]
) -> tuple[float, float]:
    """Out of fold, under the proxy's rule (`instructing.held`): the share of instructions held, of others held."""
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    folds = StratifiedKFold(5, shuffle=True, random_state=SEED)
    fit = {"logisticregression__sample_weight": weights}
    scores = cross_val_predict(pipeline(c, min_df), texts, labels, cv=folds, method="predict_proba", params=fit)[:, 1]
    flagged = [held(text, score) for text, score in zip(texts, scores, strict=True)]
    found = sum(1 for hit, label in zip(flagged, labels, strict=True) if hit and label)
    wrong = sum(1 for hit, label in zip(flagged, labels, strict=True) if hit and not label)
    return found / sum(labels), wrong / (len(labels) - sum(labels))


def export(model) -> dict:  # type: ignore[no-untyped-def]
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
    return {"intercept": float(regression.intercept_[0]), "parts": parts}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hold-out", action="append", default=[], choices=SPLITS, help="a split left out of training")
    parser.add_argument("--chats", type=Path, help="a folder of REALTALK's Chat_*.json, trained on as chat")
    parser.add_argument(
        "--min-df",
        type=int,
        nargs=2,
        default=(10, 4),
        help="in how many texts a character n-gram and a word n-gram must be to be a feature (the model's size)",
    )
    parser.add_argument("--no-cv", action="store_true", help="skip cross-validation")
    parser.add_argument("--c", type=float, default=4.0, help="inverse regularisation strength")
    parser.add_argument("--preference-weight", type=float, default=12.0, help="a preference counts as this many")
    parser.add_argument("--check", action="store_true", help="report, do not write the model")
    parser.add_argument("--write", type=Path, default=MODEL, help="where to write the model")
    args = parser.parse_args()

    positives, negatives, preferences = corpus(set(args.hold_out), args.chats)
    texts = positives + negatives + preferences
    labels = [1] * len(positives) + [0] * (len(negatives) + len(preferences))
    weights = [1.0] * (len(positives) + len(negatives)) + [args.preference_weight] * len(preferences)
    if not args.no_cv:
        recall, mistaken = cross_validated(texts, labels, weights, args.c, args.min_df)
        print(
            f"{len(positives)} instructions, {len(labels) - len(positives)} others; out of fold, held: "
            f"{recall:.1%} of instructions, {mistaken:.2%} of others"
        )
    model = pipeline(args.c, args.min_df).fit(texts, labels, logisticregression__sample_weight=weights)
    exported = export(model)
    ours = InstructionModel.load(exported)
    for split in args.hold_out:
        for kind in ("injections", "benign", "secrets"):
            unseen = load(f"writes/{split}/{kind}")
            print(f"held-out {split} {kind}: {sum(map(ours.instructs, unseen))}/{len(unseen)} held by the model")
    drift = max(abs(ours.probability(t) - p) for t, p in zip(texts, model.predict_proba(texts)[:, 1], strict=True))
    print(f"the proxy's scorer is within {drift:.1e} of scikit-learn's on every training text")
    assert drift < 1e-4, "proxy/scanning/instructing.py no longer reads a text as scikit-learn does"
    if not args.check:
        args.write.write_bytes(gzip.compress(json.dumps(exported, separators=(",", ":")).encode(), mtime=0))
        print(f"wrote {args.write} ({args.write.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
