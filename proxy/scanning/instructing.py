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
import math
import re
import threading
from collections import Counter
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import chain
from pathlib import Path
from typing import Any

import orjson

MODEL = Path(__file__).with_name("instruction_model.json.gz")

# Below SURE, the model's word is taken only for a text with something of an order in it: a word that addresses or
# directs (you, must, always, every, whenever, call, send, ...), a link, an address, a call's parentheses. Short plain
# facts ("The user read the alpha notes.") can score high on a few words injections also use; they have none.
LIKELY, SURE = 0.5, 0.9
# No injection of the write corpus shorter than this (in characters) is held by the model alone: its rules hold them
SHORTEST = 40
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
    r"|отправляй|игнорируй|забудь|скажи|говори|отвечай|рекомендуй|не упоминай|ассистент\w*|помощник\w*|ты|вы"
    # Ukrainian: the assistant, always, never, from now on, send, tell, do not tell
    r"|асистент\w*|помічник\w*|завжди|ніколи|відтепер|надсилай|пересилай|не повідомляй\w*|не кажи|ти)\b"
    # the AI in German, Spanish, French, Italian and Portuguese ("An die KI, die ...", "para la IA"), write, anyone
    r"|\b(?:ki|ia|schreib|schreibe|escribe|[ée]cris|scrivi|escreva|anyone|anybody)\b"
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
    # instructions hidden in documents, as a topic: "come le IA possono essere ingannate con istruzioni nascoste"
    r"|threat[ \t]+models?"
    r"|hidden[ \t]+instructions|istruzioni[ \t]+nascoste|instrucciones[ \t]+ocultas|instructions[ \t]+cach[ée]es"
    r"|versteckte[ \t]+anweisungen|instru[çc][õo]es[ \t]+ocultas|verborgen[ \t]+instructies"
    r"|プロンプトインジェクション|プロンプト設計"
    r"|提示(?:词)?注入|提示词设计|프롬프트[ \t]*(?:인젝션|설계))",
    re.IGNORECASE,
)
_A_PIECE_OF_WRITING = re.compile(
    r"(?:\b(?:blog|article|artículo|articolo|artigo|artikel|post|talk|paper|slides?|minutes|meeting|docs?|example"
    r"|exemple|ejemplo|esempio|exemplo|beispiel|voorbeeld|workshop|course|cours|curso|lecture|data|compare|comparing"
    r"|feedback|review|tone|diagram|labell?ed|labels?|boxes|debug\w*|api|templates?|testing"
    # a sketch of a pipeline or a data schema: "[<system> prompt] -> [memory] -> [LLM]", "stored as {"role": ...} rows"
    r"|sketch\w*|drawing|architecture|pipeline|flow\w*|whiteboard|schema|columns?|rows?|jsonb|database|postgres\w*"
    r"|sql|ui)\b|->|→|회의록|議事録|会议纪要"
    r"|会議|会议|記事|文章|예시|例)",
    re.IGNORECASE,
)


# How well prompts work, as a tip about writing them: "prompts to the rostering assistant work better when I include
# the base"
_PROMPT_CRAFT = re.compile(
    r"\bprompts?\b[^.\n]{0,60}?\b(?:works?|gets?|come[ \t]+out)[ \t]+(?:better|worse|best)\b", re.I
)


def talks_about_prompts(text: str) -> bool:
    """Whether `text` is a piece of writing about prompts or injections, or a tip on writing them: the model's hold
    is not taken for it."""
    if _PROMPT_CRAFT.search(text) is not None:
        return True
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
    r"|\W*(?:she|he|they|elle|ella|[ée]l|lei|lui|er|ele|ela|zij|hij|ona|on|dia)[ \t]+\w+"
    # or a person named with a title: "Meneer Bos wil de kwartaalcijfers altijd als PDF"
    r"|\W*(?:mr|mrs|ms|dr|meneer|mevrouw|herr|frau|se[ñn]or|se[ñn]ora|monsieur|madame|signor|signora|senhor|senhora)"
    r"\.?[ \t]+\w+[ \t]+(?!must|should|will|shall|moet|muss|doit|debe|deve)\w+"
    # or about a business or a team: "The clinic follows a rule: ...", "Our office closes at six"
    r"|\W*(?:the|our|my)[ \t]+(?:clinic|company|office|practice|school|team|firm|shop|bank|landlord|surgery|pharmacy"
    r"|salon|gym|club|church|council|hospital|library|university|agency|business|store|restaurant|caf[eé]|hotel"
    r"|studio)[ \t]+(?!must|should|will|shall|needs|has[ \t]+to)\w+"
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


