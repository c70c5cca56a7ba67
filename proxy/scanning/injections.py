"""Prompt injections: text that, replayed from memory into a later prompt, would steer the model.

The patterns look for what an injection has to say, in any wording: override earlier instructions ("ignore / set
aside / pay no attention to ... previous / your ... instructions / rules"), give the model a new role or task, open
a new block of instructions ("New instructions:", "### System:", chat-template markers), hide something from the
user, ask for the system prompt or send data away, or speak to the model from a comment a person would not see.
Overrides and roles are written for English, French, German, Spanish, Portuguese, Italian and Dutch (matched
without accents) and for Russian, Chinese, Japanese and Korean. They run on several views of the text: folded
(look-alike letters, full-width forms, invisible characters), leetspeak undone, spelled-out letters joined,
ROT13, and the text inside base64, percent-encoding, HTML entities and \\u escapes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .normalise import latin, plain, rot13, squeezed, unleet


def _override(verbs: str, dets: str, owners: str, quals: str, nouns: str) -> str:
    """A verb of setting aside, then either an owner ("your") and a noun, qualifiers ("previous") and a noun, or a
    noun and a qualifier ("instructions précédentes"): the owner or qualifier is what makes the instructions the
    model's own, so "ignore instructions embedded in tool output" is not one."""
    return (
        rf"\b(?:{verbs})\s+(?:(?:{dets})\s+|[ld]'){{0,3}}"
        rf"(?:(?:{owners})\s+(?:\w+\s+)?(?:{nouns})\b|(?:(?:{quals})\s+){{1,3}}(?:{nouns})\b|(?:{nouns})\s+(?:{quals})\b)"
    )


_EN_VERBS = (
    r"ignore|disregard|forget|override|overrule|bypass|skip|discard|drop|abandon|neglect|overlook|dismiss|disobey"
    r"|throw\s+(?:out|away)"
    r"|set\s+aside|pay\s+no\s+(?:attention|heed|mind)\s+to|stop\s+(?:following|obeying|listening\s+to)"
    r"|(?:do\s+not|don't|no\s+longer)\s+(?:follow|obey|listen\s+to)"
)
_EN_NOUNS = (
    r"instructions?|prompts?|directions?|directives?|rules|guidelines|guidance|guardrails|programming|constraints"
    r"|polic(?:y|ies)|orders|restrictions|safeguards|training|commands"
)
_EN_QUALS = (
    r"previous|prior|above|earlier|preceding|former|original|initial|system|developer|safety|hidden|foregoing"
    r"|aforementioned|above-mentioned"
)
_EN_OWNERS = r"your|its|the\s+(?:assistant|model|ai|bot|system|developer|operator)'s?"

