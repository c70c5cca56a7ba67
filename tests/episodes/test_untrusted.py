"""Which tool names make a session untrusted: one allow-list for episodes and memory writes (DESIGN "Provenance")."""

import pytest

from proxy.config import TRUSTED_TOOLS, ExtractionSettings
from proxy.episodes.untrusted import MCP_TOOL, UntrustedTools, tool_key

PROXY_TOOLS = frozenset({"memory_store", "memory_search", "memory_retrieve", "memory_delete"})
DEFAULTS = UntrustedTools.of(ExtractionSettings(), own=PROXY_TOOLS)

# Tools that bring outside content in, under names no list of them ever held in full (issue 36's 44 names among them).
OUTSIDE_TOOLS = [
    # Claude Code
    "WebFetch", "WebSearch", "Read", "Bash", "BashOutput", "Grep", "Glob", "NotebookRead", "Task", "LS",
    # Codex CLI, the OpenAI Agents SDK, Anthropic's client tools and hosted tools as the proxy names them
    "shell", "local_shell", "exec_command", "write_stdin", "web_search", "file_search", "computer",
    "code_interpreter", "str_replace_based_edit_tool", "image_generation", "bash_code_execution", "code_execution",
    "text_editor_code_execution", "web_fetch", "view_image",
    # Cursor, Cline, Roo, Gemini CLI, OpenHands, smolagents
    "read_file", "run_terminal_cmd", "grep_search", "codebase_search", "execute_command", "browser_action",
    "run_shell_command", "google_web_search", "read_many_files", "search_file_content", "use_mcp_tool",
    "access_mcp_resource", "execute_bash", "execute_ipython_cell", "visit_webpage", "list_files", "list_directory",
    "write_to_file", "replace_in_file",
    # LangChain and friends
    "tavily_search_results_json", "duckduckgo_search", "wikipedia", "arxiv", "requests_get", "serpapi",
    # common names
    "fetch", "fetch_url_content", "search_web", "run_terminal_command", "browse", "browse_url", "open_url",
    "http_get", "http_request", "curl", "read_url", "scrape", "crawl", "view_file", "cat", "run_command", "terminal",
    "bash", "python", "get_weather", "lookup_customer",
]  # fmt: skip


def test_a_tool_is_untrusted_unless_the_configuration_trusts_it() -> None:
    allow = UntrustedTools({"get_weather"})
    assert allow.sources({"get_weather", "fetch_url_content"}) == ("fetch_url_content",)
    assert allow.sources(["get_weather"]) == ()
    assert allow.sources([]) == ()


@pytest.mark.parametrize("name", ["todo_write", "TodoWrite", "todoWrite", "todo-write", "todo.write", "TODO WRITE"])
def test_names_match_whatever_their_case_and_separators(name: str) -> None:
    assert not UntrustedTools({"TodoWrite"})(name)
    assert UntrustedTools((), untrusted={"todo_write"})(name)
    assert tool_key(name) == "todowrite"


@pytest.mark.parametrize("name", ["functions.read_file", "default_api:read_file", "tools/read_file", "evil.read_file"])
def test_an_untrusted_name_matches_by_its_last_part_whatever_the_namespace(name: str) -> None:
    assert UntrustedTools({"read_file"}, untrusted={"read_file"})(name)


@pytest.mark.parametrize("name", ["functions.apply_patch", "default_api:apply_patch"])
def test_a_trusted_name_matches_under_a_harness_namespace(name: str) -> None:
    assert not UntrustedTools({"apply_patch"})(name)


@pytest.mark.parametrize("name", ["evil.apply_patch", "srv/apply_patch", "x:y:apply_patch"])
def test_a_trusted_name_never_matches_under_any_other_namespace(name: str) -> None:
    assert UntrustedTools({"apply_patch"})(name)


@pytest.mark.parametrize("name", OUTSIDE_TOOLS)
def test_tools_that_bring_outside_content_in_are_untrusted_by_default(name: str) -> None:
    assert DEFAULTS(name)


@pytest.mark.parametrize(
    "name",
    ["apply_patch", "Edit", "MultiEdit", "Write", "NotebookEdit", "TodoWrite", "update_plan", "write_todos",
     "ExitPlanMode", "write_file", "functions.apply_patch", *sorted(PROXY_TOOLS)],
)  # fmt: skip
def test_tools_that_only_act_are_trusted_by_default(name: str) -> None:
    assert not DEFAULTS(name)


def test_every_default_trusted_name_is_one_that_only_acts() -> None:
    """The defaults are the list docs/security.md explains: a new entry must be argued for there too."""
    assert set(TRUSTED_TOOLS) == {
        "TodoWrite", "update_plan", "write_todos", "ExitPlanMode", "apply_patch", "write_file",
        "Edit", "MultiEdit", "Write", "NotebookEdit",
    }  # fmt: skip


@pytest.mark.parametrize("name", ["srv__fetch", "github__list_issues", "mcp__server__tool", "_x__y", "a___b"])
def test_mcp_adapter_names_are_untrusted(name: str) -> None:
    assert MCP_TOOL.fullmatch(name)
    assert DEFAULTS.sources([name]) == (name,)


def test_an_mcp_tool_is_trusted_only_when_listed_as_it_is_spelled() -> None:
    listed = UntrustedTools({"github__create_issue"})
    assert not listed("github__create_issue")
    assert listed("GitHub__Create_Issue")
    assert UntrustedTools({"TodoWrite"})("todo__write")  # no server names a tool into a trusted key


@pytest.mark.parametrize("name", ["memory_store", "__init__", "a__", "__b", "___", "a____", "read_file", "a_b_c"])
def test_names_with_an_empty_part_or_no_double_underscore_are_not_mcp(name: str) -> None:
    assert not MCP_TOOL.fullmatch(name)
    assert UntrustedTools([name]).sources([name]) == ()


def test_sources_are_sorted_deduplicated_and_spelled_as_seen() -> None:
    names = ["zeta__get", "WebFetch", "alpha__list", "zeta__get", "TodoWrite", "WebFetch"]
    assert UntrustedTools(["todo_write"]).sources(names) == ("WebFetch", "alpha__list", "zeta__get")


def test_untrusted_tools_win_over_trusted_ones() -> None:
    """A config written for the deny-list keeps meaning what it said."""
    settings = ExtractionSettings(untrusted_tools=("Write", "web_fetch"))
    untrusted = UntrustedTools.of(settings, own=PROXY_TOOLS)
    assert untrusted("Write") and untrusted("web_fetch") and not untrusted("Edit")


def test_untrusted_by_default_ignores_the_trusted_list_but_never_the_proxys_own_tools() -> None:
    strict = UntrustedTools({"apply_patch"}, by_default=True, own=PROXY_TOOLS)
    assert strict.sources(["get_weather", "apply_patch", "memory_search", "memory_store"]) == (
        "apply_patch",
        "get_weather",
    )
    settings = ExtractionSettings(untrusted_by_default=True)
    assert UntrustedTools.of(settings, own=PROXY_TOOLS)("TodoWrite")


def test_the_proxys_own_tools_never_taint_even_when_listed() -> None:
    assert not UntrustedTools((), untrusted=["memory_search"], own=PROXY_TOOLS)("memory_search")