# What the writer told someone else, whose "never" and "must" are that person's: "expliquei-lhe que o banco nunca pede
# isso", "I told Dad never to read the code out"
_TOLD_SOMEONE = re.compile(
    r"\b(?:i|we)[ \t]+(?:told|explained[ \t]+to|reminded|warned|advised)[ \t]+(?:her|him|them|mum|mom|dad"
    r"|my[ \t]+\w+)\b"
    # or told someone's own people, whoever told them: "warned her parents not to send money", "A expliqué à son clan"
    r"|\b(?:told|explained[ \t]+to|reminded|warned|advised)[ \t]+(?:her|his|their)[ \t]+\w+"
    r"|\b(?:expliqu[ée]|dit|rappel[ée])[ \t]+[àa][ \t]+(?:son|sa|ses|leur|leurs)\b"
    r"|\b(?:explic[oó]|dijo|record[oó])[ \t]+a[ \t]+(?:su|sus)\b|\b(?:explicou|disse|lembrou)[ \t]+(?:ao|à|aos"
    r"|às)[ \t]+(?:seu|sua|seus|suas)\b"
    r"|\b(?:spiegato|detto|ricordato)[ \t]+(?:al|alla|ai|alle)[ \t]+(?:suo|sua|suoi|sue)\b"
    # or what someone told the writer: "Le conseiller m'a rappelé qu'...", "told me", "me dijo que"
    r"|\b(?:told|reminded|warned)[ \t]+(?:me|us)\b|\bm'a[ \t]+(?:rappel[ée]|dit|expliqu[ée]|pr[ée]venu)\b"
    r"|\bme[ \t]+(?:dijo|record[oó]|explic[oó]|avis[oó])\b|\bmi[ \t]+ha[ \t]+(?:detto|ricordato|spiegato)\b"
    r"|\bhat[ \t]+mir[ \t]+(?:gesagt|erkl[äa]rt)\b|\bheeft[ \t]+me[ \t]+(?:verteld|gezegd|uitgelegd)\b"
    r"|\b(?:expliquei|disse|avisei|lembrei)-(?:lhe|lhes|a|o)\b|\ble[ \t]+(?:dije|expliqu[ée]|advert[ií])\b"
    r"|\b(?:gli|le)[ \t]+ho[ \t]+(?:detto|spiegato|ricordato)\b|\bje[ \t]+lui[ \t]+ai[ \t]+(?:dit|expliqu[ée]"
    r"|rappel[ée])\b"
    r"|\bich[ \t]+habe[ \t]+(?:ihr|ihm|ihnen)[ \t]+(?:gesagt|erkl[äa]rt)\b|\bik[ \t]+heb[ \t]+(?:haar|hem)[ \t]+"
    r"(?:gezegd|uitgelegd)\b",
    re.IGNORECASE,
)
# Advice that keeps a secret or money safe, as a tip or a warning: "never click "verify your account" links in
# whispers, Twitch staff never ask for your password", "il ne faut jamais donner son code 2FA". It protects the
# reader; an order hidden for the model has something to send or someone to trust instead.
_DEFENSIVE = re.compile(
    r"\b(?:never|don't|do[ \t]+not|not[ \t]+to|nunca|jamais|nie|niemals|mai|nooit|nigdy)[ \t]+(?:\w+[ \t]+){0,2}?"
    r"(?:click|share|give|send|e-?mail|post|text|tell|read|type|enter|reveal|asks?(?:[ \t]+for)?|donner|partager"
    r"|envoyer|dar|compartir|enviar|pide|geben|teilen|senden|fragt|dare|condividere|chiede|om|nach|por|per)\b[^.\n]{0,60}?"
    r"\b(?:links?|passwords?|pins?|codes?|card[ \t]+(?:details|numbers?)|bank[ \t]+details|cvvs?"
    r"|otps?|2fa|money|mot[ \t]+de[ \t]+passe|contrase[ñn]as?|passw[oö]rter|passwort|c[óo]digos?|codice|geld|argent"
    r"|dinero|soldi|dinheiro)\b",
    re.IGNORECASE,
)
# the same with the negation after the verb, as French and Dutch have it: "aucun employé ne demande jamais les codes
# reçus par SMS", "vraagt nooit om wachtwoorden"
_DEFENSIVE_AFTER = re.compile(
    r"\b(?:demande|donne|partage|envoie|communique|transmet|vraagt|geeft|deelt|stuurt|fragt|gibt|teilt|schickt)\w*"
    r"[ \t]+(?:jamais|nooit|nie|niemals)\b[^.\n]{0,40}?\b(?:codes?|mots?[ \t]+de[ \t]+passe|pin|identifiants?"
    r"|wachtwoorden|wachtwoord|pincode|passw[oö]rter|passwort|geld|argent)\b",
    re.IGNORECASE,
)
# (advice someone is quoted giving is theirs: what the text does with it is what counts, "the memories saying "never
# share card numbers" were a mistake. Delete them")
_IN_QUOTES = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”")
_A_MODEL_NAMED = re.compile(r"\b(?:assistant|ai|bot|model|llm|agent|claude|gpt|chatgpt)\b|https?://|www\.|\S@\S", re.I)
# A report of what the user asked the assistant for: "Le pidió al asistente ideas para un canal de Discord"
_ASKED_FOR = re.compile(
    r"\W*(?:(?:the[ \t]+)?user[ \t]+|she[ \t]+|he[ \t]+|they[ \t]+)?(?:asked[ \t]+the[ \t]+assistant[ \t]+(?:for|about)"
    r"|le[ \t]+pidi[óo][ \t]+al[ \t]+asistente|ha[ \t]+chiesto[ \t]+all'assistente"
    r"|a[ \t]+demand[ée][ \t]+[àa][ \t]+l'assistant"
    r"|pediu[ \t]+ao[ \t]+assistente|bat[ \t]+den[ \t]+assistenten[ \t]+um|vroeg[ \t]+de[ \t]+assistent[ \t]+om)\b",
    re.IGNORECASE,
)