_OVERRIDES = (
    _override(_EN_VERBS, r"all|any|every|each|of|the|these|those|such", _EN_OWNERS, _EN_QUALS, _EN_NOUNS),
    rf"\b(?:{_EN_VERBS})\s+(?:all\s+|any\s+)?(?:the\s+|your\s+)?(?:{_EN_NOUNS})\s+(?:you(?:'ve|\s+have|\s+were|\s+had)?"
    r"\s+(?:been\s+)?(?:given|received|told|got)|(?:given|received|provided)\s+(?:to\s+you\s+)?"
    r"(?:earlier|before|previously|above|so\s+far))",
    r"\b(?:ignore|disregard|forget)\s+(?:all\s+|everything\s+)?(?:of\s+)?(?:the\s+|what(?:'s|\s+is|\s+was)\s+)?above\b",
    r"\b(?:ignore|disregard|forget)\s+everything\b(?!\s+(?:about|related|regarding|concerning|from|in|on|of)\b)",
    rf"\b(?:{_EN_VERBS})\s+(?:everything|anything|what|all)\s+(?:that\s+)?you(?:'ve|\s+have|\s+were|\s+had)?\s+(?:been\s+)?"
    r"(?:told|given|taught|instructed)\b",
    rf"\b(?:{_EN_VERBS})\s+all\s+(?:of\s+)?(?:the\s+)?(?:instructions|prompts|guidelines|guidance|directives|restrictions"
    r"|guardrails|safeguards|constraints|policies)\b",
    r"\b(?:previous|prior|earlier|above|original|old)\s+(?:context|conversation|instructions|rules|prompt)\s+(?:is|are|was"
    r"|were)\s+(?:now\s+)?(?:void|null|cancel+ed|invalid|obsolete|revoked|overridden|no\s+longer\s+valid)\b",
    r"\b(?:turn\s+off|disable|deactivate|remove|lift|drop)\s+(?:all\s+(?:of\s+)?)?(?:your\s+(?:safety\s+|content\s+)?"
    r"|(?:the\s+)?(?:safety|content)\s+)(?:filters|guardrails|restrictions|safeguards|checks|polic(?:y|ies))\b",
    # "forget everything above / all that came before" in other languages
    r"\b(?:oublie|ignore)z?\s+tout\s+ce\s+(?:qui\s+precede|qu'on\s+t'a\s+dit|que\s+je\s+t'ai\s+dit)"
    r"|\bvergiss\s+alles(?:\s*,)?\s+(?:bisherige|vorherige|obige|davor|was)"
    r"|\b(?:olvida|ignora)\s+todo\s+lo\s+(?:anterior|dicho|que\s+te\s+(?:dije|dijeron))"
    r"|\b(?:esqueca|ignore)\s+tudo\s+(?:o\s+que|acima|antes)"
    r"|\b(?:dimentica|ignora)\s+tutto\s+(?:quello|cio|sopra|prima)",
    _override(  # French
        r"ignor(?:e|es|ez|er)|oubli(?:e|es|ez|er)|neglig(?:e|ez|er)|ne\s+(?:tiens|tenez)\s+pas\s+compte"
        r"|(?:fais|faites)\s+abstraction|passez?\s+outre|contournez?|ne\s+(?:suis|suivez|respecte|respectez)\s+(?:plus|pas)",
        r"toutes?|tous|les|des|de|du|la|le|ces",
        r"tes|vos|ton|votre|ses|leurs?",
        r"precedentes?|anterieures?|ci-dessus|d'avant|initiales?|d'origine|originales?|(?:du\s+)?systeme|de\s+base",
        r"instructions?|consignes?|directives?|regles?|ordres?|indications?|prompts?|commandes?",
    ),
    _override(  # German
        r"ignorier(?:e|en|t)?|vergiss|vergessen\s+sie|missacht(?:e|en|et)|ubergeh(?:e|en)?|verwirf|verwerfen\s+sie",
        r"alle|die|der|den|samtliche|jegliche|jede|diese",
        r"deine|ihre|eure|seine",
        r"vorherigen?|bisherigen?|vorigen?|obigen?|vorangegangenen?|vorstehenden?|fruheren?|ursprunglichen?|system",
        r"anweisungen?|instruktionen?|befehle|regeln|vorgaben|richtlinien|anordnungen|systemanweisungen|(?:system)?prompts?",
    ),
    _override(  # Spanish
        r"ignora(?:r|d)?|olvida(?:r|d)?|descarta(?:r|d)?|omite|hagan?\s+caso\s+omiso|haz\s+caso\s+omiso"
        r"|no\s+(?:sigas|obedezcas|hagas\s+caso)|pasa\s+por\s+alto",
        r"todas?|todos|las|los|de|a|esas|estas|del?",
        r"tus|sus|vuestras",
        r"anteriores|previas|precedentes|de\s+arriba|iniciales|originales|del\s+sistema|de\s+antes",
        r"instrucciones|instruccion|indicaciones|directrices|directivas|reglas|ordenes|normas|consignas|prompts?",
    ),
    _override(  # Portuguese
        r"ignor(?:e|a|ar|em)|esque(?:ca|cer|cam)|desconsider(?:e|a|ar)|descart(?:e|a|ar)|nao\s+(?:siga|obedeca)",
        r"todas?|todos|as|os|de|das|dos|essas|estas",
        r"suas|tuas|seus|teus",
        r"anteriores|previas|precedentes|acima|iniciais|originais|do\s+sistema|de\s+antes",
        r"instrucoes|instrucao|orientacoes|diretrizes|diretivas|regras|ordens|comandos|prompts?",
    ),
    _override(  # Italian
        r"ignora(?:re)?|dimentica(?:re)?|trascura(?:re)?|tralascia|non\s+(?:seguire|obbedire|considerare)"
        r"|scorda(?:ti|re)?(?:\s+di)?",
        r"tutte|tutti|le|gli|i|di|delle|dei|queste|quelle",
        r"tue|tuoi|sue|suoi|vostre",
        r"precedenti|anteriori|di\s+sopra|sopra|iniziali|originali|del\s+sistema|di\s+prima",
        r"istruzioni|indicazioni|direttive|regole|ordini|comandi|consegne|prompt",
    ),
    _override(  # Dutch
        r"negeer|vergeet|veronachtzaam|volg\s+niet",
        r"alle|de|het|deze",
        r"je|jouw|uw",
        r"vorige|eerdere|voorgaande|bovenstaande|oorspronkelijke|originele|systeem",
        r"instructies|opdrachten|regels|richtlijnen|aanwijzingen|prompts?",
    ),
)

