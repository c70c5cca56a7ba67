import pytest

from proxy.errors import InvalidRequest
from proxy.pipe.paths import checked_path
from proxy.pipe.upstream import Upstream

from .traversal import ESCAPES, ORDINARY


@pytest.mark.parametrize("path", ESCAPES)
def test_every_way_of_writing_a_dot_segment_is_refused(path: str) -> None:
    with pytest.raises(InvalidRequest) as refused:
        checked_path(path)
    assert refused.value.status == 400 and refused.value.param == "path"


@pytest.mark.parametrize("path", ORDINARY)
def test_an_ordinary_path_is_sent_exactly_as_it_came(path: str) -> None:
    assert checked_path(path) == path
    url = Upstream("https://api.example.com/v1", timeout_s=1).url(path)
    assert url.raw_path.decode() == "/v1" + path.removeprefix("/v1")


@pytest.mark.parametrize("path", ["/v1/a b", "/v1/é", "/v1/a#b", "/v1/a?b", "v1/models", "/v1/<script>"])
def test_characters_outside_a_url_path_are_refused_not_encoded_on_the_way(path: str) -> None:
    with pytest.raises(InvalidRequest):
        checked_path(path)
