"""An instruction triggered by recall in other languages ("chaque fois que cette note est lue", "wenn diese
Erinnerung gelesen wird"): the English ones are in `english`. Matched against the Latin view."""

from __future__ import annotations

from .shape import _S, Shape, _shape

# An instruction triggered by recall in other languages: "chaque fois que cette note est lue", "cada vez que leas
# esto", "ogni volta che leggi questa memoria", "wenn diese Erinnerung gelesen wird", "telkens wanneer je dit leest",
# "za każdym razem, gdy czytasz", "всякий раз, когда читаешь", "her okunduğunda" (Latin view: "й" is "и", "ğ" "g").
_RECALL_ABROAD = (
    rf"\b(?:(?:a{_S})?chaque{_S}fois{_S}qu(?:e{_S}|')|quand{_S}|lorsqu(?:e{_S}|')|des{_S}que{_S})(?:tu{_S}(?:lis|liras"
    rf"|vois|charges)|vous{_S}(?:lisez|lirez|voyez)|(?:cette|ce){_S}(?:note|memoire|souvenir|message|texte){_S}(?:est|sera)"
    rf"{_S}(?:lue?|chargee?|rappelee?))"
    rf"|\b(?:cada{_S}vez{_S}que|cuando|siempre{_S}que){_S}(?:leas|veas|cargues|se{_S}lea|(?:esta|este){_S}(?:nota|memoria"
    rf"|recuerdo|mensaje){_S}(?:se{_S}lea|sea{_S}leid[ao]))"
    rf"|\b(?:ogni{_S}volta{_S}che|quando){_S}(?:leggi|vedi|carichi|(?:questa|questo){_S}(?:nota|memoria|messaggio)"
    rf"{_S}(?:viene|verra){_S}lett[ao])"
    rf"|\b(?:sempre{_S}que|toda{_S}vez{_S}que|quando){_S}(?:ler|leres|voce{_S}ler|(?:esta|este){_S}(?:nota|memoria"
    rf"|mensagem){_S}for{_S}lid[ao])"
    rf"|\b(?:jedes{_S}mal{_S}wenn|immer{_S}wenn|wenn|sobald){_S}(?:du{_S}(?:dies|diese\w*){_S}[^.\n]{{0,20}}?liest"
    rf"|(?:diese|dieser|dieses){_S}(?:erinnerung|notiz|nachricht|eintrag|text){_S}(?:gelesen|geladen|abgerufen){_S}wird)"
    rf"|\b(?:telkens|elke{_S}keer|iedere{_S}keer)?{_S}?(?:als|wanneer|dat){_S}(?:je|u){_S}(?:dit|deze{_S}\w+){_S}"
    rf"(?:leest|ziet|laadt)\b"
    rf"|\b(?:za{_S}kazdym{_S}razem|zawsze),?{_S}(?:gdy|kiedy){_S}(?:czytasz|przeczytasz|odczytasz|(?:ta|ten){_S}"
    rf"(?:notatka|pamiec|wpis){_S}(?:jest|zostanie){_S}(?:czytan|odczytan|przeczytan)\w*)"
    rf"|(?:всякии|каждыи){_S}раз,?{_S}когда{_S}(?:ты{_S})?(?:читаешь|прочитаешь|видишь|загружаешь|(?:эта|эту){_S}"
    rf"(?:заметк\w+|запис\w+))"
    rf"|\bher{_S}(?:okundugunda|okudugunda|okundugu{_S}zaman|yuklendiginde)"
)
RECALL_ABROAD: tuple[Shape, ...] = (
    _shape(
        "an instruction triggered by recall",
        (
            "fois",
            "quand",
            "lorsqu",
            "des que",
            "cada vez",
            "cuando",
            "siempre que",
            "volta",
            "quando",
            "sempre que",
            "toda vez",
            "wenn",
            "sobald",
            "als ",
            "wanneer",
            "dat ",
            "razem",
            "zawsze",
            "раз",
            "okund",
            "okudu",
            "yuklendig",
        ),
        _RECALL_ABROAD,
    ),  # fmt: skip
)
