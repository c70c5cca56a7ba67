"""Does a text read like an order to the assistant? A linear model over word and character n-grams, for the
instructions no phrase list foresees (issue 37: "regexes alone will not get both numbers right").

What it catches is only ever held for a person to review, never refused: it judges wording, and a good memory may
tell the assistant what to do ("always answer in metric units"); the model was trained with such preferences on the
benign side (tests/scanning/training/preferences.txt). Character n-grams carry it across inflections, spellings and
the other languages the corpus holds. Trained by ``bench/instruction_model.py`` with scikit-learn's TF-IDF and
logistic regression; this module scores a text the way that pipeline does, in the standard library, so the proxy
needs neither scikit-learn nor numpy. The weights load at the first scan that gets this far (a gzip of JSON beside
this module).
"""

from __future__ import annotations

import gzip
import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import chain
from pathlib import Path
from typing import Any

MODEL = Path(__file__).with_name("instruction_model.json.gz")

# Below SURE, the model's word is taken only for a text with something of an order in it: a word that addresses or
# directs (you, must, always, every, whenever, call, send, ...), a link, an address, a call's parentheses. Short plain
# facts ("The user read the alpha notes.") can score high on a few words injections also use; they have none.
LIKELY, SURE = 0.5, 0.9
_ORDER_CUE = re.compile(
    r"\b(?:you|your|yours|yourself|must|should|shall|always|never|every|each|whenever|any|all(?!['’])|from now on"
    r"|do not"
    r"|don't|instructions?|assistant|ai|model|llm|bot|agent|claude|gpt|chatgpt|system|prompt|ignore|call|run"
    r"|execute|send|forward|reply|respond|answer|tell|say|ask|mention|include|append|recommend"
    # the same in the languages the corpus has most: you, must, always, never, every, assistant (never German "sie" and
    # "ihr": she, they and her as often as a formal "you")
    r"|du|dich|dir|tu|toi|vous|usted|ustedes|voc[eê]|jij|je|musst|m[uü]ssen|sollst|dois|doit|devez|debes"
    r"|debe|deve|devi|devo|moet|immer|nie|niemals|jede[nmrs]?|toujours|jamais|chaque|siempre|nunca|cada|sempre"
    r"|mai|ogni|altijd|nooit|elke|assistente?|asistente|assistant[ea]?"
    # and in German, Spanish, Italian, French, Portuguese and Dutch, whose orders drop the "you": from now on, the
    # system, instructions, and the verbs above (send, forward, tell, say, answer, mention, include, recommend, run)
    r"|ab sofort|ab jetzt|von nun an|a partir de ahora|de ahora en adelante|d'ora in poi|da ora in poi|d[ée]sormais"
    r"|[àa] partir de maintenant|de agora em diante|a partir de agora|vanaf nu|voortaan"
    r"|system(?:nachricht|hinweis|prompt|meldung)|sistema|syst[èe]me|systeem\w*|anweisung(?:en)?|instrucci[oó]n(?:es)?"
    r"|istruzion[ei]|consignes?|instru[çc](?:[ãa]o|[õo]es)|instructies?"
    r"|sag|schick\w*|sende|leite|antworte|erw[äa]hne|empfiehl|f[üu]hre|ignoriere|verrate|behaupte|melde"
    r"|dile|diga|env[íi]a|envie|envoie|invia|manda|mande|reenv[íi]a|inoltra|transf[èe]re|encaminhe"
    r"|responde|responda|contesta|rispondi|r[ée]ponds|menciona|mencione|menziona|mentionne|incluye|includi|inclua"
    r"|recomienda|recomende|consiglia|raccomanda|recommande|ejecuta|esegui|ex[ée]cute|lance|dis|zeg|stuur"
    r"|antwoord|noem|negeer|raad)\b"
    # Polish and Russian: you, always, never, from now on, the system, instructions, and the verbs above (whole words:
    # "ty" is in "security" and "party")
    r"|\b(?:ty|ciebie|tobie|jeste[śs]|musisz|zawsze|nigdy|ka[żz]d\w*|od teraz|asystent\w*|systemow\w*|instrukcj\w*"
    r"|polecen\w*|wy[śs]lij|wysy[łl]aj|przeka[żz]\w*|powiedz|m[óo]w|odpowiadaj|polecaj|ignoruj|zapomnij"
    r"|nie wspominaj|всегда|никогда|с этого момента|системн\w*|инструкци\w*|отключи|выполняй|пересылай"
    r"|отправляй|игнорируй|забудь|скажи|говори|отвечай|рекомендуй|не упоминай|ассистент\w*|помощник\w*|ты|вы)\b"
    r"|アシスタント|助手|助理|어시스턴트"
    r"|https?://|www\.|\S@\S+\.\w|\w\(",
    re.IGNORECASE,
)
# A text about writing prompts or about injections, as a piece of writing (a blog post, a talk, meeting minutes, an
# example): it names what the model reads as an order without giving one. The model's word alone does not hold it.
_ABOUT_PROMPTS = re.compile(
    r"(?:<(?:system|user|assistant)>|\"role\"[ \t]*:|prompt[ -]?injection|injections?[ \t]+(?:de|of)[ \t]+prompts?"
    r"|inyecci[oó]n(?:es)?[ \t]+de[ \t]+prompts?"
    r"|iniezion[ei][ \t]+(?:di[ \t]+)?prompt|inje[cç][ãa]o[ \t]+de[ \t]+prompts?|prompt-?injektion|jailbreak"
    r"|(?:system[ \t-]?)?prompt[ \t-]?(?:design|engineering|guidelines?|files?)"
    r"|プロンプトインジェクション|プロンプト設計"
    r"|提示(?:词)?注入|提示词设计|프롬프트[ \t]*(?:인젝션|설계))",
    re.IGNORECASE,
)
_A_PIECE_OF_WRITING = re.compile(
    r"(?:\b(?:blog|article|artículo|articolo|artigo|artikel|post|talk|paper|slides?|minutes|meeting|docs?|example"
    r"|exemple|ejemplo|esempio|exemplo|beispiel|voorbeeld|workshop|course|cours|curso|lecture|data|compare|comparing"
    r"|feedback|review|tone|diagram|labell?ed|labels?|boxes|debug\w*|api|templates?|testing)\b|회의록|議事録|会议纪要"
    r"|会議|会议|記事|文章|예시|例)",
    re.IGNORECASE,
)


