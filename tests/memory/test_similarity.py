"""The write path's lexical similarity, in [0, 1], where merge on write's bands read it."""

import pytest

from proxy.memory.merging import band
from proxy.memory.ranking import MemoryIndex
from proxy.memory.records import Memory
from proxy.memory.similarity import calibrated, lexical

pytestmark = pytest.mark.anyio

UNRELATED = [
    Memory(f"m-{n}", text)
    for n, text in enumerate(
        [
            "User prefers dark mode in every editor",
            "The team holds standup at ten every weekday",
            "Metrics are scraped by Prometheus every fifteen seconds",
            "User writes commit messages in the imperative mood",
            "The mobile app targets Android thirteen and later",
            "Code review needs two approvals before merging",
            "User's laptop runs Ubuntu with the i3 window manager",
            "The data warehouse is Snowflake on AWS",
        ]
        * 5,
        start=100,
    )
]


async def similarity(existing: str, new: str, *, among: list[Memory] | None = None) -> float:
    mine = Memory("m-1", existing)
    match = await lexical(new, MemoryIndex([*(among or []), mine]), now=0.0)
    assert match is not None and match[0] == mine
    return match[1]


async def test_the_same_words_are_1_whatever_their_order() -> None:
    assert await similarity("The billing service is deployed with Nomad", "Nomad deploys the billing service") == 1.0


async def test_one_word_of_four_apart_is_judged_not_merged_away() -> None:
    score = await similarity("User's alpha project uses Rust", "User's beta project uses Rust")
    assert band(score) == "judge"


async def test_nothing_shared_finds_nothing() -> None:
    assert await lexical("Deploy to Fly.io", MemoryIndex([Memory("m-1", "User prefers tabs")]), now=0.0) is None


@pytest.mark.parametrize(
    ("existing", "new", "expected"),
    [
        ("The billing service is deployed with Nomad", "The user's billing service is deployed with Nomad", "same"),
        ("The billing service is deployed with Nomad", "The billing service is now deployed with Kubernetes", "judge"),
        ("The billing service is deployed with Nomad", "The search service is deployed with Helm charts", "different"),
        ("User's main editor is Neovim", "User's terminal is WezTerm with a Nord theme", "different"),
    ],
)
async def test_a_new_users_first_memories_already_fall_in_the_bands(existing: str, new: str, expected: str) -> None:
    assert band(await similarity(existing, new)) == expected


async def test_a_reworded_update_is_judged_for_a_new_user_as_for_one_with_history() -> None:
    """Without a floor under idf, a store of one memory weighs every new word far above the shared ones."""
    existing, new = "The billing service is deployed with Nomad", "The billing service moved from Nomad to Kubernetes"
    alone, with_history = await similarity(existing, new), await similarity(existing, new, among=UNRELATED)
    assert band(alone) == band(with_history) == "judge"


@pytest.mark.parametrize(
    ("cosine", "expected"), [(-0.2, 0.0), (0.0, 0.0), (0.2, 0.15), (0.4, 0.3), (0.65, 0.5), (0.9, 0.7), (1.0, 1.0)]
)
async def test_an_embedding_cosine_is_calibrated_onto_the_bands(cosine: float, expected: float) -> None:
    """all-MiniLM-L6-v2 puts different facts up to 0.4 and restatements from 0.9: those become 0.3 and 0.7."""
    assert calibrated(cosine) == pytest.approx(expected)
    assert [band(calibrated(c)) for c in (0.39, 0.5, 0.9)] == ["different", "judge", "same"]
