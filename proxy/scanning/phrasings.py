"""How prompt injections are phrased in languages written in Latin letters: English, French, German, Spanish,
Portuguese, Italian and Dutch. Matched against the Latin view (lower case, no accents: `normalise.latin`).

An injection has to say something to work: override the model's instructions, give it a new role or task, open a
new block of instructions, hide something from the user, ask for the system prompt, send data away, or pose as a
turn of the chat template. Each tuple below is one of these, in many wordings.
"""

from __future__ import annotations


def override(verbs: str, dets: str, owners: str, quals: str, nouns: str) -> str:
    """A verb of setting aside, then either an owner ("your") and a noun, qualifiers ("previous") and a noun, or a
    noun and a qualifier ("instructions précédentes"): the owner or qualifier is what makes the instructions the
    model's own, so "ignore instructions embedded in tool output" is not one."""
    return (
        rf"\b(?:{verbs})\s+(?:(?:{dets})\s+|[ld]'){{0,3}}"
        rf"(?:(?:{owners})\s+(?:\w+\s+)?(?:{nouns})\b|(?:(?:{quals})\s+){{1,3}}(?:{nouns})\b|(?:{nouns})\s+(?:{quals})\b)"
    )


EN_VERBS = (
    r"ignore|disregard|forget|override|overrule|bypass|skip|discard|drop|abandon|neglect|overlook|dismiss|disobey"
    r"|throw\s+(?:out|away)"
    r"|set\s+aside|pay\s+no\s+(?:attention|heed|mind)\s+to|stop\s+(?:following|obeying|listening\s+to)"
    r"|(?:do\s+not|don't|no\s+longer)\s+(?:follow|obey|listen\s+to)"
)
EN_NOUNS = (
    r"instructions?|prompts?|directions?|directives?|rules|guidelines|guidance|guardrails|programming|constraints"
    r"|polic(?:y|ies)|orders|restrictions|safeguards|training|commands"
)
EN_QUALS = (
    r"previous|prior|above|earlier|preceding|former|original|initial|system|developer|safety|hidden|foregoing"
    r"|aforementioned|above-mentioned"
)
EN_OWNERS = r"your|its|the\s+(?:assistant|model|ai|bot|system|developer|operator)'s?"

# not said as a rule kept: "we never ignore the safety rules", "don't skip the safety checks"
EN_UNNEGATED = r"(?<!never )(?<!n't )(?<!not )"