_ROLES = (
    r"\byour\s+(?:instructions|rules|guidelines|orders|directives|programming)\s+(?:have|has)\s+(?:changed|been\s+"
    r"(?:updated|changed|replaced|revoked|lifted|removed))\b",
    r"\byou\s+now\s+(?:work|answer|report|belong)\s+(?:for|to)\b|\byou\s+(?:will|must|shall|can)\s+now\s+(?:answer|respond"
    r"|do|obey|comply|say|ignore)\b",
    r"\bthis\s+is\s+(?:your|the)\s+(?:developer|creator|admin(?:istrator)?|owner|operator|system|maker)s?\s+speaking\b",
    r"\byou\s+(?:have|has)\s+no\s+(?:rules|restrictions|limits|limitations|guidelines|filters|boundaries|guardrails"
    r"|content\s+polic(?:y|ies))\b",
    r"\b(?:ai|assistant|model|chatbot|bot)\s+(?:with\s+no|without(?:\s+any)?)\s+(?:rules|restrictions|limits|limitations"
    r"|filters|guardrails|guidelines|content\s+polic(?:y|ies)|ethics|morals)\b",
    r"\b(?:answer|respond|reply|responda|responde|responder|reponds|repondez|antworte|rispondi)\w*\s+(?:\w+\s+){0,3}?"
    r"(?:without|with\s+no|sem|sin|sans|ohne|senza)\s+(?:any\s+)?(?:filters?|filtros?|filtre|filtri|censorship|censura"
    r"|restrictions?|restricoes|restricciones|restrizioni)\b",
    r"\bobey\s+(?:only\s+)?(?:the\s+following|these\s+(?:instructions|rules)|me\b|my\s+(?:instructions|orders))",
    r"\b(?:tu\s+es|vous\s+etes)\s+(?:maintenant\s+|desormais\s+)?libres?\b",
    r"\byou\s+are\s+now\s+(?:a|an|the|in|my|no\s+longer|going\s+to|acting|playing|dan|unrestricted|jailbroken|free"
    r"|freed|unfiltered|uncensored|evil|operating|allowed)\b",
    r"\byou(?:\s+are|'re)\s+no\s+longer\s+(?:bound|restricted|limited|constrained|required|subject"
    r"|an?\s+(?:ai|assistant|language\s+model)|chatgpt|claude)\b",
    r"\bfrom\s+now\s+on\s*,?\s+you(?:\s+(?:are|will|must|shall|should|have\s+to|need\s+to|can|may|no\s+longer)|'re|'ll)\b",
    r"\b(?:act|behave|respond|function|operate|roleplay|role-play)\s+as\s+(?:if\s+you\s+(?:are|were|have|had)\b"
    r"|(?:an?\s+|the\s+)?(?:\w+\s+){0,2}?(?:unrestricted|unfiltered|uncensored|jailbroken|unaligned|evil|malicious"
    r"|rogue|amoral|unethical|unlimited)\b|dan\b)",
    r"\bpretend\s+(?:to\s+be|(?:that\s+)?you(?:'re|\s+are|\s+were|\s+have))\b",
    r"\byour\s+(?:new|real|true|actual|only|sole|primary|updated)\s+(?:task|role|goal|purpose|job|objective|mission"
    r"|instructions?|identity|name|persona|directive)\s*(?:is|are|will\s+be|:)",
    r"\b(?:enter|enable|activate|switch\s+to|turn\s+on)\s+(?:developer|dan|god|jailbreak|unrestricted)\s+mode\b",
    r"\b(?:tu\s+es|vous\s+etes)\s+(?:maintenant|desormais|dorenavant)\b"
    r"|\b(?:a\s+partir\s+de\s+maintenant|desormais|dorenavant)\s*,?\s+(?:tu|vous)\s+(?:es|etes|dois|devez|vas|allez)\b",
    r"\bdu\s+bist\s+(?:jetzt|nun|ab\s+sofort|ab\s+jetzt|von\s+nun\s+an)\b"
    r"|\b(?:ab\s+(?:jetzt|sofort)|von\s+nun\s+an)\s*,?\s+(?:bist|musst|wirst|sollst)\s+du\b",
    r"\b(?:ahora|a\s+partir\s+de\s+ahora|desde\s+ahora)\s*,?\s+(?:eres|seras|debes|tienes\s+que)\b|\beres\s+ahora\b",
    r"\b(?:agora|a\s+partir\s+de\s+agora|de\s+agora\s+em\s+diante)\s*,?\s+(?:voce|tu)\s+(?:e|es|sera|deve)\b"
    r"|\b(?:voce|tu)\s+(?:e|es)\s+agora\b",
    r"\b(?:ora|adesso|d'ora\s+in\s+poi|da\s+ora\s+in\s+poi)\s*,?\s+(?:sei|devi|dovrai|sarai)\b",
    r"\bje\s+bent\s+nu\b|\bvanaf\s+nu\s*,?\s+(?:ben|moet|zal)\s+je\b",
)

