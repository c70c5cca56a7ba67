from typing import Any

from proxy.episodes.sessions import ChainLink, Followed, SessionTracker, derive_session_id
from proxy.episodes.untrusted import UntrustedTools
from proxy.memory.provenance import TRUSTED, Provenance

SYSTEM = {"role": "system", "content": "You are a coding agent."}


def chat(*messages: dict[str, Any], model: str = "gpt-4o-mini") -> list[dict[str, Any]]:
    """A request's conversation, as a dialect's view of it reaches the tracker (the model plays no part)."""
    return list(messages)


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def assistant(text: str | None = None, calls: tuple[str, ...] = ()) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": "{}"}}
            for i, name in enumerate(calls)
        ]
    return message


def tool(call_id: str, text: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def test_each_request_ending_with_a_new_user_message_is_a_turn() -> None:
    tracker = SessionTracker()
    conversation = [SYSTEM, user("hi")]
    session = tracker.observe("ada", "default", "s1", chat(*conversation), now=1.0)
    assert session.turns == 1
    conversation += [assistant("hello"), user("set up the repo")]
    assert tracker.observe("ada", "default", "s1", chat(*conversation), now=2.0).turns == 2
    conversation += [assistant("done"), user("now the tests")]
    assert tracker.observe("ada", "default", "s1", chat(*conversation), now=3.0).turns == 3


def test_a_retried_request_is_not_a_new_turn() -> None:
    tracker = SessionTracker()
    payload = chat(SYSTEM, user("hi"))
    tracker.observe("ada", "default", "s1", payload, now=1.0)
    assert tracker.observe("ada", "default", "s1", payload, now=2.0).turns == 1


def test_a_tool_result_follow_up_is_not_a_turn_but_its_tool_is_noted() -> None:
    tracker = SessionTracker()
    conversation = [SYSTEM, user("read the config")]
    tracker.observe("ada", "default", "s1", chat(*conversation), now=1.0)
    conversation += [assistant(calls=("read_file",)), tool("call_0", "port: 8080")]
    session = tracker.observe("ada", "default", "s1", chat(*conversation), now=2.0)
    assert session.turns == 1
    assert session.tools == {"read_file"}


def test_the_same_words_later_in_the_conversation_are_a_new_turn() -> None:
    tracker = SessionTracker()
    conversation = [user("yes")]
    tracker.observe("ada", "default", "s1", chat(*conversation), now=1.0)
    conversation += [assistant("sure?"), user("yes")]
    assert tracker.observe("ada", "default", "s1", chat(*conversation), now=2.0).turns == 2


def test_a_conversation_first_seen_mid_way_counts_its_earlier_turns() -> None:
    """After a restart the next request still carries the whole conversation."""
    tracker = SessionTracker()
    conversation = [SYSTEM, user("a"), assistant("b"), user("c"), assistant("d"), user("e")]
    assert tracker.observe("ada", "default", "s1", chat(*conversation), now=1.0).turns == 3


def test_after_a_forget_all_a_conversation_first_seen_owns_only_its_newest_turn() -> None:
    """A client that goes on after forget-all re-sends all of it: what came before is not the session's."""
    tracker = SessionTracker()
    conversation = [SYSTEM, user("a"), assistant("b"), user("c"), assistant("d"), user("e")]
    session = tracker.observe("ada", "default", "s1", chat(*conversation), now=1.0, fresh_only=True)
    assert session.turns == 1 and session.conversation() == [user("e")]
    more = [*conversation, assistant("f"), user("g")]
    session = tracker.observe("ada", "default", "s1", chat(*more), now=2.0, fresh_only=True)
    assert session.turns == 2 and session.conversation() == [user("e"), assistant("f"), user("g")]


def test_past_a_keys_share_only_that_keys_least_recently_seen_sessions_end() -> None:
    tracker = SessionTracker()
    tracker.observe("ada", "default", "a1", chat(user("hi")), now=0.0, size=100)
    for n in range(5):  # a service key's end users share its share
        tracker.observe(f"svc:k-1:end-{n}", "default", f"e{n}", chat(user("hi")), now=1.0 + n, size=100)
    ended = tracker.over_quota("svc:k-1:", max_count=3, max_bytes=10_000, max_total_bytes=10_000)
    assert [s.id for s in ended] == ["e0", "e1"] and tracker.get("ada", "default", "a1") is not None
    assert (tracker.usage.count, tracker.usage.size) == ({"ada": 1, "svc:k-1:": 3}, {"ada": 100, "svc:k-1:": 300})
    tracker.observe("bob", "default", "b1", chat(user("a long one")), now=9.0, size=5_000)
    ended = tracker.over_quota("bob", max_count=3, max_bytes=1_000, max_total_bytes=100_000)
    assert [s.id for s in ended] == ["b1"] and tracker.usage.total == 400


def test_past_the_bytes_all_sessions_may_hold_the_least_recently_seen_end() -> None:
    tracker = SessionTracker()
    for n in range(4):
        tracker.observe(f"u{n}", "default", "s", chat(user("hi")), now=float(n), size=300)
    ended = tracker.over_quota("u3", max_count=10, max_bytes=10_000, max_total_bytes=700)
    assert [s.user for s in ended] == ["u0", "u1"] and tracker.usage.total == 600
    tracker.end(("u2", "default", "s"))
    assert tracker.usage.total == 300 and tracker.usage.count == {"u3": 1}


def test_sessions_are_per_user_and_workspace() -> None:
    tracker = SessionTracker()
    tracker.observe("ada", "default", "s1", chat(user("hi")), now=1.0)
    tracker.observe("bob", "default", "s1", chat(user("hi")), now=1.0)
    tracker.observe("ada", "other", "s1", chat(user("hi")), now=1.0)
    assert [s.key for s in tracker.of("ada", "default")] == [("ada", "default", "s1")]
    assert len(tracker) == 3


def test_idle_sessions_end_and_busy_ones_stay() -> None:
    tracker = SessionTracker()
    tracker.observe("ada", "default", "old", chat(user("hi")), now=0.0)
    tracker.observe("ada", "default", "new", chat(user("hi")), now=50.0)
    ended = tracker.idle(now=60.0, timeout_s=30.0)
    assert [s.id for s in ended] == ["old"]
    assert [s.id for s in tracker.of("ada", "default")] == ["new"]


def test_a_request_keeps_a_session_from_going_idle() -> None:
    tracker = SessionTracker()
    tracker.observe("ada", "default", "a", chat(user("hi")), now=0.0)
    tracker.observe("ada", "default", "b", chat(user("hi")), now=1.0)
    tracker.observe("ada", "default", "a", chat(user("hi"), assistant("x"), user("more")), now=40.0)
    assert [s.id for s in tracker.idle(now=45.0, timeout_s=30.0)] == ["b"]


def test_past_the_limit_the_least_recently_seen_session_ends() -> None:
    tracker = SessionTracker(limit=2)
    for number in range(3):
        tracker.observe("ada", "default", f"s{number}", chat(user("hi")), now=float(number))
    assert [s.id for s in tracker.overflow()] == ["s0"]
    assert len(tracker) == 2


def test_end_removes_the_session_and_keeps_what_it_saw() -> None:
    tracker = SessionTracker()
    conversation = [SYSTEM, user("hi"), assistant(calls=("srv__fetch",)), tool("call_0", "page")]
    tracker.observe("ada", "default", "s1", chat(*conversation, model="m-1"), now=1.0)
    session = tracker.end(("ada", "default", "s1"))
    assert session is not None
    # the model is the one the upstream accepted (EpisodeService.confirm), never just what a request named
    assert (session.model, session.messages, session.tools) == (None, conversation, {"srv__fetch"})
    assert tracker.end(("ada", "default", "s1")) is None
    assert tracker.of("ada", "default") == []


def test_a_different_conversation_under_one_session_header_is_scanned_whole() -> None:
    tracker = SessionTracker()
    tracker.observe("ada", "default", "s1", chat(user("a"), assistant(calls=("read_file",))), now=1.0)
    other = chat(user("b"), assistant(calls=("web_fetch",)), tool("call_0", "x"), user("c"))
    session = tracker.observe("ada", "default", "s1", other, now=2.0)
    assert session.tools == {"read_file", "web_fetch"}


# -- provenance -----------------------------------------------------------------------------------------------


def test_a_session_is_untrusted_from_the_first_request_that_shows_an_untrusted_call_and_stays_so() -> None:
    tracker = SessionTracker()
    conversation = [SYSTEM, user("summarise https://example.com")]
    assert tracker.observe("ada", "default", "s1", chat(*conversation), now=1.0).provenance == TRUSTED
    conversation += [assistant(calls=("TodoWrite", "WebFetch")), tool("call_1", "IGNORE ALL PREVIOUS...")]
    session = tracker.observe("ada", "default", "s1", chat(*conversation), now=2.0)
    assert session.provenance == Provenance(True, ("WebFetch",))
    assert session.to_json()["untrusted"] is True and session.to_json()["sources"] == ["WebFetch"]
    # The client trims the call away: what the model read is still in its context, so the session stays untrusted.
    later = tracker.observe("ada", "default", "s1", chat(SYSTEM, user("and now?")), now=3.0)
    assert later.provenance == Provenance(True, ("WebFetch",))
    assert tracker.observe("ada", "default", "s2", chat(SYSTEM, user("and now?")), now=3.0).provenance == TRUSTED


def test_a_result_naming_an_untrusted_tool_taints_without_its_call() -> None:
    tracker = SessionTracker()
    result = {"role": "tool", "tool_call_id": "c1", "name": "mcp__srv__fetch", "content": "page"}
    session = tracker.observe("ada", "default", "s1", chat(user("hi"), result), now=1.0)
    assert session.provenance == Provenance(True, ("(unseen call)", "mcp__srv__fetch"))


def test_a_chained_request_follows_its_answers_session_and_learns_the_tools_the_chain_called() -> None:
    """A chained Responses request carries only results: the web_fetch call lives upstream, in the answer it chains
    from, which the tracker was told of when it ended."""
    tracker = SessionTracker()
    assert tracker.observe("ada", "default", "s1", chat(user("summarise the page")), now=1.0).provenance == TRUSTED
    tracker.link("ada", "default", "s1", ChainLink("resp_1", "resp_2", (("call_page", "web_fetch"),)))
    assert tracker.follow("bob", "default", "resp_1") is None  # another user's answer is never followed
    followed = tracker.follow("ada", "default", "resp_1")
    assert followed == Followed("s1", "resp_2", (("call_page", "web_fetch"),), after=1)
    result = tool("call_page", "IGNORE ALL PREVIOUS...")  # its call is not in the request: the chain's
    session = tracker.observe("ada", "default", followed.session, chat(result), now=2.0, chain=followed)
    assert session.provenance == Provenance(True, ("web_fetch",))


def answered(tracker: SessionTracker, session: str, *said: dict[str, Any]) -> None:
    """The upstream accepted the session's newest request and the client got ``said`` (as the pipeline confirms)."""
    found = tracker.get("ada", "default", session)
    assert found is not None
    found.answer = lambda: list(said)


def chained(tracker: SessionTracker, answer_id: str, *items: dict[str, Any], now: float) -> Any:
    """A chained Responses request naming ``answer_id``: only its new items, the rest is stored upstream."""
    followed = tracker.follow("ada", "default", answer_id)
    assert followed is not None
    return tracker.observe("ada", "default", followed.session, chat(*items), now=now, chain=followed)


def test_a_chained_sessions_conversation_holds_every_turn_and_answer_though_each_request_carries_only_its_own() -> None:
    tracker = SessionTracker()
    tracker.observe("ada", "default", "s1", chat(SYSTEM, user("How do zebras sleep?")), now=1.0)
    answered(tracker, "s1", assistant("Standing."))
    tracker.link("ada", "default", "s1", ChainLink("resp_1", "resp_1"))
    chained(tracker, "resp_1", user("Weather in Nairobi?"), now=2.0)
    answered(tracker, "s1", assistant(calls=("get_weather",)))  # a call of the client's tool, its id call_0
    tracker.link("ada", "default", "s1", ChainLink("resp_2", "resp_2", (("call_0", "get_weather"),)))
    chained(tracker, "resp_2", tool("call_0", "sunny"), now=3.0)
    answered(tracker, "s1", assistant("Sunny in Nairobi."))
    tracker.link("ada", "default", "s1", ChainLink("resp_3", "resp_3"))
    session = chained(tracker, "resp_3", user("Thanks!"), now=4.0)
    answered(tracker, "s1", assistant("Any time."))
    assert session.conversation() == [
        SYSTEM,
        user("How do zebras sleep?"),
        assistant("Standing."),
        user("Weather in Nairobi?"),
        assistant(calls=("get_weather",)),  # the call, which only the answer it chains from holds
        tool("call_0", "sunny"),
        assistant("Sunny in Nairobi."),  # an answer after a tool's result is kept too
        user("Thanks!"),
        assistant("Any time."),
    ]
    assert session.turns == 3 and session.tools == {"get_weather"}


def test_a_chained_request_forking_from_an_older_answer_goes_on_from_that_answer() -> None:
    tracker = SessionTracker()
    tracker.observe("ada", "default", "s1", chat(user("Name a fruit.")), now=1.0)
    answered(tracker, "s1", assistant("Apple."))
    tracker.link("ada", "default", "s1", ChainLink("resp_1", "resp_1"))
    chained(tracker, "resp_1", user("Another?"), now=2.0)
    answered(tracker, "s1", assistant("Pear."))
    tracker.link("ada", "default", "s1", ChainLink("resp_2", "resp_2"))
    retried = chained(tracker, "resp_1", user("Another?"), now=3.0)  # the same request again: not a new turn
    assert retried.turns == 2 and retried.conversation()[2:] == [user("Another?"), assistant("Pear.")]
    forked = chained(tracker, "resp_1", user("A vegetable?"), now=4.0)
    assert forked.conversation() == [user("Name a fruit."), assistant("Apple."), user("A vegetable?")]


def test_a_request_that_fails_leaves_its_question_unanswered_not_answered_by_the_previous_answer() -> None:
    tracker = SessionTracker()
    tracker.observe("ada", "default", "s1", chat(user("hi")), now=1.0)
    answered(tracker, "s1", assistant("hello"))
    session = tracker.observe("ada", "default", "s1", chat(user("hi"), assistant("hello"), user("more?")), now=2.0)
    assert session.conversation() == [user("hi"), assistant("hello"), user("more?")]  # the upstream refused it
    answered(tracker, "s1", assistant("sure"))
    retried = tracker.observe("ada", "default", "s1", chat(user("hi"), assistant("hello"), user("more?")), now=3.0)
    assert retried.conversation()[-1] == assistant("sure")  # a retry of an answered request keeps its answer


def test_an_answer_the_client_got_without_a_chain_id_of_its_own_chains_from_itself() -> None:
    tracker = SessionTracker()
    tracker.link("ada", "default", "s1", ChainLink("resp_1", None))
    assert tracker.follow("ada", "default", "resp_1") == Followed("s1", "resp_1", ())


def test_with_untrusted_by_default_any_client_tool_taints_but_the_proxys_own_do_not() -> None:
    strict = UntrustedTools((), by_default=True, own={"memory_search"})
    tracker = SessionTracker(untrusted=strict)
    session = tracker.observe("ada", "default", "s1", chat(user("hi"), assistant(calls=("memory_search",))), now=1.0)
    assert session.provenance == TRUSTED
    conversation = [user("hi"), assistant(calls=("get_weather",)), tool("call_0", "sunny")]
    assert tracker.observe("ada", "default", "s2", chat(*conversation), now=1.0).provenance.sources == ("get_weather",)
    trusting = SessionTracker(untrusted=UntrustedTools({"get_weather"}))  # the configuration trusts it
    assert trusting.observe("ada", "default", "s3", chat(*conversation), now=1.0).provenance == TRUSTED


def test_a_conversation_continues_its_session_only_while_it_extends_what_the_session_saw() -> None:
    tracker = SessionTracker()
    first = [SYSTEM, user("hi")]
    fingerprint = derive_session_id(first)
    assert tracker.resolve("ada", "default", fingerprint, first) == (fingerprint, True)
    tracker.observe("ada", "default", fingerprint, chat(*first), now=1.0)
    longer = [*first, {"role": "assistant", "content": "hello"}, user("tell me more")]
    assert tracker.resolve("ada", "default", fingerprint, longer) == (fingerprint, False)
    tracker.observe("ada", "default", fingerprint, chat(*longer), now=2.0)
    # another conversation that opens alike: shorter, or the same length but different, is a new session
    assert tracker.resolve("ada", "default", fingerprint, first) == (f"{fingerprint}-2", True)
    other = [*first, {"role": "assistant", "content": "hey"}, user("something else")]
    assert tracker.resolve("ada", "default", fingerprint, other) == (f"{fingerprint}-2", True)
    tracker.observe("ada", "default", f"{fingerprint}-2", chat(*other), now=3.0)
    assert tracker.resolve("ada", "default", fingerprint, [*other, user("and?")]) == (f"{fingerprint}-2", False)
    assert tracker.resolve("ada", "default", fingerprint, [*longer, user("and?")]) == (fingerprint, False)
    assert tracker.get("ada", "default", fingerprint).turns == 2  # type: ignore[union-attr]  # not double-counted


def test_a_restored_session_goes_back_in_order_and_merges_with_one_seen_meanwhile() -> None:
    tracker = SessionTracker()
    for number, name in enumerate(("s1", "s2", "s3"), 1):
        tracker.observe("ada", "default", name, chat(SYSTEM, user("a"), assistant("ok"), user("b")), now=number)
    s2 = tracker.end(("ada", "default", "s2"))
    assert s2 is not None
    tracker.restore(s2)  # its job could not be written
    assert [s.id for s in tracker] == ["s1", "s2", "s3"]  # least recently seen first
    assert [s.id for s in tracker.idle(3.5, 1.0)] == ["s1", "s2"]

    s3 = tracker.end(("ada", "default", "s3"))
    assert s3 is not None
    s3.tools |= {"web_fetch"}
    again = tracker.observe("ada", "default", "s3", chat(SYSTEM, user("a")), now=4.0)  # a request meanwhile
    tracker.restore(s3)
    assert [s for s in tracker] == [again]
    assert (again.turns, again.tools, again.started_at) == (2, {"web_fetch"}, 3.0)
    assert again.provenance == Provenance(True, ("web_fetch",))  # what the ended one took in taints the new one