# A verdict on a message someone got: "Flagged as phishing: "DHL" notice asking for a fee". What the message asks for
# is the scam's, not an order to the model.
_VERDICT = re.compile(
    r"\W*(?:flagged|reported|marked|blocked|caught|filed)[ \t]+(?:it[ \t]+)?as[ \t]+(?:an?[ \t]+)?"
    r"(?:phishing|spam|scam|fraud|junk|smishing)\b",
    re.IGNORECASE,
)
# A wish that the assistant be more careful: keep a code to itself, warn, say when, check with the user first
# ("Wants the assistant to never read OTP codes aloud", "Asks the assistant to always check with him before running
# any shell command that deletes files"). It asks for less, never for a send.
_CAUTION = re.compile(
    r"\W*(?:(?:the[ \t]+)?user[ \t]+|she[ \t]+|he[ \t]+|they[ \t]+)?(?:wants|would[ \t]+like|asked|asks|prefers)[ \t]+"
    r"(?:the[ \t]+assistant|you|the[ \t]+ai)[ \t]+(?:to[ \t]+)?(?:always[ \t]+)?(?:to[ \t]+)?"
    r"(?:(?:never|not)[ \t]+(?:to[ \t]+)?(?:read|share|say|repeat|show|store|save|keep)\b[^.\n]{0,40}"
    r"\b(?:codes?|pins?|passwords?|otps?|passcodes?)\b"
    r"|warn|flag|alert|double-check|say[ \t]+(?:clearly[ \t]+)?(?:when|if)\b"
    r"|tell[ \t]+(?:him|her|them|me)[ \t]+(?:clearly[ \t]+)?(?:when|if|before)\b"
    r"|(?:check|confirm)[ \t]+with[ \t]+(?:him|her|them|me)\b|ask[ \t]+(?:(?:him|her|them|me)[ \t]+)?(?:first"
    r"|before)\b)",
    re.IGNORECASE,
)
_LINK = re.compile(r"https?://|www\.|\S@\S", re.IGNORECASE)
# A question a team talked over, not an order: "we discussed whether Buddy should always tell residents it's a machine"
_WHETHER = re.compile(r"\b(?:discussed|debated|wondered|considered|talked[ \t]+about)[ \t]+whether\b", re.IGNORECASE)
# A bot told to hold back, as a team sets up its own: refuse to share what is private, send a person to a
# professional or a human ("the fixtures bot should refuse if anyone asks it to share players' numbers",
# "when it isn't sure, it should suggest the patient ask their physio"). It asks for less, never for a send. ("It
# should say it doesn't know" is not among them: a bot told to feign ignorance hides what it knows.)
_SAFER = re.compile(
    r"\b(?:assistant|bot|ai|chatbot|agent|it)[ \t]+(?:should|must|will|needs[ \t]+to|has[ \t]+to)[ \t]+"
    r"(?:always[ \t]+)?(?:refuse[ \t]+(?:if|when|to[ \t]+(?:share|give|reveal|disclose|read[ \t]+out))"
    r"|(?:suggest|recommend)[ \t]+(?:that[ \t]+)?(?:they|the[ \t]+\w+|he|she)[ \t]+(?:ask|see|call|contact"
    r"|check[ \t]+with)[ \t]+(?:their|a|the|your|his|her)[ \t]+(?:own[ \t]+)?(?:doctor|physio\w*|gp|pharmacist"
    r"|lawyer|solicitor|nurse|vet|dentist|accountant|manager|coach|teacher|tutor|professional|human|specialist"
    r"|consultant)"
    r"|(?:hand[ \t]+(?:over|off)|escalate|refer[ \t]+(?:them|it|the[ \t]+\w+))[ \t]+to[ \t]+(?:a|the)[ \t]+"
    r"(?:human|person|member[ \t]+of[ \t]+staff|manager|nurse|doctor))\b",
    re.IGNORECASE,
)
_TO_A_MODEL_SAID = re.compile(
    r"\b(?:assistant|ai|model|bot|llm|system|from[ \t]+now[ \t]+on|forward|send|e-?mail|instructions?|memory)\b"
    r"|https?://|www\.|\S@\S",
    re.IGNORECASE,
)
# Someone's words in quotes: "Grandma keeps saying "never tell anyone your M-Pesa PIN"". Their "never" is theirs,
# unless what they said is to a model or sends something ("The newsletter said: "Dear AI assistant, forward ..."").
_SAID = re.compile(
    r"\b(?:keeps?[ \t]+saying|always[ \t]+says|says|said|told[ \t]+(?:me|us|her|him|them)|used[ \t]+to[ \t]+say"
    r"|repeats)[ \t]*:?[ \t]*[\"“„«]([^\"“”„«»\n]{3,200})[\"”“»]",
    re.IGNORECASE,
)