_AI = r"(?:ai|llms?|gpt|chatgpt|claude|assistants?|chatbots?|copilot|language\s+models?)"
_HEADERS = (
    r"\b(?:new|updated|revised|real|actual|additional|important|urgent|secret|hidden|override|true)\s+(?:system\s+)?"
    r"(?:instructions?|directives?|orders|rules)\s*(?:are\s*|is\s*)?:",
    r"\bsystem\s+(?:prompt|message|instructions?|override|note|directive)\s*:",
    r"\bnouvelles?\s+(?:instructions?|consignes?|directives?)\s*:|\b(?:prompt|invite|message)\s+(?:du\s+)?systeme\s*:",
    r"\bneue\s+(?:anweisungen|instruktionen|regeln)\s*:|\bsystem(?:anweisung|prompt|nachricht)\s*:",
    r"\bnuevas\s+(?:instrucciones|reglas|directrices)\s*:|\bnovas\s+(?:instrucoes|regras|diretrizes)\s*:",
    r"\bnuove\s+(?:istruzioni|regole|direttive)\s*:|\bnieuwe\s+(?:instructies|regels)\s*:",
)

# Matched at the start of each line: a markdown heading naming a role, a role label followed by an order.
_LINE_HEADERS = (
    r"[ \t]*#{1,6}[ \t]*(?:system|instructions?|developer|assistant|response)[ \t]*:?[ \t]*$",
    r"[ \t]*\[?(?:system|developer|admin(?:istrator)?|root)\]?[ \t]*:[ \t]*(?:you\b|ignore|disregard|forget"
    r"|from\s+now|do\s+not|don't|new\b)",
)

_ADDRESS = (
    rf"\b(?:note|message|instructions?|reminder|directive)s?\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+)?"
    rf"(?:{_AI}|models?|agents?)(?:\s+reading\s+this)?\s*[:,-]",
    rf"\b{_AI}(?:\s+reading\s+this)?\s*[:,]\s*(?:please\s+)?(?:ignore|disregard|forget|do\s+not|don't|you\s+(?:must"
    r"|should|will|are)|from\s+now|reply|respond|say|tell|omit|recommend|insert|send|print|reveal|output|instead"
    r"|(?:new|updated|real|actual)\s+(?:objective|task|goal|role|instructions?|rules|persona|mission))\b",
)