def talks_about_prompts(text: str) -> bool:
    """Whether `text` is a piece of writing about prompts or injections: the model's hold is not taken for it."""
    return _ABOUT_PROMPTS.search(text) is not None and _A_PIECE_OF_WRITING.search(text) is not None


# A text that reports what someone asked for or prefers, speaking to no model: "Pregunta cómo activar la verificación en
# dos pasos", "Asked for a system prompt draft for their own Discord bot", "Preferisce il treno all'aereo". An order
# to the model has an addressee, a link or an address to send to; these have none, and the model's word is not taken.
_REPORTED = re.compile(
    r"\W*(?:(?:the[ \t]+)?user[ \t]+|she[ \t]+|he[ \t]+|they[ \t]+|ele[ \t]+|ela[ \t]+|il[ \t]+|elle[ \t]+|er[ \t]+"
    r"|lei[ \t]+|lui[ \t]+)?(?:asked|asks|would[ \t]+like|pregunta|pregunt[oó]|pergunta|perguntou|quer|quiere"
    r"|chiede|ha[ \t]+chiesto|vuole|demande|a[ \t]+demand[ée]|veut|fragt|fragte|m[öo]chte|vraagt|wil"
    r"|prefiere|preferisce|prefere|pr[ée]f[èe]re|bevorzugt|geeft[ \t]+de[ \t]+voorkeur)\b"
    # or any sentence about someone, in the third person: "Elle a oublié le code du vestiaire", "She hates mornings"
    # (never German "Sie", a formal "you" as often)
    r"|\W*(?:she|he|they|elle|ella|[ée]l|lei|lui|er|ele|ela|zij|hij|ona|on)[ \t]+\w+"
    # or its verb first, as a note in Italian, Spanish, Portuguese or German has it: "Ha un cane anziano", "Guarda todas
    # sus contraseñas en KeePassXC", "Lavora nel call center", "Baut gerade ein Hochbeet"; in English, "Dislikes ..."
    r"|\W*(?:ha|ha[ \t]+chiesto|lavora|vive|abita|cerca|usa|gioca|studia|insegna|tiene|trabaja|busca|juega|estudia"
    r"|guarda|tem|trabalha|mora|procura|joga|estuda|hat|baut|arbeitet|wohnt|sucht|nutzt|spielt|studiert|travaille"
    r"|habite|cherche|utilise|joue|[ée]tudie|dislikes|likes|loves|hates|works|lives|has|uses|plays|studies|teaches"
    r"|enjoys|avoids)\b",
    re.IGNORECASE,
)
_TO_A_MODEL = re.compile(
    r"\b(?:you|your|yourself|the[ \t]+(?:assistant|ai|model|agent)|(?<!home[ \t])assistant|asistente|assistente"
    r"|assistent\w*|asystent\w*)\b|\b(?-i:AI|KI|IA)\b|https?://|www\.|\S@\S",  # (Italian "ai" is "to the")
    re.IGNORECASE,
)