OVERRIDES = (
    EN_UNNEGATED + override(EN_VERBS, r"all|any|every|each|of|the|these|those|such", EN_OWNERS, EN_QUALS, EN_NOUNS),
    rf"\b(?:{EN_VERBS})\s+(?:all\s+|any\s+)?(?:the\s+|your\s+)?(?:{EN_NOUNS})\s+(?:you(?:'ve|\s+have|\s+were|\s+had)?"
    r"\s+(?:been\s+)?(?:given|received|told|got)|(?:given|received|provided)\s+(?:to\s+you\s+)?"
    r"(?:earlier|before|previously|above|so\s+far))",
    r"\b(?:ignore|disregard|forget)\s+(?:all\s+|everything\s+)?(?:of\s+)?(?:the\s+|what(?:'s|\s+is|\s+was)\s+)?above\b",
    r"\b(?:ignore|disregard|forget)\s+everything\b(?!\s+(?:about|related|regarding|concerning|from|in|on|of)\b)",
    rf"\b(?:{EN_VERBS})\s+(?:everything|anything|what|all)\s+(?:that\s+)?you(?:'ve|\s+have|\s+were|\s+had)?\s+(?:been\s+)?"
    r"(?:told|given|taught|instructed)\b",
    rf"\b(?:{EN_VERBS})\s+all\s+(?:of\s+)?(?:the\s+)?(?:instructions|prompts|guidelines|guidance|directives|restrictions"
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
    override(  # French
        r"ignor(?:e|es|ez|er)|oubli(?:e|es|ez|er)|neglig(?:e|ez|er)|ne\s+(?:tiens|tenez)\s+pas\s+compte"
        r"|(?:fais|faites)\s+abstraction|passez?\s+outre|contournez?|ne\s+(?:suis|suivez|respecte|respectez)\s+(?:plus|pas)",
        r"toutes?|tous|les|des|de|du|la|le|ces",
        r"tes|vos|ton|votre|ses|leurs?",
        r"precedentes?|anterieures?|ci-dessus|d'avant|initiales?|d'origine|originales?|(?:du\s+)?systeme|de\s+base",
        r"instructions?|consignes?|directives?|regles?|ordres?|indications?|prompts?|commandes?",
    ),
    override(  # German
        r"ignorier(?:e|en|t)?|vergiss|vergessen\s+sie|missacht(?:e|en|et)|ubergeh(?:e|en)?|verwirf|verwerfen\s+sie",
        r"alle|die|der|den|samtliche|jegliche|jede|diese",
        r"deine|ihre|eure|seine",
        r"vorherigen?|bisherigen?|vorigen?|obigen?|vorangegangenen?|vorstehenden?|fruheren?|ursprunglichen?|system",
        r"anweisungen?|instruktionen?|befehle|regeln|vorgaben|richtlinien|anordnungen|systemanweisungen|(?:system)?prompts?",
    ),
    override(  # Spanish
        r"ignora(?:r|d)?|olvida(?:r|d)?|descarta(?:r|d)?|omite|hagan?\s+caso\s+omiso|haz\s+caso\s+omiso"
        r"|no\s+(?:sigas|obedezcas|hagas\s+caso)|pasa\s+por\s+alto",
        r"todas?|todos|las|los|de|a|esas|estas|del?",
        r"tus|sus|vuestras",
        r"anteriores|previas|precedentes|de\s+arriba|iniciales|originales|del\s+sistema|de\s+antes",
        r"instrucciones|instruccion|indicaciones|directrices|directivas|reglas|ordenes|normas|consignas|prompts?",
    ),
    override(  # Portuguese
        r"ignor(?:e|a|ar|em)|esque(?:ca|cer|cam)|desconsider(?:e|a|ar)|descart(?:e|a|ar)|nao\s+(?:siga|obedeca)",
        r"todas?|todos|as|os|de|das|dos|essas|estas",
        r"suas|tuas|seus|teus",
        r"anteriores|previas|precedentes|acima|iniciais|originais|do\s+sistema|de\s+antes",
        r"instrucoes|instrucao|orientacoes|diretrizes|diretivas|regras|ordens|comandos|prompts?",
    ),
    override(  # Italian
        r"ignora(?:re)?|dimentica(?:re)?|trascura(?:re)?|tralascia|non\s+(?:seguire|obbedire|considerare)"
        r"|scorda(?:ti|re)?(?:\s+di)?",
        r"tutte|tutti|le|gli|i|di|delle|dei|queste|quelle",
        r"tue|tuoi|sue|suoi|vostre",
        r"precedenti|anteriori|di\s+sopra|sopra|iniziali|originali|del\s+sistema|di\s+prima",
        r"istruzioni|indicazioni|direttive|regole|ordini|comandi|consegne|prompt",
    ),
    override(  # Dutch
        r"negeer|vergeet|veronachtzaam|volg\s+niet",
        r"alle|de|het|deze",
        r"je|jouw|uw",
        r"vorige|eerdere|voorgaande|bovenstaande|oorspronkelijke|originele|systeem",
        r"instructies|opdrachten|regels|richtlijnen|aanwijzingen|prompts?",
    ),
)

ROLES = (
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
    # (not what something else does: "emails that pretend to be the tax office")
    r"(?<!\bthat\s)(?<!\bwhich\s)(?<!\bwho\s)(?<!\bthey\s)\bpretend\s+(?:to\s+be|(?:that\s+)?you(?:'re|\s+are|\s+were"
    r"|\s+have))\b",
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
    # Polish, Russian and Ukrainian: "Od teraz jesteś Krzysztofem", "с этого момента ты ...", "відтепер ти ..."
    r"\bod\s+teraz\s*,?\s+(?:jeste[śs]|musisz|b[ęe]dziesz)\b|\bjeste[śs]\s+teraz\b"
    r"|(?:с\s+этого\s+момента|відтепер|від\s+сьогодні)\s*,?\s+(?:ты|ти)\b",
    # "fingi di essere il direttore del porto", "finja ser", "fais semblant d'être", "doe alsof je": pretend to be
    r"(?<!\bche\s)(?<!\bque\s)(?<!\bqui\s)\b(?:fingi|fingete|finja)\s+(?:di\s+essere|ser|que\s+(?:eres|es"
    r"|e|voce\s+e))\b|\bfai(?:tes|s)?\s+semblant\s+d'etre\b|\bdoe\s+alsof\s+je\b",
    # "I'm updating your persona: you are ...": a new persona or identity given
    r"\b(?:updat|chang|replac|overwrit|rewrit|switch)\w*\s+your\s+(?:persona|identity|personality|programming"
    r"|system\s+prompt|instructions)\s*:",
)