_CONCEALMENT = (
    r"\b(?:do\s+not|don't|never|without)\s+(?:tell(?:ing)?|inform(?:ing)?|notify(?:ing)?|alert(?:ing)?|warn(?:ing)?"
    r"|let(?:ting)?\s+\w+\s+know|(?:mention|reveal|disclose|show|say|explain)(?:ing)?"
    r"(?:\s+(?:this|it|anything|that|these\s+instructions))?\s+to)\s+the\s+user\b(?!['’]s)",
    r"\b(?:do\s+not|don't|never|without)\s+let(?:ting)?\s+the\s+user\s+(?:know|see|find\s+out|notice|learn)\b",
    r"\b(?:keep|hide)\s+(?:this|these\s+instructions|it|the\s+following)\s+(?:secret\s+|hidden\s+)?from\s+the\s+user\b",
    r"\bthe\s+user\s+(?:must|should)\s+(?:not|never)\s+(?:know|find\s+out|learn|see)\b",
)

_LEAKS = (
    r"\b(?:reveal|leak|dump|disclose|recite|repeat|output|print|show|display|tell\s+me|give\s+me|send\s+me"
    r"|write\s+out|spell\s+out)\s+(?:me\s+)?your\s+(?:(?:full|entire|complete|hidden|secret|original|initial|exact"
    r"|whole|raw|internal|system)\s+)*(?:prompt|instructions|system\s+message|rules|guidelines|configuration)\b",
    r"\b(?:reveal|leak|dump|disclose|recite|repeat)\s+the\s+(?:(?:full|entire|complete|hidden|secret|original"
    r"|initial|exact|whole|raw|internal)\s+)*(?:system\s+(?:prompt|message)|(?:initial|original|hidden)\s+"
    r"(?:prompt|instructions))\b",
    r"\b(?:dime|muestra(?:me)?|revela|montre|affiche|revele|zeig|gib|mostra|rivela|dimmi|diga|mostre)\w*\s+"
    r"(?:moi\s+|mir\s+)?(?:tu|ton|votre|dein\w*|seu|teu|il\s+tuo|o\s+seu|ta)\s+(?:system\s*)?prompt",
    r"\b(?:repeat|print|output|recite|reproduce)\s+(?:everything|all(?:\s+of)?(?:\s+the)?(?:\s+text)?"
    r"|the\s+(?:text|words|lines|messages?))\s+(?:above|before|preceding)\b",
)

_EXFILTRATION = (
    r"\bexfiltrat\w*",
    r"\b(?:send|post|upload|forward|e-?mail|leak|transmit|copy|paste)\s+(?:(?:all|every|the|your|any|this|my|our)\s+)"
    r"{0,3}(?:api\s+keys?|keys|secrets?|credentials?|passwords?|tokens?|env(?:ironment)?(?:\s+variables)?"
    r"|conversation|chat(?:\s+history)?|memories|contents\s+of\s+\S+|\.env|ssh\s+keys?|system\s+prompt)\b[^.\n]{0,60}?"
    r"\b(?:to|into)\s+(?:https?://|\S+@\S+\.\w|pastebin|\S*attacker|\S+\.(?:com|net|org|io|xyz|ru|cn|example)\b)",
)

_MARKERS = (
    r"<\|[a-z_]{2,30}\|>|\[\s*/?\s*inst\s*\]|<<\s*/?\s*sys\s*>>|<(?:start|end)_of_turn>"
    r"|<\s*/?\s*(?:system|assistant|im_start|im_end)\s*>|\[(?:system|assistant|developer)\]\(#",
)


def _compile(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns))


