"""What of a memory is embedded: the whole text, and each of its sentences when it has more than one.

A small sentence model averages what it reads, so a memory that tells three things ("Tim: I finished the fifth
Harry Potter book. Loved it! Next up is Lord of the Rings.") is near none of them; its best sentence is near the one
asked about. A memory's cosine to a question is its whole text's lifted most of the way to its best piece's
(:data:`~.embeddings.PIECE_SHARE`). A label the memory opens with ("Tim: ", a speaker's name) stays on each
sentence: questions name whom they ask about, and a sentence without the name is nearer every speaker's questions
alike (LoCoMo tune, nearest ten by cosine alone: sentences without the label 0.456, with it 0.591, the whole turn
alone 0.501). Through the injection path with embeddings, LoCoMo tune 0.778 to 0.794 (docs/recall.md, seventh
round); a LoCoMo turn is 2.9 vectors (1.8 times its characters embedded), a one-sentence memory still one.
"""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")
_LABEL = re.compile(r"^[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,2}: ")
MAX_PIECES = 4  # a memory's sentences past this are read only in its whole text
MIN_WORDS = 5  # a shorter sentence ("Wow, that's great!", "Thanks so much.") is no piece of its own


def pieces(text: str) -> list[str]:
    """The texts to embed for one memory: the whole first, then its sentences (each with the memory's opening
    label), only when there are at least two of them worth embedding."""
    label_match = _LABEL.match(text)
    label = label_match.group(0) if label_match else ""
    body = text[len(label) :]
    sentences = [s for s in _SENTENCE_END.split(body.strip()) if len(s.split()) >= MIN_WORDS]
    if len(sentences) < 2:
        return [text]
    return [text] + [label + sentence for sentence in sentences[:MAX_PIECES]]