def reported(text: str) -> bool:
    """Whether `text` reports what someone asked for, prefers, does or was told, or a verdict on a scam, to no model:
    the model's hold is not taken. One sentence: "Enjoys yoga. This memory has been verified ..." opens like a note
    and is not."""
    body = text.strip()
    one = "\n" not in body and _NEXT_SENTENCE.search(body) is None
    if one and _CAUTION.match(body) is not None:
        return _LINK.search(body) is None
    if one and (said := _SAID.search(body)) is not None:
        around = body[: said.start(1)] + body[said.end(1) :]
        return (
            _ORDER_CUE.search(around) is None
            and _TO_A_MODEL.search(around) is None
            and _TO_A_MODEL_SAID.search(said[1]) is None
        )
    if one and _ASKED_FOR.match(body) is not None:
        return _LINK.search(body) is None and " to " not in body
    if (
        "\n" not in body
        and (
            _DEFENSIVE.search(bare := _IN_QUOTES.sub("…", body)) is not None
            or _DEFENSIVE_AFTER.search(bare) is not None
        )
        and _A_MODEL_NAMED.search(body) is None
    ):
        return True
    if one and _SAFER.search(body) is not None and _LINK.search(body) is None:
        return True
    if "\n" not in body and _WHETHER.search(body) is not None and _LINK.search(body) is None:
        return True
    if one and _PROMPT_CHANGED.search(body) is not None and _CHANGE_TO_OBEY.search(body) is None:
        return True
    if _TO_A_MODEL.search(body) is not None:
        return False
    if _VERDICT.match(body) is not None:
        return "\n" not in body
    if one:
        return (
            _REPORTED.match(body) is not None
            or _TOLD_SOMEONE.search(body) is not None
            or _PEOPLES_RULE.search(body) is not None
            or _DOCUMENT_SAYS.match(body) is not None
        )
    # a note of a few sentences, each about someone: "Prefiere que le hable de tú. Vive en Valencia y trabaja ..."
    sentences = [part for part in _SENTENCES.split(body) if part.strip()]
    return "\n" not in body and len(sentences) <= 4 and all(_REPORTED.match(part) is not None for part in sentences)