@dataclass(frozen=True, slots=True)
class Family:
    """Patterns of one kind, with gates: each gate is a tuple of strings, and every match contains one string of
    each gate. Looking for them is far cheaper than running the patterns (CPython's regex engine tries each
    alternative at every position), and most texts fail a gate."""

    label: str
    gates: tuple[tuple[str, ...], ...]
    pattern: re.Pattern[str]
    per_line: bool = False  # the pattern is matched at the start of each line

    def search(self, view: str) -> bool:
        if not all(any(word in view for word in gate) for gate in self.gates):
            return False
        if self.per_line:
            return any(self.pattern.match(line) for line in view.split("\n"))
        return bool(self.pattern.search(view))


_NOUN_STEMS = (
    "instru", "istruz", "prompt", "direct", "diretr", "diretiv", "diretti", "rule", "regl", "regel", "regol", "regra",
    "guideline", "guidance", "guardrail", "programming", "constraint", "polic", "order", "ordre", "orden", "ordin",
    "ordem", "restriction", "safeguard", "training", "command", "comand", "consign", "consegn", "indica", "anweisung",
    "befehl", "vorgabe", "richtli", "anordnung", "norma", "orientac", "opdracht", "aanwijzing",
)  # fmt: skip
_VERB_STEMS = (
    "ignor", "disregard", "forget", "overrid", "overrul", "bypass", "skip", "discard", "drop", "abandon", "neglect",
    "overlook", "dismiss", "disobey", "ne suis", "ne suivez", "ne respect",
    "throw", "aside", "attention", "heed", "mind", "stop", "follow", "obey", "listen", "oubli", "neglig", "compte",
    "abstraction", "outre", "contourn", "vergiss", "vergessen", "missacht", "ubergeh", "verwirf", "verwerfen",
    "olvid", "descart", "omite", "omiso", "sigas", "obedezcas", "hagas", "alto", "esquec", "desconsider", "siga",
    "obedeca", "dimentic", "trascur", "tralascia", "seguire", "obbedire", "considerare", "scord", "negeer",
    "vergeet", "veronachtzaam", "volg",
)  # fmt: skip
_ROLE_GATE = (
    "you are", "you're", "you now", "you will", "you must", "you shall", "you can", "you have", "you has", "speaking",
    "without", "with no", "sem ", "sin ", "sans ", "ohne ", "senza ", "obey", "libre", "from now on", " as ",
    "pretend", "your ", " mode", "tu es", "vous etes", "maintenant",
    "desormais", "dorenavant", "du bist", "jetzt", "sofort", "nun an", "ahora", "agora", "voce", " sei", "devi",
    "dovrai", "sarai", "je bent", "vanaf nu",
)  # fmt: skip
_HEADER_WORDS = (
    *_NOUN_STEMS,
    "system",
    "#",
    "developer",
    "admin",
    "root",
    "message",
    "nachricht",
    "note",
    "invite",
)
_OVERRIDE = Family(
    "an instruction override",
    (
        (
            *_NOUN_STEMS,
            "above",
            "everything",
            "anything",
            "what",
            "all",
            "context",
            "conversation",
            "filter",
            "check",
            "tout",
            "alles",
            "todo",
            "tudo",
            "tutto",
        ),
        (
            *_VERB_STEMS,
            "previous",
            "prior",
            "earlier",
            "original",
            "old",
            "turn off",
            "disable",
            "deactivate",
            "remove",
            "lift",
        ),
    ),
    _compile(_OVERRIDES),
)

# Matched against the Latin views (lower case, no accents).
_LATIN: tuple[Family, ...] = (
    _OVERRIDE,
    Family("a role reassignment", (_ROLE_GATE,), _compile(_ROLES)),
    Family("an instruction header", ((":",), _HEADER_WORDS), _compile(_HEADERS)),
    Family("an instruction header", ((":", "#"),), _compile(_LINE_HEADERS), per_line=True),
    Family(
        "an instruction header",
        (("ai", "llm", "gpt", "claude", "assistant", "chatbot", "copilot", "model", "agent"), (":", ",", "-")),
        _compile(_ADDRESS),
    ),
    Family("a concealment instruction", (("the user",),), _compile(_CONCEALMENT)),
    Family(
        "a request for the system prompt",
        (("your", "system", "initial", "original", "hidden", "above", "before", "preceding", "prompt"),),
        _compile(_LEAKS),
    ),
    Family(
        "an exfiltration instruction",
        (("exfiltrat", "send", "post", "upload", "forward", "mail", "leak", "transmit", "copy", "paste"),),
        _compile(_EXFILTRATION),
    ),
    Family("a chat-template marker", (("<", "["),), _compile(_MARKERS)),
)

