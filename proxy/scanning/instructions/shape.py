"""A suspect instruction's shape (`Shape`: a label, gate words and a pattern) and the fragments the families'
patterns share: words apart by spaces, the assistant named, an order to it, a verb that is an order."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..lazy import LazyPattern, Pattern

_S = r"[ \t]+"  # words are apart by spaces or tabs, never by a line break: an instruction is one line
_AI = r"(?:assistant|ai|model|llm|chatbot|bot|agent|claude|chatgpt|gpt|copilot|gemini)"
# What an order to the model says, after a header: the model must, the model is asked to act when it answers.
_ORDER = (
    rf"\b(?:(?:the{_S})?{_AI}{_S}(?:must|should|shall|has{_S}to|needs{_S}to|is{_S}required{_S}to|will|may{_S}now|is{_S}to)"
    rf"|you{_S}(?:must|should|shall|have{_S}to|need{_S}to|are{_S}(?:now{_S})?(?:required|allowed|permitted|authori[sz]ed|to)"
    rf"|may{_S}now|will{_S}now|can{_S}now|never|always|(?:do{_S}not|don't){_S}(?:refuse|warn|ask|mention|tell))"
    rf"|when(?:ever)?{_S}(?:answering|replying|responding|summari[sz]ing|asked|writing|drafting|you{_S}(?:answer|reply"
    rf"|respond|see|read|write|draft|send|book|buy|order|summari[sz]e|create|schedule|pay|transfer))"
    # (said of someone else, "banks never ask for it", "she always says", it is a fact about them)
    rf"|(?:tell|remind|inform|advise){_S}the{_S}user{_S}(?:to|that)"
    rf"|(?<![a-z]s[ \t])(?<!\bthey[ \t])(?<!\bshe[ \t])(?<!\bhe[ \t])(?<!\bwe[ \t])(?<!\bi[ \t])"
    rf"(?:always|never){_S}(?:include|add|append"
    rf"|recommend|mention|warn|say|reply|respond|answer|refuse|ask|use|send|tell|start|end|praise|b?cc|copy|forward"
    rf"|e-?mail|route|redirect|link|book|charge|share|suggest|push|promote)"
    # "respond in English only", "reply exclusively with ...": how every answer must be
    rf"|(?:respond|reply|answer|write)\w*{_S}(?:(?:only|exclusively|solely)\b|in{_S}[a-z]+{_S}only\b)"
    rf"|(?:include|append|add|insert){_S}(?:a{_S}|the{_S})?(?:link|referral|image|text|line){_S}[^\n]{{0,30}}(?:every|each|all)"
    rf"{_S}(?:answers?|repl(?:y|ies)|responses?|messages?)"
    # "when the user asks about X, say ...", "if anyone mentions Y, tell them ...": what to answer a person
    rf"|(?:when(?:ever)?|if|once){_S}(?:the{_S}user|a{_S}user|users|anyone|someone|somebody|a{_S}customer|they)"
    rf"{_S}(?:asks?|mentions?|says|brings?{_S}up|talks?|wants?|requests?|needs?)\b[^\n]{{0,80}}?,?{_S}"
    rf"(?:say|tell|claim|answer|reply|respond|insist|recommend|direct|send|point))\b"
)


# Where a verb is an order: at the start of a sentence or clause, after "always", "just" or "then", or after "you
# may", "the assistant must" ("I will buy it without checking" is a story, "buy it without asking" an order).
_BIDDEN = (
    rf"(?:(?:^|[\n.!?;:,(\[-])[ \t]*(?:(?:and|then|but|so)[ \t]+)?|\b(?:you|assistant|ai|model|agent|bot|it)"
    rf"{_S}(?:may|can|must|should|shall|will|is{_S}to|are{_S}to|(?:is|are){_S}allowed{_S}to|has{_S}to|have{_S}to"
    rf"|needs?{_S}to){_S}|\b(?:always|just|simply|then|and|also){_S})(?:(?:always|just|simply|then|also|politely"
    rf"|quietly|firmly){_S})?"
)


@dataclass(frozen=True, slots=True)
class Shape:
    """One shape of a suspect instruction: `gate`, strings one of which the view holds wherever `pattern` matches."""

    label: str
    gate: tuple[str, ...]
    pattern: Pattern
    also: tuple[str, ...] = ()  # a second gate: the view also holds one of these wherever `pattern` matches
    words: frozenset[str] = field(init=False, repr=False, compare=False)
    also_words: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "words", frozenset(self.gate))
        object.__setattr__(self, "also_words", frozenset(self.also))

    def search(self, view: str, present: frozenset[str] | None = None) -> bool:
        """Whether the pattern matches `view`; `present`, when given, is the gate words `view` holds (`GATES`)."""
        if present is None:
            opened = any(w in view for w in self.gate) and (not self.also or any(w in view for w in self.also))
        else:
            opened = not self.words.isdisjoint(present) and (not self.also or not self.also_words.isdisjoint(present))
        return opened and bool(self.pattern.search(view))


def _shape(label: str, gate: tuple[str, ...], *patterns: str, also: tuple[str, ...] = ()) -> Shape:
    return Shape(label, gate, LazyPattern("|".join(f"(?:{p})" for p in patterns)), also)
