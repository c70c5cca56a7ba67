"""Which model the extraction call goes to, where, and with whose key."""

from types import SimpleNamespace
from typing import Any

import httpx
import orjson
import pytest
import respx

from proxy.config import load_settings
from proxy.episodes.extraction import NO_KEY, ExtractionFailed, LiteLLMExtractor
from proxy.pipe.providers import LiteLLMRoute

pytestmark = pytest.mark.anyio

MESSAGES = [{"role": "system", "content": "extract"}, {"role": "user", "content": "transcript"}]


def extractor(**overrides: Any) -> LiteLLMExtractor:
    settings = load_settings(overrides={"upstream.base_url": "http://upstream.test/v1", **overrides})
    return LiteLLMExtractor(settings, LiteLLMRoute.of(settings.upstream))


@pytest.fixture
def sent(litellm: Any, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """What extract() hands litellm; litellm answers with a canned completion."""
    calls: list[dict[str, Any]] = []

    async def acompletion(**arguments: Any) -> Any:
        calls.append(arguments)
        message = SimpleNamespace(content='{"summary": "s", "facts": []}')
        usage = SimpleNamespace(prompt_tokens=120, completion_tokens=15)
        return SimpleNamespace(choices=[SimpleNamespace(message=message)], usage=usage)

    monkeypatch.setattr(litellm, "acompletion", acompletion)
    return calls


async def test_by_default_the_sessions_own_model_on_the_upstream_with_the_clients_key(sent: list[dict]) -> None:
    answer = await extractor().extract(MESSAGES, session_model="gpt-4o-mini", client_key="sk-client")
    [call] = sent
    assert (call["model"], call["api_base"], call["api_key"]) == (
        "openai/gpt-4o-mini",
        "http://upstream.test/v1",
        "sk-client",
    )
    assert call["response_format"] == {"type": "json_object"} and call["messages"] == MESSAGES
    assert (answer.text, answer.prompt_tokens, answer.completion_tokens) == ('{"summary": "s", "facts": []}', 120, 15)


async def test_a_configured_upstream_key_wins_over_the_clients(sent: list[dict]) -> None:
    await extractor(**{"upstream.api_key": "sk-configured"}).extract(MESSAGES, session_model="m", client_key="sk-c")
    assert sent[0]["api_key"] == "sk-configured"


async def test_without_any_key_a_keyless_upstream_still_gets_the_call(sent: list[dict]) -> None:
    await extractor().extract(MESSAGES, session_model="llama3", client_key=None)
    assert sent[0]["api_key"] == NO_KEY


async def test_a_bare_extraction_model_goes_to_the_configured_upstream(sent: list[dict]) -> None:
    await extractor(**{"extraction.model": "gpt-4o-mini"}).extract(MESSAGES, session_model="gpt-5", client_key="k")
    assert (sent[0]["model"], sent[0]["api_base"]) == ("openai/gpt-4o-mini", "http://upstream.test/v1")


async def test_a_provider_model_uses_its_own_environment_never_the_clients_key(sent: list[dict]) -> None:
    await extractor(**{"extraction.model": "anthropic/claude-3-5-haiku"}).extract(
        MESSAGES, session_model="gpt-4o", client_key="sk-openai-client"
    )
    assert sent[0]["model"] == "anthropic/claude-3-5-haiku"
    assert "api_key" not in sent[0] and "api_base" not in sent[0]


async def test_a_model_served_through_litellm_goes_where_its_chat_requests_go(sent: list[dict]) -> None:
    routed = extractor(**{"upstream.litellm_models": ["anthropic/*"], "upstream.litellm_api_base": "http://a.test"})
    await routed.extract(MESSAGES, session_model="anthropic/claude-3-5-haiku", client_key="sk-ant-client")
    assert (sent[0]["model"], sent[0]["api_base"], sent[0]["api_key"]) == (
        "anthropic/claude-3-5-haiku",
        "http://a.test",
        "sk-ant-client",
    )


async def test_a_session_model_with_a_slash_is_still_the_upstreams(sent: list[dict]) -> None:
    """vLLM and friends serve models named like `meta-llama/Llama-3.1-8B`: not a litellm provider prefix."""
    await extractor().extract(MESSAGES, session_model="meta-llama/Llama-3.1-8B", client_key=None)
    assert sent[0]["model"] == "openai/meta-llama/Llama-3.1-8B"


async def test_no_model_at_all_fails_the_job_not_the_process() -> None:
    with pytest.raises(ExtractionFailed, match="no model"):
        await extractor().extract(MESSAGES, session_model=None, client_key=None)


async def test_a_provider_error_becomes_a_retryable_failure_without_secrets(litellm: Any, monkeypatch: Any) -> None:
    async def acompletion(**arguments: Any) -> Any:
        raise litellm.RateLimitError("slow down, sk-proj-Ab3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z", "openai", "m")

    monkeypatch.setattr(litellm, "acompletion", acompletion)
    with pytest.raises(ExtractionFailed) as caught:
        await extractor().extract(MESSAGES, session_model="m", client_key=None)
    assert "slow down" in caught.value.message and "Ab3dE5fG7hJ9" not in caught.value.message


# -- where a session's own upstream is Anthropic's, or the Responses API --------------------------------------


@pytest.fixture
def wire() -> Any:
    """The wire calls (Messages, Responses) go out through httpx: respx answers them."""
    with respx.mock(assert_all_called=False) as router:
        yield router


def anthropic_answer(request: httpx.Request) -> httpx.Response:
    content = [{"type": "text", "text": '{"summary": "s", "facts": []}'}]
    return httpx.Response(200, json={"content": content, "usage": {"input_tokens": 90, "output_tokens": 9}})


async def test_an_anthropic_session_goes_to_anthropics_upstream_in_messages_with_its_key(wire: Any) -> None:
    route = wire.post("http://anthropic.test/v1/messages").mock(side_effect=anthropic_answer)
    answer = await extractor(**{"upstream.anthropic_base_url": "http://anthropic.test/v1"}).extract(
        MESSAGES, session_model="claude-sonnet-4-5", client_key="sk-ant-client", api="messages", key_header="x-api-key"
    )
    request = route.calls.last.request
    body = orjson.loads(request.content)
    assert body["system"] == "extract" and body["messages"] == [{"role": "user", "content": "transcript"}]
    assert body["model"] == "claude-sonnet-4-5" and body["max_tokens"] > 0
    assert request.headers["x-api-key"] == "sk-ant-client" and "authorization" not in request.headers
    assert request.headers["anthropic-version"]
    assert (answer.text, answer.prompt_tokens, answer.completion_tokens) == ('{"summary": "s", "facts": []}', 90, 9)


async def test_the_configured_key_goes_to_anthropic_as_the_proxy_sends_it_there(wire: Any) -> None:
    route = wire.post("https://api.anthropic.com/v1/messages").mock(side_effect=anthropic_answer)
    await extractor(**{"upstream.api_key": "sk-server"}).extract(
        MESSAGES, session_model="claude", client_key=None, api="messages"
    )
    assert route.calls.last.request.headers["x-api-key"] == "sk-server"


async def test_a_responses_session_goes_to_the_responses_api_unstored(wire: Any) -> None:
    output = [{"type": "message", "content": [{"type": "output_text", "text": "{}"}]}]
    route = wire.post("http://upstream.test/v1/responses").mock(
        return_value=httpx.Response(200, json={"output": output, "usage": {"input_tokens": 5, "output_tokens": 1}})
    )
    answer = await extractor().extract(MESSAGES, session_model="gpt-5-codex", client_key="sk-c", api="responses")
    body = orjson.loads(route.calls.last.request.content)
    assert body["input"] == MESSAGES and body["store"] is False and body["text"]["format"]["type"] == "json_object"
    assert route.calls.last.request.headers["authorization"] == "Bearer sk-c"
    assert answer.text == "{}"


async def test_an_anthropic_sessions_key_never_goes_to_a_configured_openai_model(sent: list[dict]) -> None:
    await extractor(**{"extraction.model": "gpt-4o-mini"}).extract(
        MESSAGES, session_model="claude", client_key="sk-ant-client", api="messages", key_header="x-api-key"
    )
    assert sent[0]["model"] == "openai/gpt-4o-mini" and sent[0]["api_key"] == NO_KEY


async def test_a_refusal_of_a_call_without_the_sessions_key_is_a_failure_not_a_wait(
    litellm: Any, monkeypatch: Any
) -> None:
    """Waiting for the user's key only makes sense where their key would be used."""

    async def acompletion(**arguments: Any) -> Any:
        raise litellm.AuthenticationError("no key", "openai", "m")

    monkeypatch.setattr(litellm, "acompletion", acompletion)
    configured = extractor(**{"extraction.model": "gpt-4o-mini"})
    with pytest.raises(ExtractionFailed) as elsewhere:
        await configured.extract(MESSAGES, session_model="claude", client_key="sk-ant", api="messages")
    with pytest.raises(ExtractionFailed) as own:
        await extractor().extract(MESSAGES, session_model="gpt", client_key=None, api="chat")
    assert (elsewhere.value.keyless, own.value.keyless) == (False, True)


async def test_the_servers_key_never_goes_to_a_provider_model(sent: list[dict]) -> None:
    await extractor(**{"extraction.model": "anthropic/claude-3-5-haiku", "upstream.api_key": "sk-server"}).extract(
        MESSAGES, session_model="gpt-4o", client_key=None
    )
    assert "api_key" not in sent[0]


async def test_an_anthropic_upstream_error_is_a_retryable_failure_without_secrets(wire: Any) -> None:
    error = {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "busy, sk-ant-api03-Ab3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z"},
    }
    wire.post("https://api.anthropic.com/v1/messages").mock(return_value=httpx.Response(529, json=error))
    with pytest.raises(ExtractionFailed) as caught:
        await extractor().extract(MESSAGES, session_model="claude", client_key="k", api="messages")
    assert caught.value.upstream_status == 529 and "busy" in caught.value.message
    assert "Ab3dE5fG7hJ9" not in caught.value.message
