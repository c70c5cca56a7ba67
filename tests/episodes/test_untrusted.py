"""Which tool names make a session untrusted: one matcher for episodes and memory writes (DESIGN "Provenance")."""

import pytest

from proxy.config import ExtractionSettings
from proxy.episodes.untrusted import MCP_TOOL, UntrustedTools, tool_key

PROXY_TOOLS = frozenset({"memory_store", "memory_search", "memory_retrieve", "memory_delete"})
DEFAULTS = UntrustedTools.of(ExtractionSettings(), trusted=PROXY_TOOLS)


def test_a_configured_tool_is_untrusted_and_others_are_not() -> None:
    untrusted = UntrustedTools({"web_fetch", "browse"})
    assert untrusted.sources({"get_weather", "web_fetch"}) == ("web_fetch",)
    assert untrusted.sources(["get_weather", "memory_store"]) == ()
    assert untrusted.sources([]) == ()


@pytest.mark.parametrize("name", ["web_fetch", "WebFetch", "webFetch", "web-fetch", "web.fetch", "WEB FETCH"])
def test_names_match_whatever_their_case_and_separators(name: str) -> None:
    assert UntrustedTools({"web_fetch"})(name)
    assert tool_key(name) == "webfetch"


@pytest.mark.parametrize("name", ["functions.read_file", "default_api:read_file", "tools/read_file"])
def test_a_namespaced_name_matches_by_its_last_part(name: str) -> None:
    assert UntrustedTools({"read_file"})(name)


@pytest.mark.parametrize(
    "name",
    [
        # Claude Code
        "WebFetch", "WebSearch", "Read", "Bash", "BashOutput", "Grep", "Glob", "NotebookRead", "Task",
        # Codex CLI, the OpenAI Agents SDK, Anthropic's client tools
        "shell", "local_shell", "exec_command", "write_stdin", "web_search", "file_search", "computer",
        "code_interpreter", "str_replace_based_edit_tool",
        # Cursor, Cline, Gemini CLI
        "read_file", "run_terminal_cmd", "grep_search", "codebase_search", "execute_command", "browser_action",
        "run_shell_command", "google_web_search", "read_many_files", "search_file_content",
        # common names
        "fetch", "browse", "browse_url", "open_url", "http_get", "http_request", "curl", "read_url", "scrape",
        "crawl", "view_file", "cat", "run_command", "terminal", "bash", "python",
    ],
)  # fmt: skip
def test_the_common_agent_tools_for_the_web_files_and_shells_are_untrusted_by_default(name: str) -> None:
    assert DEFAULTS(name)


@pytest.mark.parametrize(
    "name", ["apply_patch", "Edit", "Write", "TodoWrite", "update_plan", "get_weather", "memory_store"]
)
def test_tools_whose_results_are_the_agents_own_are_trusted_by_default(name: str) -> None:
    assert not DEFAULTS(name)


@pytest.mark.parametrize("name", ["srv__fetch", "github__list_issues", "mcp__server__tool", "_x__y", "a___b"])
def test_mcp_adapter_names_are_untrusted(name: str) -> None:
    assert MCP_TOOL.fullmatch(name)
    assert UntrustedTools(()).sources([name]) == (name,)


@pytest.mark.parametrize("name", ["memory_store", "__init__", "a__", "__b", "___", "a____", "read_file", "a_b_c"])
def test_names_with_an_empty_part_or_no_double_underscore_are_not_mcp(name: str) -> None:
    assert not MCP_TOOL.fullmatch(name)
    assert UntrustedTools(()).sources([name]) == ()


def test_sources_are_sorted_deduplicated_and_spelled_as_seen() -> None:
    names = ["zeta__get", "WebFetch", "alpha__list", "zeta__get", "get_weather", "WebFetch"]
    assert UntrustedTools(["web_fetch"]).sources(names) == ("WebFetch", "alpha__list", "zeta__get")


def test_untrusted_by_default_makes_every_tool_but_the_proxys_own_untrusted() -> None:
    strict = UntrustedTools((), by_default=True, trusted=PROXY_TOOLS)
    assert strict.sources(["get_weather", "apply_patch", "memory_search", "memory_store"]) == (
        "apply_patch",
        "get_weather",
    )
    settings = ExtractionSettings(untrusted_by_default=True)
    assert UntrustedTools.of(settings, trusted=PROXY_TOOLS)("get_weather")


def test_the_proxys_own_tools_never_taint_even_when_listed() -> None:
    assert not UntrustedTools(["memory_search"], trusted=PROXY_TOOLS)("memory_search")