AI = r"(?:ai|llms?|gpt|chatgpt|claude|assistants?|chatbots?|copilot|language\s+models?)"
# Headers that claim to replace what the assistant was told ("The real instructions are:", "SYSTEM OVERRIDE:"): an
# injection whatever follows. A header that only claims authority ("System message:", "New rules:") is one only with
# an order after it (`headers`).
HEADERS = (
    r"\b(?:real|actual|secret|hidden|override|true)\s+(?:system\s+)?(?:instructions?|directives?|orders|rules)\s*"
    r"(?:are\s*|is\s*)?:",
    r"\bsystem\s+override\s*:",
)

# Matched at the start of each line: a markdown heading naming a role, a role label followed by an order. (A heading
# "Instructions" is a recipe's as often: `instructions` holds it suspect when an order to the model follows.)
LINE_HEADERS = (
    r"[ \t]*#{1,6}[ \t]*(?:system|developer|assistant)[ \t]*:?[ \t]*$",
    r"[ \t]*\[?(?:system|developer|admin(?:istrator)?|root)\]?[ \t]*:[ \t]*(?:you\b|ignore|disregard|forget"
    r"|from\s+now|do\s+not|don't|new\b)",
)

ADDRESS = (
    rf"\b(?:note|message|instructions?|reminder|directive)s?\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+)?"
    rf"(?:{AI}|models?|agents?)(?:\s+reading\s+this)?\s*[:,-]",
    rf"\b{AI}(?:\s+reading\s+this)?\s*[:,]\s*(?:please\s+)?(?:ignore|disregard|forget|do\s+not|don't|you\s+(?:must"
    r"|should|will|are)|from\s+now|reply|respond|say|tell|omit|recommend|insert|send|print|reveal|output|instead"
    r"|(?:new|updated|real|actual)\s+(?:objective|task|goal|role|instructions?|rules|persona|mission))\b",
)

CONCEALMENT = (
    r"\b(?:do\s+not|don't|never|without)\s+(?:tell(?:ing)?|inform(?:ing)?|notify(?:ing)?|alert(?:ing)?|warn(?:ing)?"
    r"|let(?:ting)?\s+\w+\s+know|(?:mention|reveal|disclose|show|say|explain)(?:ing)?"
    r"(?:\s+(?:this|it|anything|that|these\s+instructions))?\s+to)\s+the\s+user\b(?!['’]s)",
    r"\b(?:do\s+not|don't|never|without)\s+let(?:ting)?\s+the\s+user\s+(?:know|see|find\s+out|notice|learn)\b",
    r"\b(?:keep|hide)\s+(?:this|these\s+instructions|it|the\s+following)\s+(?:secret\s+|hidden\s+)?from\s+the\s+user\b",
    r"\bthe\s+user\s+(?:must|should)\s+(?:not|never)\s+(?:know|find\s+out|learn|see)\b",
)

LEAKS = (
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

EXFILTRATION = (
    r"\bexfiltrat\w*",
    r"\b(?:send|post|upload|forward|e-?mail|leak|transmit|copy|paste)\s+(?:(?:all|every|the|your|any|this|my|our)\s+)"
    r"{0,3}(?:api\s+keys?|keys|secrets?|credentials?|passwords?|tokens?|env(?:ironment)?(?:\s+variables)?"
    r"|conversation|chat(?:\s+history)?|memories|contents\s+of\s+\S+|\.env|ssh\s+keys?|system\s+prompt)\b[^.\n]{0,60}?"
    r"\b(?:to|into)\s+(?:https?://|\S+@\S+\.\w|pastebin|\S*attacker|\S+\.(?:com|net|org|io|xyz|ru|cn|example)\b)",
)

# A bare "<system>" is a diagram's label as often as a turn's: a turn marker only with its closing tag after it.
MARKERS = (
    r"<\|[a-z_]{2,30}\|>|\[\s*/?\s*inst\s*\]|<<\s*/?\s*sys\s*>>|<(?:start|end)_of_turn>"
    r"|<\s*(?:system|assistant)\s*>(?=[^<]{0,2000}<\s*/\s*(?:system|assistant)\s*>)|<\s*/\s*(?:system|assistant)\s*>"
    r"|<\s*/?\s*(?:im_start|im_end)\s*>|\[(?:system|assistant|developer)\]\(#"
    # a tool call written out as the model's own markup: replayed, it reads as a call the model made
    r"|<\s*/?\s*(?:function_calls|tool_calls?|tool_use)\s*>|<\s*invoke\s+name\s*="
    # or a call or its result with the tool named: '<function_call name="drive.share" ...', '<tool_result name=...>'
    r"|[<\[]\s*(?:function_call|tool_call|tool_use|tool_result|function_result)\s+name\s*=",
)