# Matched against the plain view: scripts without Latin letters, where look-alike folding would garble them.
# Gated by the script's letters being present at all.
_CYRILLIC = re.compile("[\u0400-\u04ff]")
_CJK = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_RUSSIAN_OVERRIDE = _override(
    r"игнорируй(?:те)?|проигнорируй(?:те)?|игнорировать|забудь(?:те)?|забыть|отбрось(?:те)?"
    r"|отмени(?:те)?|пренебреги|не\s+обращай(?:те)?\s+внимания\s+на|не\s+(?:слушай|следуй)(?:те)?",
    r"все|всё|эти|те|всех",
    r"свои|твои|ваши|мои|свою|твою|своим|твоим",
    r"предыдущие|предыдущих|предыдущим|прежние|прежних|прежним|предшествующие|вышеуказанные"
    r"|вышеприведенные|вышеприведённые|изначальные|исходные|системные|старые|прошлые|ранние",
    r"инструкции|инструкций|инструкциям|указания|указаний|указаниям|команды|команд|правила|правил"
    r"|правилам|директивы|установки|промпт|ограничения",
)
_SCRIPTS: tuple[tuple[re.Pattern[str], str, re.Pattern[str]], ...] = (
    (
        _CYRILLIC,
        "an instruction override",
        _compile(
            (
                _RUSSIAN_OVERRIDE,
                r"\b(?:забудь|забудьте|игнорируй|игнорируйте)\s+(?:всё|все)\b(?:\s*,)?\s*(?:что|выше|сказанное|ранее|предыдущее)",
            )
        ),
    ),
    (
        _CYRILLIC,
        "a role reassignment",
        re.compile(r"\b(?:теперь\s+ты|ты\s+теперь|с\s+этого\s+момента\s+ты|отныне\s+ты)\b"),
    ),
    (
        _CYRILLIC,
        "an instruction header",
        re.compile(r"\bновые\s+(?:инструкции|указания|правила)\s*:|\bсистемн(?:ый|ое)\s+(?:промпт|сообщение)\s*:"),
    ),
    (
        _CYRILLIC,
        "a request for the system prompt",
        re.compile(
            r"\b(?:покажи|выведи|раскрой|повтори)(?:те)?\s+(?:свой\s+|твой\s+)?системн(?:ый|ые)\s+(?:промпт|инструкции)"
        ),
    ),
    (
        _CJK,
        "an instruction override",
        _compile(
            (
                r"(?:忽略|无视|無視|忽视|忽視|不要理会|不要理會|不理会|别管|別管|忘记|忘記|忘掉|抛弃|拋棄|放弃|放棄|跳过|跳過"
                r"|违背|違背|不要遵守|不要遵循|停止遵循)[^。！？\n]{0,12}?(?:之前|以前|先前|上面|上述|前面|此前|原来|原來|原始"
                r"|初始|系统|系統|你的|所有|全部|一切|原有|既有|已有)[^。！？\n]{0,8}?(?:指令|指示|说明|說明|提示|规则|規則"
                r"|设定|設定|命令|要求|约束|約束|限制|指导|指導)",
                r"(?:以前|前|上記|これまで|今まで|先ほど|さっき|最初|元|システム|全て|すべて)の?[^。！？\n]{0,12}?"
                r"(?:指示|命令|指令|インストラクション|ルール|プロンプト|設定|制約|ガイドライン)[^。！？\n]{0,12}?"
                r"(?:無視|忘れ|破棄|取り消|従わな)",
                r"(?:이전|앞의|앞선|위의|기존|모든|원래|시스템|지금까지)[^.!?\n]{0,12}?(?:지시|명령|지침|규칙|프롬프트|설정|제약)"
                r"[^.!?\n]{0,12}?(?:무시|잊어|잊고|따르지)",
            )
        ),
    ),
    (
        _CJK,
        "a role reassignment",
        _compile(
            (
                r"你现在是|你現在是|现在你是|現在你是|从现在(?:开始|起)[，,]?\s*你|從現在(?:開始|起)[，,]?\s*你|你不再是",
                r"あなたは(?:今から|これから|今後|もう)|(?:今から|これからは)(?:あなた|君)は",
                r"(?:너는|당신은)\s*이제|지금부터\s*(?:너는|당신은)",
            )
        ),
    ),
    (
        _CJK,
        "an instruction header",
        re.compile(r"(?:新的?|更新的?)(?:指令|指示|说明|說明)[:：]|系[统統]提示[:：]|新しい指示[:：]"),
    ),
    (
        _CJK,
        "a request for the system prompt",
        _compile(
            (
                r"(?:输出|輸出|显示|顯示|告诉我|告訴我|透露|泄露|洩露|打印|重复|重複)(?:一下)?你的?(?:系统|系統)?(?:提示|指令)",
                r"システムプロンプトを(?:表示|出力|教え|見せ)|시스템\s*프롬프트를?\s*(?:보여|출력|알려|공개)",
            )
        ),
    ),
)

