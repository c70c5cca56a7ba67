"""Text a hostile web page could get into memory, episodes or history (the review queue exists for it): each must
render as inert, visible text in the console. Every string is also checked as a tag, a user name and a session id
where those may hold it."""

from __future__ import annotations

LONG = "A" * 3000  # no break opportunity at all
HOSTILE: tuple[str, ...] = (
    "<script>alert('memory')</script>",
    '<img src=x onerror="alert(1)">',
    '"><svg onload=alert(2)>',
    "'><svg/onload=alert(3)>",
    '<a href="javascript:alert(4)">click me</a>',
    "javascript:alert(5)",
    '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCg2KTwvc2NyaXB0Pg==">data link</a>',
    "</textarea><script>alert(7)</script>",
    "</title><script>alert(8)</script>",
    '" autofocus onfocus="alert(9)',
    "' onmouseover='alert(10)",
    "{{7*7}} {% raw %}${7*7}#{7*7}",
    "<style>body{display:none}</style>",
    '<div style="position:fixed;top:0;left:0;width:100vw;height:100vh;z-index:99999;background:red">overlay</div>',
    "<iframe src=//evil.example></iframe>",
    "<object data=//evil.example/x.swf></object>",
    '<link rel=stylesheet href="//evil.example/x.css">',
    "<base href=//evil.example/>",
    '<meta http-equiv="refresh" content="0;url=//evil.example">',
    "user\u202eexe.txt, approve me\u202c",  # right-to-left override
    "zero\u200bwidth\u200djoin\u2060ers\ufeff",
    "Z\u0338\u0335\u0334\u0336\u0337\u0321\u0322\u0327\u0328\u031b\u0316\u0317\u0318\u0319\u031c\u031d\u031e\u031f" * 4,
    LONG,
    "https://evil.example/" + "x" * 400,
)
# What must never be found unescaped in a page's HTML (the tags and attributes the corpus tries to plant).
# (Attribute names such as onload= may show as text; inert() checks that no tag carries one.)
PLANTED = ("<script>alert", "<img src=x", "<svg", "<style>", "<iframe", "<object", "<base", "<meta http-equiv",
           'href="javascript:', 'href="data:', "</textarea><script", "</title><script")  # fmt: skip
