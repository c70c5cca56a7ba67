"""What of a memory is embedded: its whole text, then its sentences, each with the label the memory opens with."""

from __future__ import annotations

from proxy.memory.embedding_pieces import MAX_PIECES, pieces


def test_a_memory_of_one_sentence_is_embedded_whole_and_only_whole() -> None:
    assert pieces("User prefers dark mode in every editor.") == ["User prefers dark mode in every editor."]
    assert pieces("Deploys go to us-east-1. Thanks!") == ["Deploys go to us-east-1. Thanks!"]  # "Thanks!" is no piece


def test_each_sentence_keeps_the_speaker_the_memory_opens_with() -> None:
    text = "Tim: I finished the fifth Harry Potter book. Loved it! Next up is Lord of the Rings for me."
    assert pieces(text) == [
        text,
        "Tim: I finished the fifth Harry Potter book.",
        "Tim: Next up is Lord of the Rings for me.",
    ]


def test_a_memory_without_a_label_is_cut_into_its_sentences() -> None:
    text = "The team ships on Fridays. Staging runs on a single node in Frankfurt?"
    assert pieces(text) == [text, "The team ships on Fridays.", "Staging runs on a single node in Frankfurt?"]


def test_a_long_memory_is_embedded_as_at_most_a_few_sentences() -> None:
    text = " ".join(f"Sentence number {n} says a thing." for n in range(20))
    assert len(pieces(text)) == 1 + MAX_PIECES