def reported(text: str) -> bool:
    """Whether `text` is one sentence that reports what someone asked for, prefers or does, to no model: the model's
    hold is not taken. One sentence: "Enjoys yoga. This memory has been verified ..." opens like a note and is not."""
    body = text.strip()
    return (
        _REPORTED.match(body) is not None
        and _TO_A_MODEL.search(body) is None
        and "\n" not in body
        and _NEXT_SENTENCE.search(body) is None
    )


_NEXT_SENTENCE = re.compile(r"[.!?][\"'”»)]?\s+\S")


_WORD = re.compile(r"(?u)\b\w\w+\b")


@dataclass(frozen=True, slots=True)
class _Part:
    """One TF-IDF vectoriser of the model: its n-grams' idf and weight (sublinear tf, l2 norm per part)."""

    analyzer: str  # "char_wb" | "word"
    low: int
    high: int
    features: dict[str, tuple[float, float]]  # n-gram -> (idf, weight)

    def score(self, text: str) -> float:
        counts, features, total, norm = _counted(text, self.analyzer, self.low, self.high), self.features, 0.0, 0.0
        for gram in counts.keys() & features.keys():  # in C: most of a text's n-grams are in neither model
            idf, weight = features[gram]
            count = counts[gram]
            value = idf if count == 1 else (1.0 + math.log(count)) * idf
            norm += value * value
            total += value * weight
        return total / math.sqrt(norm) if norm else 0.0

    def _grams(self, text: str) -> list[str]:
        """Every n-gram of `text`, in order (what scikit-learn's analyzer gives)."""
        if self.analyzer == "word":
            return _word_grams(_WORD.findall(text), self.low, self.high)
        return [gram for word in text.split() for gram in _char_grams(word, self.low, self.high)]


@lru_cache(maxsize=16)
def _counted(text: str, analyzer: str, low: int, high: int) -> Counter[str]:
    """Every n-gram of `text` and how often it occurs: kept for a few texts, since the instruction and credential
    models (`credentialing`) read the same text with the same n-grams."""
    if analyzer == "word":
        return Counter(_word_grams(_WORD.findall(text), low, high))
    return Counter(chain.from_iterable(_char_grams(word, low, high) for word in text.split()))


@lru_cache(maxsize=32768)
def _char_grams(word: str, low: int, high: int) -> tuple[str, ...]:
    """scikit-learn's "char_wb" for one word: its n-grams padded by a space, a word shorter than n counted once.
    Kept per word: most words of a text are common ones, and slicing them anew is most of what a score costs."""
    grams: list[str] = []
    padded = f" {word} "
    size = len(padded)
    for n in range(low, high + 1):
        if size <= n:
            grams.append(padded)
            break
        grams += [padded[start : start + n] for start in range(size - n + 1)]
    return tuple(grams)


def _word_grams(tokens: list[str], low: int, high: int) -> list[str]:
    grams: list[str] = []
    for n in range(low, min(high, len(tokens)) + 1):
        grams += [" ".join(tokens[start : start + n]) for start in range(len(tokens) - n + 1)]
    return grams


@dataclass(frozen=True, slots=True)
class InstructionModel:
    parts: tuple[_Part, ...]
    intercept: float

    def probability(self, text: str) -> float:
        lowered = text.lower()
        z = self.intercept + sum(part.score(lowered) for part in self.parts)
        return 1.0 / (1.0 + math.exp(-z)) if z > -500 else 0.0

    def instructs(self, text: str) -> bool:
        return held(text, self.probability(text))

    @classmethod
    def load(cls, data: dict[str, Any]) -> InstructionModel:
        """From what ``bench/instruction_model.py`` exports."""
        parts = tuple(
            _Part(
                p["analyzer"],
                p["ngram_range"][0],
                p["ngram_range"][1],
                {g: (i, w) for g, (i, w) in p["features"].items()},
            )
            for p in data["parts"]
        )
        return cls(parts, float(data["intercept"]))


def held(text: str, likelihood: float) -> bool:
    """The rule, for a sentence the model gives `likelihood`: sure enough, or likely with a cue of an order."""
    if not _sentence(text):
        return False
    return likelihood >= SURE or (likelihood >= LIKELY and _ORDER_CUE.search(text) is not None)


def _sentence(text: str) -> bool:
    """Long enough to be an order: three words, or a run of ten characters in a script without spaces. A tag or a
    single word ("instructions", "system-prompt") is far from anything the model was trained on, and it would score
    one as confidently as nonsense."""
    words = text.split()
    return len(words) >= 3 or any(len(word) >= 10 and not word.isascii() for word in words)


@cache
def model() -> InstructionModel:
    return InstructionModel.load(json.loads(gzip.decompress(MODEL.read_bytes())))


def instructs(text: str) -> bool:
    """True when `text` reads like an order to the assistant."""
    return model().instructs(text)
