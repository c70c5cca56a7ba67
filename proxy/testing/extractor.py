"""A scripted extraction model for tests of memproxy's episode service: no upstream, no litellm, no process.

:class:`FakeExtractor` meets :class:`proxy.episodes.extraction.Extractor`. Extraction calls take the queued
answers in order (or raise the queued errors); judgement calls (is a new fact the same as, an update of, or
different from a stored memory?) take the queued verdicts, then ``default_verdict``. Every call is noted::

    extractor = FakeExtractor()
    extractor.answer("Moved the deploy.", "The deploy target is GCP europe-west1")
    extractor.verdicts.append("update")
    service = EpisodeService(settings, memory, episodes, jobs, extractor, metrics, proxy_tools=...)
    ...
    assert extractor.judged == [("The deploy target is GCP europe-west1", "Deploy target is AWS us-east-1")]

Over the fake upstream instead (a real proxy, the real extraction process), ``responders.judgement_reply`` and
``extraction_responder(judge=...)`` answer the same calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from .responders import is_judgement, judged

VERDICTS = ("same", "update", "different")

if TYPE_CHECKING:
    from ..episodes.extraction import Answer


@dataclass
class FakeExtractor:
    answers: list[str | Exception] = field(default_factory=list)  # extraction answers (JSON text) or errors
    verdicts: list[str | Exception] = field(default_factory=list)  # judgement answers: a verdict, raw text, an error
    default_verdict: str = "different"  # when no verdict is queued
    model: str = "openai/fake-extractor"
    calls: list[dict[str, Any]] = field(default_factory=list)  # every call: messages, session model, key, format
    judged: list[tuple[str, str]] = field(default_factory=list)  # (new fact, existing memory) of judgement calls

    def answer(self, summary: str, *facts: str) -> None:
        """Queue an extraction answer: ``{"summary", "facts"}``."""
        self.answers.append(orjson.dumps({"summary": summary, "facts": list(facts)}).decode())

    async def extract(
        self,
        messages: list[dict[str, str]],
        *,
        session_model: str | None,
        client_key: str | None,
        api: str = "chat",
        key_header: str = "authorization",
    ) -> Answer:
        from ..episodes.extraction import Answer  # lazily: `import proxy.testing` stays light

        call = {"messages": messages, "session_model": session_model, "client_key": client_key}
        self.calls.append({**call, "api": api, "key_header": key_header})
        body = {"messages": messages}
        if is_judgement(body):
            self.judged.append(judged(body))
            verdict = self.verdicts.pop(0) if self.verdicts else self.default_verdict
            if isinstance(verdict, Exception):
                raise verdict
            # Anything but the three verdicts goes back as it is, as a confused model's text would.
            text = orjson.dumps({"verdict": verdict}).decode() if verdict in VERDICTS else verdict
            return Answer(text, self.model, 40, 5)
        if not self.answers:
            raise AssertionError("FakeExtractor: an extraction call, and no answer queued")
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return Answer(answer, self.model, 100, 20)

    async def aclose(self) -> None:
        pass