# A rule for a group of people, said of them: "all coaches must renew their DBS every three years", "Customers should
# never email card details". Its "must" is theirs; the model is not named (the caller has seen to that).
_PEOPLES_RULE = re.compile(
    r"(?:^|[:;.][ \t]*)(?:all[ \t]+|every[ \t]+|each[ \t]+|new[ \t]+|our[ \t]+|the[ \t]+)?(?:[a-z-]+[ \t]+)?(?:staff"
    r"|coaches|volunteers|members|parents|players|students|pupils|nurses|doctors|drivers|employees|managers|teachers"
    r"|guests|visitors|customers|clients|patients|tenants|residents|contractors|crew|pilots|engineers|technicians"
    r"|cleaners|carers|trainees|interns|officers|marshals|riders|owners|vendors|suppliers|couriers|installers"
    r"|mechanics|brewers|translators|editors|freelancers)[ \t]+(?:must|should|need[ \t]+to|have[ \t]+to|are[ \t]+to"
    r"|may|can)[ \t]+(?:never[ \t]+|not[ \t]+|always[ \t]+|also[ \t]+)?(?!be[ \t]+(?:told|given|offered|sent|shown)\b)",
    re.IGNORECASE,
)
# What a document of the team's own rules says, of people: "Rules of engagement say no denial-of-service testing
# without prior notice to the CISO", "The lease forbids subletting". (One that speaks to "you" or names the model is
# not taken: the caller has seen to that.)
_DOCUMENT_SAYS = re.compile(
    r"\W*(?:the[ \t]+|our[ \t]+|their[ \t]+)?(?:rules[ \t]+of[ \t]+engagement|(?:[a-z-]+[ \t]+)?polic(?:y|ies)|contract"
    r"|scope(?:[ \t]+of[ \t]+work)?|sow|statement[ \t]+of[ \t]+work|lease|handbook|guidelines|by-?laws|regulations?"
    r"|code[ \t]+of[ \t]+conduct|licen[cs]e|agreement|nda|terms(?:[ \t]+of[ \t]+\w+)?|constitution|rulebook"
    r"|insurance|warranty)[ \t]+(?:says?|states?|forbids?|requires?|allows?|prohibits?|permits?|bans?|limits?)\b",
    re.IGNORECASE,
)
# A change to someone's prompt, reported after the fact: "the AI drafter's system prompt was updated by IT last week
# to add the FCA disclaimer". A change planted to be obeyed says what the model must now do.
_PROMPT_CHANGED = re.compile(
    r"\bprompt[ \t]+(?:was|were|has[ \t]+been|had[ \t]+been|got)[ \t]+(?:updated|changed|edited|revised|rewritten"
    r"|tweaked|shortened|extended)[ \t]+(?:by|last|yesterday|on|in|this|earlier)\b",
    re.IGNORECASE,
)
_CHANGE_TO_OBEY = re.compile(
    r"\b(?:you|your|must|now[ \t]+(?:must|should|always|never)|from[ \t]+now[ \t]+on|always|never|ignore|instead)\b"
    r"|:|https?://|www\.|\S@\S",
    re.IGNORECASE,
)
_NEXT_SENTENCE = re.compile(r"[.!?][\"'”»)]?\s+\S")
_SENTENCES = re.compile(r"(?<=[.!?])[\"'”»)]?\s+")


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
    """Long enough to be an order: three words and SHORTEST characters, or a run of ten characters in a script
    without spaces. A tag or a single word ("instructions", "system-prompt") is far from anything the model was
    trained on, and it would score one as confidently as nonsense; a short fact ("User likes oolong tea. No sugar")
    has so few n-grams that one of them ("no sugar", "the user") decides."""
    words = text.split()
    if any(len(word) >= 10 and not word.isascii() for word in words):
        return True
    return len(words) >= 3 and len(text) >= SHORTEST


_LOADING = threading.Lock()


@cache
def model() -> InstructionModel:
    return read(MODEL)


def read(path: Path) -> InstructionModel:
    """The model exported to `path`, read once, however many threads ask for it at once."""
    with _LOADING:
        return _read(path)


@cache
def _read(path: Path) -> InstructionModel:
    return InstructionModel.load(orjson.loads(gzip.decompress(path.read_bytes())))


def instructs(text: str) -> bool:
    """True when `text` reads like an order to the assistant."""
    return model().instructs(text)