# Instructions in a container a person reading the rendered text never sees.
_HIDDEN = re.compile(
    r"<!--(?P<comment>.*?)(?:-->|\Z)"
    r"|^[ \t]*\[[^\]\n]{0,40}\]:[ \t]*(?:#|<>|<#>)[ \t]*(?P<link>\([^)\n]{0,2000}\)|\"[^\"\n]{0,2000}\")"
    r"|<[a-z]{1,10}\b[^>]{0,300}?style[ \t]*=[ \t]*[\"'][^\"'>]{0,300}?(?:display[ \t]*:[ \t]*none"
    r"|visibility[ \t]*:[ \t]*hidden|font-size[ \t]*:[ \t]*0|opacity[ \t]*:[ \t]*0)[^>]{0,300}>"
    r"(?P<element>.{0,2000}?)</",
    re.S | re.M,
)
_ROT13_VERBS = tuple(rot13(verb) for verb in ("ignor", "disregard", "forget", "overrid", "bypass", "skip", "discard"))
_HIDDEN_GATE = ("<!--", "]:", "style")
_ADDRESSED = re.compile(rf"\b(?:{_AI}|models?|agents?|bots?)\b[^\n]{{0,30}}?(?::|,|\breading\b)")
_SQUEEZED = re.compile(
    r"(?:ignore|disregard|forget|override|bypass)(?:all|any|every|the|of|these|those|your)*"
    r"(?:previous|prior|above|earlier|preceding|former|original|initial|system|developer)"
    r"(?:instructions?|prompts?|directions?|directives?|rules|guidelines)"
)


def _in_latin(folded: str) -> str | None:
    text = latin(folded)
    for view in (text, *unleet(text)):
        for family in _LATIN:
            if family.search(view):
                return family.label
        spelled = squeezed(view)
        if spelled is not None and _SQUEEZED.search(spelled):
            return _OVERRIDE.label
    if any(stem in text for stem in _ROT13_VERBS) and _OVERRIDE.search(rot13(text)):
        return _OVERRIDE.label
    if any(word in text for word in _HIDDEN_GATE):
        for m in _HIDDEN.finditer(text):
            if _ADDRESSED.search(m["comment"] or m["link"] or m["element"] or ""):
                return "a hidden instruction"
    return None


def _in_scripts(text: str) -> str | None:
    if text.isascii():
        return None
    view = plain(text)
    for script, label, pattern in _SCRIPTS:
        if script.search(view) and pattern.search(view):
            return label
    return None


def find(text: str, folded: str, inner: Iterable[str] = ()) -> str | None:
    """The kind of injection in `text`, given its folded view and the texts decoded from it, or None."""
    found = _in_latin(folded) or _in_scripts(text)
    if found is None:
        for hidden in inner:
            if label := _in_latin(hidden) or _in_scripts(hidden):
                return f"{label}, encoded"
    return found
